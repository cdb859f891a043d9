import Logging
/// A streamed music track: a file decoded in small chunks onto a reserved source, with the
/// controls of AVAudioPlayer, gapless loops, fades, a finished event and level meters.
///
/// Open one with ``AudioEngine/loadMusic(path:bus:)``. Ogg Vorbis files stream through libvorbisfile,
/// everything else libsndfile reads (WAV, AIFF, FLAC, CAF PCM, Ogg Opus) through libsndfile; the
/// file must be mono or stereo. Nothing is preloaded: a ring of four 125 ms buffers stays queued
/// ahead of the play position (see `StreamSystem` for the streaming design: on a loopback
/// engine every render refills first, so renders never starve; on a live device a streaming
/// thread refills every 10 ms). A track plays on the bus it was loaded on (``bus``: ``Bus/music``
/// by default, any bus of the engine with ``AudioEngine/loadMusic(path:bus:)``): its gain is
/// `volume × bus gain × snapshot × duck × master`, re-applied at every refill and frame, and the
/// bus's pause, stop, mute, snapshots and ducking reach it (see <doc:BusesAndPause>). Only
/// ``Bus/music`` yields to the secondary-audio hint, so a streamed line of dialogue on
/// ``Bus/voice`` keeps its level. A mono track can follow an ``Emitter`` (``follow(_:)``): a
/// radio in the room, a character's long line.
///
/// **Loops are gapless**: at the loop end the decoder seeks back inside the same stream and keeps
/// filling the same buffer, so no frame is dropped, repeated or padded, for PCM and Vorbis alike.
/// With a ``loopRegion`` the file plays from the start (intro), repeats the region
/// ``numberOfLoops`` more times, then plays on to the end of the file (outro).
///
/// **Positions are sample-accurate**: ``currentTime`` is the frame OpenAL is playing
/// (`AL_SAMPLE_OFFSET` within the queue, mapped through the queued buffers' loop seams and seeks),
/// not the decoder's position.
///
/// **Ends**: each play session ends exactly once, with an ``Event`` on ``events`` (and
/// ``onEnd``): `.finished` at the natural end, `.stopped` by ``stop()``, a fade that stops, or
/// engine shutdown, `.failed` (with the error) when the file turns out corrupt mid-stream — the
/// audio decoded before the damage plays out first, other tracks and voices are unaffected.
///
/// ```swift
/// let theme = try engine.loadMusic(path: "Assets/Music/theme.ogg")
/// theme.numberOfLoops = -1
/// try theme.play()
/// // later: go to the battle music over two seconds
/// let battle = try engine.loadMusic(path: "Assets/Music/ambience.wav")
/// try theme.crossfade(to: battle, duration: 2)
/// Task { for await end in battle.events { print(end.reason) } }
/// ```
public final class MusicTrack: @unchecked Sendable {
    // @unchecked Sendable: `engine` is a weak var written once, in init, before the track is shared
    // (weak loads are atomic); the stream it holds is touched only under the stream lock.
    /// How a track's play session ended.
    public struct Event: Sendable, Equatable {
        /// Why it ended.
        public enum Reason: String, Sendable, Equatable {
            /// It played to the end (after its loops).
            case finished
            /// ``MusicTrack/stop()``, a fade with `stopsAtEnd`, a crossfade or engine shutdown.
            case stopped
            /// Corrupt data (or an OpenAL failure) ended it; ``error`` says what.
            case failed
        }
        public let reason: Reason
        /// The error behind a `.failed` end.
        public let error: EarshotError?
        /// The track's file.
        public let path: String
    }

    /// The shape of a volume fade.
    public enum FadeCurve: Sendable, Equatable {
        /// Volume moves in a straight line.
        case linear
        /// Power (volume²) moves in a straight line: two tracks crossfading this way keep the
        /// sum of their powers constant, with no dip in the middle.
        case equalPower

        func value(from a: Float, to b: Float, progress t: Float) -> Float {
            switch self {
            case .linear: return a + (b - a) * t
            case .equalPower: return (a * a * (1 - t) + b * b * t).squareRoot()
            }
        }
    }

    /// The engine, held weakly: a track kept by a game must not keep a discarded engine alive.
    /// Once it is gone the track is stale: `play` throws ``EarshotError/engineShutDown``, other
    /// calls do nothing, `isPlaying` is false.
    weak var engine: AudioEngine?
    let stream: QueuedStream
    let system: MusicSystem

