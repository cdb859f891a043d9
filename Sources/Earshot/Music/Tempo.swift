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

    /// Appends the bars and beats whose file frames lie in `fa ..< fb` (a file of `fileRate`),
    /// timed by `time` (file frame → audio time); none heard at or after `until` (a music set's
    /// state that is left stops counting at its boundary). A bar comes before its first beat.
    func beats(from fa: Double, to fb: Double, fileRate: Int, until: Double, time: (Double) -> Double,
               origin: MarkerEvent.Origin, into out: inout [MarkerEvent]) {
        let first = firstBeat * Double(fileRate), every = secondsPerBeat * Double(fileRate)
        var k = max(0, Int(((fa - first) / every).rounded(.up)))
        while first + Double(k) * every < fb {
            let x = first + Double(k) * every
            let bar = k / beatsPerBar + 1, beat = k % beatsPerBar + 1
            if time(x) >= until { k += 1; continue }
            if beat == 1 { out.append(MarkerEvent(origin: origin, kind: .bar(bar), audioTime: time(x))) }
            out.append(MarkerEvent(origin: origin, kind: .beat(bar: bar, beat: beat), audioTime: time(x)))
            k += 1
        }
    }
}
