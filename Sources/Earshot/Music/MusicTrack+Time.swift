/// Music on the audio clock: starts, stops and fades at an ``AudioEngine/audioTime``, the track's
/// tempo and its markers (see <doc:TimeAndScheduling>).
extension MusicTrack {
    /// A named place in a track given in code (``MusicTrack/markers``): `seconds` into the file.
    public struct Cue: Sendable, Hashable {
        /// The name the ``MarkerEvent`` carries.
        public var name: String
        /// Seconds from the start of the file (0 … ``MusicTrack/duration``).
        public var seconds: Double

        /// A marker named `name`, `seconds` into the file.
        public init(name: String, seconds: Double) {
            self.name = name
            self.seconds = seconds
        }
    }

    /// The most markers a track takes.
    public static let maxMarkers = 10_000

    // MARK: Transport on the clock

    /// Starts the track at `time`, an ``AudioEngine/audioTime``: its first frame (from
    /// ``currentTime``) is heard at that time.
    ///
    /// On a loopback engine the start is exact to the frame whatever the render size: the render
    /// that contains the time queues a silent lead-in that ends on its frame. Live, the start is
    /// set up 30 ms ahead on the same clock, with the device's output latency taken into account
    /// (`ALC_SOFT_device_clock`). A time
    /// already past starts at the next render (live: at once). Until the start is set up (the
    /// render that holds it; live, 30 ms ahead) ``isPlaying`` is false and ``isWaitingToPlay`` true; ``play()``, ``pause()`` and ``stop()`` cancel the start, and
    /// a new `play(at:)` replaces it. A prepared or paused track starts from where it is. While the
    /// track's bus is held (paused, or an interruption) the start waits for the hold to end.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a time that is not finite or a track
    /// that is playing, ``EarshotError/engineShutDown`` after shutdown. A source is claimed at
    /// the start: when every music source is busy then, the track ends with a `.failed` event
    /// (``EarshotError/musicSourcesBusy(_:)``).
    ///
    /// ```swift
    /// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// try song.play(at: engine.audioTime + 0.5)   // half a second of output from now
    /// ```
    public func play(at time: Double) throws(EarshotError) {
        guard time.isFinite else { throw .invalidArgument("play(at:) with a time that is not finite: \(time)") }
        guard let engine else { throw .engineShutDown }
        try system.play(stream, at: time, host: engine)
    }

    /// Stops the track at `time`, an ``AudioEngine/audioTime``: the last frame heard is the one
    /// before that time, and the track ends with `.stopped` there, ``currentTime`` on the frame
    /// it stopped at (so ``play()`` resumes from it).
    ///
    /// On a loopback engine exact to the frame whatever the render size: the render that contains
    /// the time plays a queue trimmed to end on its frame. Live, within the device's mixing
    /// period (set up 30 ms ahead). A time already past stops the track at the next render
    /// (live: within 10 ms). A later `stop(at:)` replaces the time; ``stop()`` stops now. It
    /// applies to the current play session, or to the one a ``play(at:)`` will start — a stop at
    /// or before that start cancels the start. Like a ``stop()``, it cuts without a ramp
    /// (OpenAL Soft 1.19.1): fade out up to it (``fade(to:duration:curve:stopsAtEnd:at:)``) for
    /// a click-free end on a frame.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a time that is not finite and
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// let start = engine.audioTime + 0.1
    /// try song.play(at: start)
    /// try song.stop(at: start + 4)   // exactly four seconds of it
    /// ```
    public func stop(at time: Double) throws(EarshotError) {
        guard time.isFinite else { throw .invalidArgument("stop(at:) with a time that is not finite: \(time)") }
        guard let engine else { throw .engineShutDown }
        system.stop(stream, at: time, host: engine)
    }

    /// Like ``fade(to:duration:curve:stopsAtEnd:)``, but the fade begins at `time`, an
    /// ``AudioEngine/audioTime``; until then the volume stays where it is (a fade in flight is
    /// replaced now, at its current level).
    ///
    /// On a loopback engine the fade begins on the frame of its time, whatever the render size:
    /// the frames of the render that holds it are queued again with the ramp applied from that
    /// frame on; from the next render the gain follows the ramp at every refill, as for every
    /// fade (per render; every 10 ms live, where the fade begins within that period). A time
    /// already past begins the fade now. A fade that stops the track at its end
    /// (`stopsAtEnd`) is a click-free ``stop(at:)``: the fade ends where it stops.
    ///
    /// ```swift
    /// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// try song.play()
    /// // fade out over the last two seconds before the cut at 30 s of audio time
    /// song.fade(to: 0, duration: 2, stopsAtEnd: true, at: 28)
    /// ```
    public func fade(to target: Float, duration: Double, curve: FadeCurve = .linear, stopsAtEnd: Bool = false,
                     at time: Double) {
        guard target.isFinite, duration.isFinite, time.isFinite else { return }
        guard let engine else { return }
        system.fade(stream, to: min(Self.maxVolume, max(0, target)), duration: duration, curve: curve, stopsAtEnd: stopsAtEnd,
                    restoreVolume: nil, at: time, host: engine)
    }