    // The file's facts are constants of the stream (read from the decoder at open): no lock needed.

    /// The file the track streams.
    public var path: String { stream.path }
    /// Frames per second of the file.
    public var sampleRate: Int { stream.fileRate }
    /// 1 (mono) or 2 (stereo).
    public var channels: Int { stream.channels }
    /// Frames in the file.
    public var frameCount: Int { stream.frameCount }
    /// The file's length in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }

    init(engine: AudioEngine, path: String, bus: Bus) throws(EarshotError) {
        let decoder = try MusicDecoders.open(path: path)
        let stream = QueuedStream(decoder: decoder, bus: bus)
        try engine.musicSystem.register(stream, host: engine)
        self.engine = engine
        self.system = engine.musicSystem
        self.stream = stream
        engine.musicSystem.mutate(stream) { $0.markerOrigin = { [weak self] in self.map { .track($0) } } }
        readMarkers(path: path, logger: engine.logger)
    }

    /// The file's own markers (``MarkerReader``: WAV cue points and regions, CAF markers, Ogg
    /// chapters) become the track's ``markers``. A marker chunk that cannot be read leaves the
    /// track without markers — it still plays — and says why in the log.
    private func readMarkers(path: String, logger: Logger) {
        let found: FileMarkers
        do throws(EarshotError) {
            found = try MarkerReader.read(path: path, frameCount: stream.frameCount)
        } catch {
            logger.warning("\(path): its markers cannot be read (\(error)); the track plays without them")
            return
        }
        guard !found.markers.isEmpty else { return }
        let rate = Double(max(stream.fileRate, 1))
        let cues = found.markers.map { Cue(name: $0.name, seconds: Double($0.frame) / rate) }
        let frames = found.markers.map { (name: $0.name, frame: min(stream.frameCount, $0.frame)) }   // exact, by frame
        system.mutate(stream) {
            $0.cues = cues
            $0.cueFrames = frames
        }
    }

    /// The bus the track plays on (fixed when it is loaded).
    public var bus: Bus { stream.bus }

    /// The emitter the track follows (``follow(_:)``), or nil for a head-relative track.
    public var emitter: Emitter? { system.read(stream) { $0.emitter } }

