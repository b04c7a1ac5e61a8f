//! Ctrl-C (SIGINT), SIGTERM and SIGHUP while recording: the handler only
//! notes the signal, so that the recording loop stops the program, turns
//! tracing off and removes its tracefs instances on the way out, as on
//! any other exit path. The previous handlers come back when the guard
//! drops.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that asked the recording to stop, or 0.
static STOP: AtomicI32 = AtomicI32::new(0);

const SIGNALS: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

extern "C" fn note(sig: libc::c_int) {
    // An atomic store is async-signal-safe.
    STOP.store(sig, Ordering::SeqCst);
}

/// While alive, the three signals are noted rather than fatal.
pub struct Guard {
    old: Vec<(libc::c_int, libc::sigaction)>,
}

impl Guard {
    pub fn install() -> Guard {
        STOP.store(0, Ordering::SeqCst);
        let mut old = Vec::new();
        for sig in SIGNALS {
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = note as extern "C" fn(libc::c_int) as *const () as usize;
                libc::sigemptyset(&mut sa.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &sa, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        Guard { old }
    }

    /// The signal received since [`Guard::install`], if any.
    pub fn stopped(&self) -> Option<i32> {
        match STOP.load(Ordering::SeqCst) {
            0 => None,
            s => Some(s),
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            unsafe {
                libc::sigaction(*sig, prev, std::ptr::null_mut());
            }
        }
    }
}