    // MARK: Tempo and markers

    /// The track's tempo: while it plays, ``AudioEngine/markers`` reports every beat
    /// (``MarkerEvent/Kind/beat(bar:beat:)``) and the first beat of every bar
    /// (``MarkerEvent/Kind/bar(_:)``) with the audio time it is heard at; nil (the default)
    /// reports none.
    ///
    /// A tempo outside ``Tempo``'s limits is a programmer error (trap); ``setTempo(_:)`` throws
    /// instead, for values from data.
    ///
    /// ```swift
    /// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// song.tempo = Tempo(bpm: 120, beatsPerBar: 4, firstBeat: 0)
    /// ```
    public var tempo: Tempo? {
        get { system.read(stream) { $0.tempo } }
        set {
            precondition(newValue?.isValid ?? true, "MusicTrack.tempo outside its limits: \(String(describing: newValue))")
            system.mutate(stream) { $0.tempo = newValue }
        }
    }

    /// Sets ``tempo``, or throws ``EarshotError/invalidArgument(_:)`` when it is outside the
    /// limits ``Tempo`` documents (a bpm of 1 … 1000, 1 … 64 beats a bar, a finite first beat ≥ 0).
    ///
    /// ```swift
    /// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// try song.setTempo(Tempo(bpm: 96, beatsPerBar: 3))
    /// ```
    public func setTempo(_ tempo: Tempo?) throws(EarshotError) {
        if let tempo, !tempo.isValid { throw .invalidArgument("tempo \(tempo) is outside its limits") }
        system.mutate(stream) { $0.tempo = tempo }
    }

    /// The track's markers: those of its file when it is loaded (``MarkerReader``: WAV cue points
    /// and regions, CAF markers, Ogg chapters — unreadable ones are logged and left out), or
    /// those given in code, which replace them. While the track plays, ``AudioEngine/markers``
    /// reports each one (``MarkerEvent/Kind/marker``, its name) with the audio time its frame is
    /// heard at — on every pass of a loop, at any ``rate``. Each lies on the file frame nearest its time.
    ///
    /// A marker outside `0 … duration` (or not finite), or more than ``maxMarkers``, is a
    /// programmer error (trap); ``setMarkers(_:)`` throws instead, for values from data.
    ///
    /// ```swift
    /// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// song.markers = [MusicTrack.Cue(name: "verse", seconds: 0.25), MusicTrack.Cue(name: "drop", seconds: 0.75)]
    /// ```
    public var markers: [Cue] {
        get { system.read(stream) { $0.cues } }
        set {
            do throws(EarshotError) { try setMarkers(newValue) } catch { preconditionFailure("MusicTrack.markers: \(error)") }
        }
    }

    /// Sets ``markers``, or throws ``EarshotError/invalidArgument(_:)`` for a marker whose time
    /// is not finite or lies outside the file, or for more than ``maxMarkers``; nothing changes then.
    ///
    /// ```swift
    /// let song = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// try song.setMarkers([MusicTrack.Cue(name: "drop", seconds: 0.75)])
    /// ```
    public func setMarkers(_ cues: [Cue]) throws(EarshotError) {
        guard cues.count <= Self.maxMarkers else { throw .invalidArgument("\(cues.count) markers (at most \(Self.maxMarkers))") }
        var frames: [(name: String, frame: Int)] = []
        frames.reserveCapacity(cues.count)
        for c in cues {
            guard c.seconds.isFinite, c.seconds >= 0, c.seconds <= duration else {
                throw .invalidArgument("marker \(c.name) at \(c.seconds) s lies outside 0…\(duration) s")
            }
            frames.append((c.name, min(frameCount, Int((c.seconds * Double(sampleRate)).rounded()))))
        }
        frames.sort { $0.frame < $1.frame }
        system.mutate(stream) {
            $0.cues = cues
            $0.cueFrames = frames
        }
    }
}