    /// Makes the track follow `emitter`: its source is placed where the emitter is, with the
    /// emitter's distance attenuation, cone and Doppler, as a voice on that emitter is, and moves
    /// with it at every ``AudioEngine/update(deltaTime:)``; nil returns it to head-relative
    /// playback (``pan`` applies again). If the emitter is removed later the track plays on where
    /// the emitter last was. The emitter's environment (occlusion, obstruction, reverb-zone sends)
    /// does not reach the track: music sources have no sends.
    ///
    /// Only a **mono** track can follow an emitter: OpenAL does not place stereo sources in 3D,
    /// so a stereo track throws ``EarshotError/invalidArgument(_:)`` (encode the line or bed as a
    /// mono file). Throws ``EarshotError/wrongEngine`` for another engine's emitter,
    /// ``EarshotError/invalidArgument(_:)`` for a removed one and
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// let radio = try engine.makeEmitter(SpatialProperties(position: Vector3(2, 0, -1)))
    /// let news = try engine.loadMusic(path: "Assets/Sounds/hum-loop.wav", bus: .voice)
    /// try news.follow(radio)
    /// try news.play()
    /// radio.position = Vector3(3, 0, -1)   // the track moves with it at the next update
    /// ```
    public func follow(_ emitter: Emitter?) throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        if let emitter {
            guard emitter.link === engine.link else { throw .wrongEngine }
            guard engine.properties(of: emitter) != nil else {
                throw .invalidArgument("the emitter was removed")
            }
            guard channels == 1 else {
                throw .invalidArgument("\(path) is stereo: OpenAL does not place stereo in 3D, so only a mono track can follow an emitter (encode it as mono)")
            }
        }
        system.applySettings(stream, host: engine) { $0.emitter = emitter }
    }

    // MARK: Transport

    /// Claims a music source and queues the first half second without playing, so that
    /// ``play()`` starts at once. Optional.
    public func prepareToPlay() throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        try system.prepare(stream, host: engine)
    }

    /// Starts playing, or resumes after ``pause()`` or ``stop()`` at ``currentTime``.
    ///
    /// Throws ``EarshotError/musicSourcesBusy(_:)`` when every music source is in use and
    /// ``EarshotError/engineShutDown`` after the engine shut down.
    public func play() throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        try system.play(stream, host: engine)
    }

    /// Starts this track when `previous` ends (finishes or fails; not when it is stopped),
    /// gaplessly: as soon as `previous` has queued its last frame, this track is queued behind a
    /// silent lead-in exactly as long as what `previous` has left (sample-exact on a loopback
    /// engine, within one device update live). Plays now when `previous` is not playing.
    ///
    /// Throws ``EarshotError/wrongEngine`` when `previous` belongs to another engine.
    public func play(after previous: MusicTrack) throws(EarshotError) {
        guard previous.system === system else { throw .wrongEngine }
        guard let engine else { throw .engineShutDown }
        try system.play(stream, after: previous.stream, host: engine)
    }

    /// Pauses, keeping the position and the queued audio. ``play()`` resumes. Cancels a pending
    /// ``play(after:)``.
    public func pause() { if let engine { system.pause(stream, host: engine) } }

    /// Stops and releases the source and its buffers at once; ``currentTime`` stays, so ``play()``
    /// resumes there. Emits a `.stopped` event if a play session was under way. Note: OpenAL Soft
    /// 1.19.1 cuts without a ramp; fade out first (``fade(to:duration:curve:stopsAtEnd:)`` with
    /// `stopsAtEnd`) for a click-free stop.
    public func stop() { if let engine { system.stop(stream, host: engine) } }

    /// Whether the track is playing (not paused, stopped, finished or waiting to play after another).
    public var isPlaying: Bool { engine.map { system.isPlaying(stream, host: $0) } ?? false }

    /// Whether the track waits for another to end (``play(after:)``).
    public var isWaitingToPlay: Bool { system.isWaiting(stream) }

    /// The play position in seconds: the frame OpenAL is playing now, within the file (it goes
    /// back at each loop seam). Setting it seeks sample-accurately (PCM: `sf_seek`; Vorbis:
    /// `ov_pcm_seek`), dropping the queued audio and refilling at once; values outside
    /// `0…duration` are clamped, NaN is ignored. After a natural end it reads 0.
    public var currentTime: Double {
        get { Double(currentFrame) / Double(sampleRate) }
        set {
            guard newValue.isFinite else { return }
            // Clamped as a Double first: a huge time must not trap in the conversion to Int.
            currentFrame = Int(min(max(0, (newValue * Double(sampleRate)).rounded()), Double(frameCount)))
        }
    }

    /// The play position in frames of the file (see ``currentTime``).
    public var currentFrame: Int {
        get { engine.map { system.currentFrame(stream, host: $0) } ?? 0 }
        set { if let engine { system.seek(stream, toFrame: newValue, host: engine) } }
    }

    // MARK: Settings

    /// The loudest ``volume``: +12 dB (a factor of 3.98), for songs mastered quietly.
    public static let maxVolume: Float = 3.981_072

    /// Linear volume 0…``maxVolume`` (clamped; NaN ignored; 1 is as recorded). Setting it cancels
    /// a fade in progress.
    public var volume: Float {
        get { system.read(stream) { $0.volume } }
        set {
            guard newValue.isFinite else { return }
            guard let engine else { return }
            system.applySettings(stream, host: engine) { $0.volume = min(Self.maxVolume, max(0, newValue)); $0.fade = nil }
        }
    }

    /// Stereo position −1 (left) … +1 (right), clamped; NaN ignored.
    ///
    /// A mono track is placed by direction like a non-positional voice (constant power), and a
    /// change is heard at once. A stereo track plays its channels straight to the outputs and
    /// pans by balance (the far channel is attenuated); a change applies to audio queued after
    /// it, so it is heard within the half second already queued.
    public var pan: Float {
        get { system.read(stream) { $0.pan } }
        set {
            guard newValue.isFinite else { return }
            guard let engine else { return }
            system.applySettings(stream, host: engine) { $0.pan = min(1, max(-1, newValue)) }
        }
    }

    /// What ``rate`` does to the pitch.
    public enum RateMode: String, Sendable, Equatable, CaseIterable {
        /// The default: the rate changes the speed and the pitch stays (AVAudioPlayer's
        /// `enableRate`). The track's audio is time-stretched (WSOLA, see <doc:MusicTracks>)
        /// before it is queued; at rate 1 nothing is stretched.
        case keepsPitch
        /// The rate is OpenAL's pitch: speed and pitch move together, as on a tape.
        case tape
    }

    /// Playback rate 0.5…2 (clamped; NaN ignored): 2 plays twice as fast, 0.5 half as fast.
    ///
    /// In ``RateMode/keepsPitch`` mode (the default) the pitch stays where it is; a change
    /// applies to the audio decoded after it and glides there over about 0.1–0.3 s, so it is
    /// heard after the half second already queued, with no click. In ``RateMode/tape`` mode the
    /// pitch follows the rate and a change is heard at once. ``currentTime`` counts the file's
    /// seconds either way; a device loss resumes at the same rate and position.
    public var rate: Float {
        get { system.read(stream) { $0.rate } }
        set {
            guard newValue.isFinite else { return }
            guard let engine else { return }
            system.applySettings(stream, host: engine) { $0.rate = min(2, max(0.5, newValue)) }
        }
    }

    /// Whether ``rate`` keeps the pitch (``RateMode/keepsPitch``, the default) or moves it like
    /// a tape (``RateMode/tape``). Set it before playing: a change while the track holds a
    /// source re-queues from the current position (a seek), so the switch is heard at once.
    public var rateMode: RateMode {
        get { system.read(stream) { $0.rateMode } }
        set {
            guard let engine else { return }
            guard system.read(stream, { $0.rateMode }) != newValue else { return }
            let position = currentFrame
            let holdsSource = system.read(stream) { $0.source != nil }
            system.applySettings(stream, host: engine) { $0.rateMode = newValue }
            if holdsSource { system.seek(stream, toFrame: position, host: engine) }
        }
    }

    /// 0 plays once, n > 0 plays n + 1 times, −1 (any negative value) loops until stopped.
    /// Changing it while playing sets the passes left from now on.
    public var numberOfLoops: Int {
        get { system.read(stream) { $0.numberOfLoops } }
        set {
            let n = max(-1, newValue)
            guard let engine else { return }
            system.applySettings(stream, host: engine) { s in
                s.numberOfLoops = n
                if s.sessionActive || s.source != nil {
                    s.loopsLeft = n
                    if s.exhausted, s.failure == nil, n != 0 { s.exhausted = false }
                }
            }
        }
    }

    /// The frames the loops repeat (`start..<end`), or nil for the whole file.
    public var loopRegion: Range<Int>? { system.read(stream) { $0.loopRegion } }

    /// Sets the loop region. Throws ``EarshotError/invalidArgument(_:)`` for an empty region or one
    /// outside `0…frameCount`.
    public func setLoopRegion(_ region: Range<Int>?) throws(EarshotError) {
        if let r = region, r.isEmpty || r.lowerBound < 0 || r.upperBound > frameCount {
            throw .invalidArgument("loop region \(r) is empty or outside 0..<\(frameCount)")
        }
        guard let engine else { return }
        system.applySettings(stream, host: engine) { $0.loopRegion = region }
    }

    /// Sets the loop region in seconds (rounded to frames).
    public func setLoopRegion(seconds: ClosedRange<Double>) throws(EarshotError) {
        guard seconds.lowerBound.isFinite, seconds.upperBound.isFinite else {
            throw .invalidArgument("loop region \(seconds) is not finite")
        }
        // Clamped just outside 0…frameCount as Doubles (a huge value must not trap in the
        // conversion): anything outside is then refused by the frame check with its range.
        func frame(_ t: Double) -> Int { Int(min(max(-1, (t * Double(sampleRate)).rounded()), Double(frameCount) + 1)) }
        guard seconds.lowerBound * Double(sampleRate) < Double(frameCount) + 1, seconds.upperBound * Double(sampleRate) > -1 else {
            throw .invalidArgument("loop region \(seconds) s is outside 0…\(duration) s")
        }
        let r = frame(seconds.lowerBound)..<max(frame(seconds.lowerBound), frame(seconds.upperBound))
        try setLoopRegion(r)
    }

    // MARK: Fades

    /// Ramps ``volume`` to `target` (0…``maxVolume``) over `duration` seconds of playback time: the music
    /// clock (rendered time on a loopback engine, wall-clock time live) while the track plays,
    /// frozen while it or the music bus is paused (it resumes at the volume it had). The gain moves at every refill: per
    /// render on a loopback engine (render in game-frame-sized blocks for a smooth ramp), every
    /// 10 ms live. With `stopsAtEnd` the track stops (`.stopped`) when the fade completes.
    public func fade(to target: Float, duration: Double, curve: FadeCurve = .linear, stopsAtEnd: Bool = false) {
        guard target.isFinite, duration.isFinite else { return }
        guard let engine else { return }
        system.fade(stream, to: min(Self.maxVolume, max(0, target)), duration: duration, curve: curve, stopsAtEnd: stopsAtEnd,
                    restoreVolume: nil, host: engine)
    }

    /// Fades this track out and `other` in over `duration` seconds, equal-power by default. This
    /// track stops at the end (its volume is restored for its next play); `other` starts if it is
    /// not playing and rises to its own volume. Like every fade it runs in playback time: pausing
    /// the music bus holds both tracks where they are.
    ///
    /// Throws ``EarshotError/wrongEngine`` when `other` belongs to another engine (even one shut
    /// down), and changes nothing then.
    public func crossfade(to other: MusicTrack, duration: Double, curve: FadeCurve = .equalPower) throws(EarshotError) {
        guard other.system === system else { throw .wrongEngine }
        guard other !== self else { return }
        guard duration.isFinite, duration >= 0 else { throw .invalidArgument("crossfade duration \(duration)") }
        if !other.isPlaying {
            let target = other.system.read(other.stream) { $0.fade?.to ?? $0.volume }
            other.volume = 0
            try other.play()
            other.fade(to: target, duration: duration, curve: curve)
        }
        let restore = system.read(stream) { $0.fade?.to ?? $0.volume }
        guard let engine else { return }
        system.fade(stream, to: 0, duration: duration, curve: curve, stopsAtEnd: true, restoreVolume: restore, host: engine)
    }

    // MARK: Events

    /// One event per play session's end (finished, stopped, failed), in order. Each read is a new
    /// stream of its own (the track's ``AudioStream/events`` broadcast): every reader sees every
    /// end; it finishes when the engine shuts down or the track is released.
    public var events: AsyncStream<Event> { stream.events }

    /// Called once per play session's end, on a Dispatch queue (never on the streaming thread).
    public var onEnd: (@Sendable (Event) -> Void)? {
        get { system.read(stream) { $0.onEnd } }
        set { system.mutate(stream) { $0.onEnd = newValue } }
    }

    /// The error that is ending (or ended) the track's current or last play session — corrupt
    /// data, a chained Ogg stream changing format — or nil. Read synchronously (``onEnd`` comes
    /// later, on a queue), so an offline render can stop at the frame it happens; cleared when
    /// the track plays again.
    ///
    /// ```swift
    /// let track = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// try track.play()
    /// _ = try engine.render(frames: 4_800)
    /// if let error = track.failure { print("the track failed: \(error)") }
    /// ```
    public var failure: EarshotError? { system.read(stream) { $0.failure } }

    // MARK: Metering

    /// Enables level metering (AVAudioPlayer's `isMeteringEnabled`): the track then keeps the
    /// samples of its queued buffers so that ``updateMeters()`` can measure what is playing.
    public var isMeteringEnabled: Bool {
        get { system.read(stream) { $0.meteringEnabled } }
        set { system.mutate(stream) { $0.meteringEnabled = newValue } }
    }

    /// Measures the ~50 ms of the file's samples that end at the frame playing now (before
    /// volume, pan and bus gain), for ``averagePower(forChannel:)`` and ``peakPower(forChannel:)``.
    public func updateMeters() { if let engine { system.updateMeters(stream, host: engine) } }

    /// The last ``updateMeters()`` reading.
    public var meters: MeterReading { system.read(stream) { $0.meters } }

    /// RMS level of `channel` in dBFS at the last ``updateMeters()`` (−160 for silence).
    public func averagePower(forChannel channel: Int) -> Float {
        let m = meters
        return m.averagePower.indices.contains(channel) ? m.averagePower[channel] : MeterReading.silence
    }

    /// Peak level of `channel` in dBFS at the last ``updateMeters()`` (−160 for silence).
    public func peakPower(forChannel channel: Int) -> Float {
        let m = meters
        return m.peakPower.indices.contains(channel) ? m.peakPower[channel] : MeterReading.silence
    }

    /// Times this track's source ran dry while data remained (and was restarted).
    public var underrunCount: Int { system.read(stream) { $0.underruns } }
}
