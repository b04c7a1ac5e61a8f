//! How far play moves at each animation frame: by the time since the
//! frame before, not by a fixed share of the speed, so that the speed the
//! controls show is the speed played on any display. With a fixed
//! speed/60 accesses a frame, a 120 Hz display played twice the speed
//! shown, and 16 accesses/s, rounded up to one access a frame, played 60.
//!
//! A frame that comes late is owed at most [`MAX_FRAME_MS`] of play: a
//! stall (a hidden tab, whose frames stop) is not played through in one
//! leap, and a machine that cannot draw the view at the speed chosen
//! plays what it can. The speed reached over each second of play is
//! kept, so that the controls can say when it falls short of the speed
//! shown.

/// The most play one frame is owed, in milliseconds: six frames at
/// 60 Hz, so that frames dropped on a busy machine are made up in the
/// next. A frame's work grows with the accesses it plays only up to the
/// cost of a jump (a longer move restores a checkpoint), so this bounds
/// a frame's work however late it comes. On the CI machine, whose e2e
/// run once drew the 16 GiB link at 44.5 fps with frames of up to 61 ms
/// of work, a bound of 50 ms played 96.3% of the speed shown.
pub const MAX_FRAME_MS: f64 = 100.0;

/// The span over which the speed reached is measured, in milliseconds. A
/// gap between frames longer than this (a hidden tab, whose frames stop)
/// is a pause, not a slow frame, and starts the span again.
pub const RATE_SPAN_MS: f64 = 1000.0;

/// Below this share of the speed shown, the speed reached is reported.
pub const SHORTFALL: f64 = 0.9;

/// One run of play at one speed, started at a time in milliseconds (the
/// clock of `requestAnimationFrame` and `performance.now()`).
#[derive(Clone, Debug)]
pub struct PlayClock {
    per_second: f64,
    last: f64,
    /// The part of an access owed and not yet played.
    owed: f64,
    /// Time and accesses played since the span began.
    span_ms: f64,
    span_played: f64,
    /// Accesses a second over the last whole span.
    reached: Option<f64>,
}

impl PlayClock {
    pub fn new(per_second: u64, now_ms: f64) -> Self {
        PlayClock {
            per_second: per_second as f64,
            last: now_ms,
            owed: 0.0,
            span_ms: 0.0,
            span_played: 0.0,
            reached: None,
        }
    }

    /// The accesses to play at the frame drawn at `now_ms`.
    pub fn frame(&mut self, now_ms: f64) -> u64 {
        // A frame's time can come before the moment play started.
        let elapsed = (now_ms - self.last).max(0.0);
        self.last = self.last.max(now_ms);
        let played = self.per_second * elapsed.min(MAX_FRAME_MS) / 1000.0;
        self.owed += played;
        let whole = self.owed.floor();
        self.owed -= whole;
        if elapsed > RATE_SPAN_MS {
            self.span_ms = 0.0;
            self.span_played = 0.0;
        } else {
            self.span_ms += elapsed;
            self.span_played += played;
            if self.span_ms >= RATE_SPAN_MS {
                self.reached = Some(self.span_played * 1000.0 / self.span_ms);
                self.span_ms = 0.0;
                self.span_played = 0.0;
            }
        }
        whole as u64
    }

    /// The accesses a second reached over the last second of play, when
    /// that was short of the speed shown by more than [`SHORTFALL`] allows.
    pub fn shortfall(&self) -> Option<u64> {
        self.reached
            .filter(|&r| r < self.per_second * SHORTFALL)
            .map(|r| r.round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `clock` for `ms` at frames `every` ms apart from `start`;
    /// returns the accesses played.
    fn play(clock: &mut PlayClock, start: f64, every: f64, ms: f64) -> u64 {
        let frames = (ms / every).round() as u64;
        (1..=frames)
            .map(|i| clock.frame(start + i as f64 * every))
            .sum()
    }

    #[test]
    fn the_speed_played_is_the_speed_shown_at_any_refresh_rate() {
        for hz in [30.0, 60.0, 120.0, 144.0] {
            for speed in [16u64, 256, 16384, 1 << 20] {
                let mut c = PlayClock::new(speed, 0.0);
                let played = play(&mut c, 0.0, 1000.0 / hz, 4000.0);
                let want = speed * 4;
                assert!(
                    played.abs_diff(want) <= 1,
                    "{hz} Hz at {speed}/s: {played} accesses in 4 s, not {want}"
                );
                assert_eq!(c.shortfall(), None, "{hz} Hz at {speed}/s");
            }
        }
    }

    #[test]
    fn slow_speeds_wait_for_whole_accesses() {
        let mut c = PlayClock::new(16, 0.0);
        let frames: Vec<u64> = (1..=8).map(|i| c.frame(i as f64 * 1000.0 / 60.0)).collect();
        // 16/s is one access every 3.75 frames at 60 Hz.
        assert_eq!(frames, [0, 0, 0, 1, 0, 0, 0, 1]);
    }

    #[test]
    fn late_frames_are_owed_at_most_max_frame_ms_and_the_shortfall_is_told() {
        let mut c = PlayClock::new(16384, 0.0);
        // Frames 200 ms apart, as when each takes that long to draw.
        let played = play(&mut c, 0.0, 200.0, 2000.0);
        let want = (16384.0 * MAX_FRAME_MS / 1000.0 * 10.0) as u64;
        assert!(played.abs_diff(want) <= 1, "{played} against {want}");
        assert_eq!(c.shortfall(), Some(8192));
        // A frame or two late now and then is made up.
        let mut c = PlayClock::new(16384, 0.0);
        let mut t = 0.0;
        let mut played = 0;
        for i in 0..240 {
            t += if i % 10 == 0 {
                MAX_FRAME_MS
            } else {
                1000.0 / 60.0
            };
            played += c.frame(t);
        }
        let want = (16384.0 * t / 1000.0) as u64;
        assert!(played.abs_diff(want) <= 1, "{played} against {want}");
        assert_eq!(c.shortfall(), None);
    }

    #[test]
    fn a_pause_between_frames_is_neither_played_in_full_nor_a_shortfall() {
        let mut c = PlayClock::new(1024, 0.0);
        assert!(play(&mut c, 0.0, 1000.0 / 60.0, 500.0).abs_diff(512) <= 1);
        // The tab was hidden for ten seconds: one late frame's worth.
        let after = c.frame(10_500.0);
        assert!((102..=103).contains(&after), "{after}");
        play(&mut c, 10_500.0, 1000.0 / 60.0, 3000.0);
        assert_eq!(c.shortfall(), None);
    }

    #[test]
    fn a_frame_timed_before_play_began_plays_nothing() {
        let mut c = PlayClock::new(16384, 1000.0);
        assert_eq!(c.frame(995.0), 0);
        assert_eq!(c.frame(1000.0 + 1000.0 / 60.0), 273);
    }
}
