/// How a fade is under way: a volume ramp on the stream clock (playback time).
struct FadeState {
    var from: Float
    var to: Float
    var start: Double
    var duration: Double
    var curve: MusicTrack.FadeCurve
    var stopsAtEnd: Bool
    /// The volume to restore once a fade that stops the track has stopped it (crossfades).
    var restoreVolume: Float?
    /// A fade at a time (``MusicTrack/fade(to:duration:curve:stopsAtEnd:at:)``) whose first frame
    /// is still to come: the pump makes it begin on that frame (StreamSystem+Schedule.swift).
    var startsLater = false
    /// That fade's time on the audio clock: its start on the music clock is worked out again at
    /// every pump until it begins, so that a hold of the audio clock (an interruption, a lost
    /// device) before then moves it with the clock.
    var audioStart: Double?
    /// Music-clock time at which the track (or its bus) was paused: the fade's timeline is
    /// playback time, frozen there until ``thaw(at:)``.
    var pausedAt: Double?

    /// The volume at music-clock time `now`, and whether the fade is over.
    func volume(at now: Double) -> (Float, done: Bool) {
        let now = pausedAt ?? now
        let t = duration > 0 ? (now - start) / duration : 1
        if t >= 1 { return (to, true) }
        if t <= 0 { return (from, false) }
        return (curve.value(from: from, to: to, progress: Float(t)), false)
    }

    /// Stops the fade's timeline at `now` (the track stopped playing).
    mutating func freeze(at now: Double) {
        if pausedAt == nil { pausedAt = now }
    }

    /// Continues the timeline from where ``freeze(at:)`` stopped it: the paused span is skipped.
    mutating func thaw(at now: Double) {
        guard let p = pausedAt else { return }
        start += max(0, now - p)
        pausedAt = nil
    }
}
