//! `EventLog`: the sink of every run whose events are looked at in the
//! app, the timeline's build included. Not a kernel structure.
//!
//! Each sink type the model runs into is another copy of the whole model
//! in the app's wasm (about 7 KB gzipped each), so the app has two:
//! [`crate::NoEvents`] for runs nobody watches, and this one. It either
//! keeps the events, for the event log, the text forms and the event
//! checks, or, for a timeline's build, notes what the timeline keeps of
//! an access as its events go by ([`AccessNotes`]) and keeps none: the
//! build's events are millions, and buffering each access's only to read
//! them back was 8% of its instructions. The build's last accesses are
//! kept, and noted once kept, for the log a timeline keeps of its end.

use crate::event::{Event, EventSink, KFunc};
use crate::fault::MMAP_LOTSAMISS;

/// A sink that keeps the events, or only notes them for a timeline.
#[derive(Debug, Default)]
pub struct EventLog {
    events: Vec<Event>,
    notes_only: bool,
    notes: AccessNotes,
}

/// What a timeline keeps of one access: its number of events, whether
/// it faulted in major, read ahead, or took `mmap_miss` across
/// MMAP_LOTSAMISS, and the folios it added.
#[derive(Debug, Default)]
pub(crate) struct AccessNotes {
    pub(crate) events: u32,
    pub(crate) major: bool,
    pub(crate) readahead: bool,
    pub(crate) crossing: bool,
    pub(crate) added: Vec<u64>,
}

impl AccessNotes {
    #[inline(always)]
    fn note(&mut self, e: &Event) {
        self.events = self.events.saturating_add(1);
        match *e {
            Event::FaultAccounted { major, .. } => self.major |= major,
            Event::Window {
                func: KFunc::PageCacheSyncRa | KFunc::PageCacheAsyncRa | KFunc::DoSyncMmapReadahead,
                ..
            } => self.readahead = true,
            Event::MmapMiss { old, new, .. } => {
                self.crossing |= (old <= MMAP_LOTSAMISS) != (new <= MMAP_LOTSAMISS);
            }
            Event::FolioAdded { index, .. } => self.added.push(index),
            _ => {}
        }
    }
}

impl EventLog {
    /// A log that keeps every event.
    pub fn new() -> Self {
        EventLog::default()
    }

    /// A log that keeps no event and notes each for a timeline.
    pub(crate) fn notes_only() -> Self {
        EventLog {
            notes_only: true,
            ..EventLog::default()
        }
    }

    /// Notes the events kept, as a log that only notes would have: for
    /// the few accesses whose events a timeline keeps. A branch in
    /// [`EventLog::emit`] for them instead made the default view's build
    /// 22% slower natively (85 -> 104 ms): `emit` is inlined at every
    /// event the model emits.
    pub(crate) fn note_kept(&mut self) {
        for e in &self.events {
            self.notes.note(e);
        }
    }

    /// The events kept since the last clear.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Hands over the events kept, leaving the log empty.
    pub fn take(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Hands over the events kept one by one, leaving the log empty.
    pub fn drain(&mut self) -> std::vec::Drain<'_, Event> {
        self.events.drain(..)
    }

    /// Forgets the events and notes: for the next access.
    pub fn clear(&mut self) {
        self.events.clear();
        let n = &mut self.notes;
        (n.events, n.major, n.readahead, n.crossing) = (0, false, false, false);
        n.added.clear();
    }

    /// What the accesses since the last clear did, for a timeline.
    pub(crate) fn notes(&self) -> &AccessNotes {
        &self.notes
    }
}

impl EventSink for EventLog {
    #[inline]
    fn emit(&mut self, event: Event) {
        if self.notes_only {
            self.notes.note(&event);
        } else {
            self.events.push(event);
        }
    }
}
