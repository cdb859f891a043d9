/// A track's tempo: the beats and bars ``AudioEngine/markers`` reports while it plays
/// (``MusicTrack/tempo``).
///
/// Beat 1 of bar 1 lies ``firstBeat`` seconds into the file; a beat follows every `60 / bpm`
/// seconds of the file, and every ``beatsPerBar``th beat begins a bar. The times are the file's:
/// at a ``MusicTrack/rate`` other than 1 the beats come faster or slower on the audio clock, and
/// a loop starts the count again from the beats of its region.
///
/// ```swift
/// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
/// song.tempo = Tempo(bpm: 120, beatsPerBar: 4, firstBeat: 0.1)   // beat 1 at 0.1 s, then every 0.5 s
/// ```
public struct Tempo: Sendable, Equatable {
    /// Beats per minute (checked by ``MusicTrack/tempo``: finite, 1 … 1000).
    public var bpm: Double
    /// Beats in a bar (1 … 64).
    public var beatsPerBar: Int
    /// Where beat 1 of bar 1 lies in the file, seconds (finite, ≥ 0). Beats before it (a pickup)
    /// are not reported.
    public var firstBeat: Double

    /// A tempo of `bpm` beats per minute, `beatsPerBar` to a bar, the first beat `firstBeat`
    /// seconds into the file.
    public init(bpm: Double, beatsPerBar: Int = 4, firstBeat: Double = 0) {
        self.bpm = bpm
        self.beatsPerBar = beatsPerBar
        self.firstBeat = firstBeat
    }

    /// The largest tempo accepted.
    public static let maxBPM: Double = 1_000
    /// The most beats a bar may have.
    public static let maxBeatsPerBar = 64

    /// Whether the values are within their limits.
    var isValid: Bool {
        bpm.isFinite && bpm >= 1 && bpm <= Self.maxBPM && (1...Self.maxBeatsPerBar).contains(beatsPerBar)
            && firstBeat.isFinite && firstBeat >= 0 && firstBeat < 1e7
    }

    /// Seconds of the file per beat.
    var secondsPerBeat: Double { 60 / bpm }
}
