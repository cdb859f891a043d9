/// A marker heard: a named place in a voice's clip or a music track, or a beat or bar of a
/// track's ``Tempo``, with the ``AudioEngine/audioTime`` of the frame it marks.
///
/// Every consumer of ``AudioEngine/markers`` sees every event. An event is delivered within one
/// render (one streaming period or game frame live) of its frame being heard — on a loopback
/// engine by the render that plays it (a track's just before it mixes, a voice's as it returns) —
/// and carries the exact time of the frame on the audio clock,
/// so a game can line up what it shows with what is heard. A track that loops reports its markers
/// and beats again on every pass; at a ``MusicTrack/rate`` other than 1 their times scale (a beat
/// every 0.5 s of the file comes every 0.333 s of audio at rate 1.5). A voice reports its clip's
/// markers the same way: every pass of its loops, scaled by its pitch, none while it is paused or
/// once it is stopped.
///
/// ```swift
/// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
/// song.tempo = Tempo(bpm: 120, beatsPerBar: 4, firstBeat: 0)
/// song.markers = [MusicTrack.Cue(name: "drop", seconds: 0.75)]
/// let markers = engine.markers
/// try song.play()
/// Task {
///     for await event in markers {
///         switch event.kind {
///         case .bar(let bar): print("bar \(bar) at \(event.audioTime)")
///         case .beat(_, let beat): print("beat \(beat)")
///         case .marker: print("\(event.name ?? "") at \(event.audioTime)")
///         }
///     }
/// }
/// ```
public struct MarkerEvent: Sendable {
    /// What the event marks.
    public enum Kind: Sendable, Equatable {
        /// A named marker (``MarkerEvent/name``): given in code or read from the file.
        case marker
        /// A beat of a track's ``Tempo``: `bar` counts from 1 at the first beat, `beat` from 1
        /// within the bar (1 … ``Tempo/beatsPerBar``).
        case beat(bar: Int, beat: Int)
        /// The first beat of bar `bar` (counted from 1), sent just before that beat's
        /// ``beat(bar:beat:)``.
        case bar(Int)
    }

    /// Where a marker comes from.
    public enum Origin: Sendable {
        /// A voice playing a clip.
        case voice(Voice)
        /// A streamed music track.
        case track(MusicTrack)
    }

    /// The voice or the track the marker belongs to.
    public let origin: Origin
    /// What it marks.
    public let kind: Kind
    /// The marker's name (``Kind/marker``); nil for beats and bars.
    public let name: String?
    /// When the marked frame is heard, on the audio clock (``AudioEngine/audioTime``).
    public let audioTime: Double

    init(origin: Origin, kind: Kind, name: String? = nil, audioTime: Double) {
        self.origin = origin
        self.kind = kind
        self.name = name
        self.audioTime = audioTime
    }

    /// The track the event comes from, or nil for a voice's.
    public var track: MusicTrack? {
        if case .track(let t) = origin { return t }
        return nil
    }

    /// The voice the event comes from, or nil for a track's.
    public var voice: Voice? {
        if case .voice(let v) = origin { return v }
        return nil
    }
}

extension AudioEngine {
    /// Every marker heard from now on — voices' clip markers, music tracks' markers and the beats
    /// and bars of their ``MusicTrack/tempo`` — each with its exact ``MarkerEvent/audioTime``.
    ///
    /// Each call returns a stream of its own that sees every event (1024 are kept for a consumer
    /// that falls behind; then its oldest are dropped). The streams finish at ``shutdown()``.
    ///
    /// ```swift
    /// let events = engine.markers
    /// Task { for await e in events { print(e.kind, e.audioTime) } }
    /// ```
    public var markers: AsyncStream<MarkerEvent> { markerBroadcast.stream() }

    /// Calls `observer` for every marker event (as ``markers`` carries them), on the thread that
    /// sends it: the one that calls ``update(deltaTime:)`` or ``render(frames:)`` for voices' markers
    /// (right after it) and for music on a loopback engine; the music's streaming thread for music
    /// on a live device. Until ``shutdown()``. The observer must not block; it may call the engine.
    ///
    /// ```swift
    /// engine.observeMarkers { event in
    ///     if event.name == "hit" { print("hit heard at \(event.audioTime)") }
    /// }
    /// ```
    public func observeMarkers(_ observer: @escaping @Sendable (MarkerEvent) -> Void) {
        markerBroadcast.observe(observer)
    }

    /// Hands `events` to every consumer of ``markers`` (any thread, no engine lock needed; nothing
    /// after shutdown).
    func sendMarkers(_ events: [MarkerEvent]) {
        guard !events.isEmpty else { return }
        markerBroadcast.send(events)
    }
}
