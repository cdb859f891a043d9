/// An ambisonic bed: a first-, second- or third-order recording of the whole sound field around
/// the listener (a forest, a city, rain on a roof) that turns as the player turns.
///
/// Open one with ``AudioEngine/openBed(path:options:)``. The order follows from the channel
/// count (4, 9, 16); the file is AmbiX (ACN/SN3D, the default) or FuMa, as declared in
/// ``Options/format``.
///
/// - **First order** plays on one source through OpenAL Soft's `AL_EXT_BFORMAT3D`, after the
///   AmbiX → FuMa conversion (W Y Z X → W X Y Z, W × 1/√2), turned by the source's
///   `AL_ORIENTATION` — with HRTF on. On a panned output (stereo, quad, 5.1 without HRTF)
///   OpenAL Soft 1.19.1 clamps each B-format channel's gain to each loudspeaker at 0…1
///   (`ComputePanningGainsMC`, panning.c): the negative lobes of X, Y and Z are lost and a wave
///   from the right comes out on the right only at the level of W (measured: Y alone plays on the
///   left only). There Earshot decodes first order itself onto 6 virtual loudspeakers
///   (``FirstOrderPath``).
/// - **Second and third order** are decoded by Earshot onto virtual loudspeakers
///   (``AmbisonicDecoderMatrix``: 12 for second order, 24 for third), each a mono OpenAL source
///   around the listener, so HRTF and stereo panning apply to them as to any source.
///
/// Both take their sources from ``AudioEngine/Configuration/bedSources`` (1 or 6, 12, 24 a bed),
/// never from the voices or music. A bed is **world-locked** by default (it turns against the
/// listener's turns: its north stays put) or **head-locked** (``Lock/head``); it has its own
/// ``yaw`` (and pitch and roll: which way is "north" in the recording). It plays on a bus
/// (``Bus/ambience`` by default), so the bus's gain, pause, snapshots and ducking apply; it
/// fades, pauses and cross-fades like a stream. ``Loading/streamed`` (the default) decodes from
/// disk as it plays; ``Loading/clip`` decodes the whole file into memory first (within
/// ``AudioEngine/Configuration/maxClipBytes``).
///
/// ```swift
/// let forest = try engine.openBed(path: "Assets/Ambience/forest-foa.ogg")
/// try forest.play()
/// forest.setYaw(90, ramp: 2)            // the recording's front turns to the left over 2 s
/// ```
public final class AmbisonicBed: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a let; the stream it plays on and its field
    // placement are touched only under the stream system's lock.

    /// Whether a bed turns with the world or with the head.
    public enum Lock: String, Sendable, Hashable, CaseIterable {
        /// It turns against the listener's turns (the default): a sound from the north stays north.
        case world
        /// It turns with the head: the recording's front stays ahead.
        case head
    }

    /// How a first-order bed is played.
    public enum FirstOrderPath: String, Sendable, Hashable, CaseIterable {
        /// `AL_EXT_BFORMAT3D` when the engine renders with HRTF (where 1.19.1 decodes B-format
        /// right), Earshot's decode on 6 virtual loudspeakers otherwise (the default).
        case automatic
        /// Always OpenAL's B-format source (one source; wrong on a panned output in 1.19.1).
        case bformat
        /// Always Earshot's decode on 6 virtual loudspeakers.
        case loudspeakers
    }

    /// How the file is read.
    public enum Loading: String, Sendable, Hashable, CaseIterable {
        /// Decoded from disk as it plays (a bed is long).
        case streamed
        /// Decoded whole into memory when opened.
        case clip
    }

    /// How a bed is played.
    public struct Options: Sendable, Hashable {
        /// Its channel order and weighting (``AmbisonicFormat/ambix`` by default).
        public var format: AmbisonicFormat
        /// The bus it plays on (``Bus/ambience`` by default).
        public var bus: Bus
        /// Its volume, 0…``MusicTrack/maxVolume``.
        public var volume: Float
        /// World- or head-locked.
        public var lock: Lock
        /// Degrees about the vertical: 0 puts the recording's front at the world's −z (its left
        /// at −x); positive turns its front to the left (counter-clockwise seen from above).
        public var yaw: Float
        /// Degrees about the recording's left–right axis: positive tilts its front up.
        public var pitch: Float
        /// Degrees about its front–back axis: positive tilts its up toward its left.
        public var roll: Float
        /// Further passes: −1 (the default) loops forever, 0 plays once.
        public var numberOfLoops: Int
        public var loading: Loading
        /// The decoder of second- and third-order beds (first order is OpenAL's).
        public var decoder: AmbisonicDecoderMatrix.Kind
        public var firstOrder: FirstOrderPath

        public init(format: AmbisonicFormat = .ambix, bus: Bus = .ambience, volume: Float = 1, lock: Lock = .world,
                    yaw: Float = 0, pitch: Float = 0, roll: Float = 0, numberOfLoops: Int = -1,
                    loading: Loading = .streamed, decoder: AmbisonicDecoderMatrix.Kind = .maxRE,
                    firstOrder: FirstOrderPath = .automatic) {
            self.firstOrder = firstOrder
            self.format = format
            self.bus = bus
            self.volume = volume
            self.lock = lock
            self.yaw = yaw
            self.pitch = pitch
            self.roll = roll
            self.numberOfLoops = numberOfLoops
            self.loading = loading
            self.decoder = decoder
        }
    }

    /// The stream it plays on (one B-format part, or one part per virtual loudspeaker).
    let stream: AudioStream
    let placement: SoundFieldPlacement
    /// The file: its path, rate, channels as stored (4, 9 or 16), length.
    public let file: StreamFileInfo
    /// 1, 2 or 3.
    public let order: Int
    public let format: AmbisonicFormat
    /// The sources it takes while playing: 1 (first order on OpenAL's B-format path), 6, 12 or 24.
    public var sourceCount: Int { stream.parts.count }
    /// Whether it plays through OpenAL's `AL_EXT_BFORMAT3D` (first order) rather than on
    /// Earshot's virtual loudspeakers.
    public var usesBFormat: Bool { placement.isBFormat }
    public let bus: Bus

    init(stream: AudioStream, placement: SoundFieldPlacement, file: StreamFileInfo, order: Int, format: AmbisonicFormat) {
        self.stream = stream
        self.placement = placement
        self.file = file
        self.order = order
        self.format = format
        self.bus = stream.bus
    }

    /// Starts, or resumes after ``pause()``; every loudspeaker on the same mixed frame. Throws
    /// ``EarshotError/bedSourcesBusy(_:needed:)`` when fewer than ``sourceCount`` bed sources
    /// are free (``AudioEngine/Configuration/bedSources``), taking none, and
    /// ``EarshotError/engineShutDown``.
    public func play() throws(EarshotError) {
        try checkSources()
        try stream.play()
    }

    private func checkSources() throws(EarshotError) {
        guard !isPlaying else { return }
        let system = stream.system
        // The group's start also rolls back a partial claim; this says how many it needed.
        let (free, idle) = system.withStreamLock { _ in (system.freeFieldSources.count, stream.parts.filter { $0.source == nil }.count) }
        guard free >= idle else { throw .bedSourcesBusy(system.fieldSourceCount, needed: sourceCount) }
    }

    /// Starts at audio time `time` (``AudioEngine/audioTime``).
    public func play(at time: Double) throws(EarshotError) {
        try checkSources()
        try stream.play(at: time)
    }

    /// Pauses, keeping the position (fades and yaw ramps hold).
    public func pause() { stream.pause() }

    /// Stops; ``play()`` goes on from where it stopped.
    public func stop() { stream.stop() }

    public var isPlaying: Bool { stream.isPlaying }

    /// The position heard, in seconds of the file.
    public var currentTime: Double { stream.currentTime }

    public func seek(to seconds: Double) { stream.seek(to: seconds) }

    /// Fades the volume to `target` over `duration` seconds of playback; `stopsAtEnd` stops the
    /// bed when the fade completes.
    public func fade(to target: Float, duration: Double, stopsAtEnd: Bool = false) {
        stream.fade(to: target, duration: duration, stopsAtEnd: stopsAtEnd)
    }

    /// Fades this bed out (it stops, its volume restored for its next play) and `other` in over
    /// `duration` seconds, equal-power: entering another room. `other` starts if it is not
    /// playing. Throws ``EarshotError/wrongEngine`` for another engine's bed.
    public func crossfade(to other: AmbisonicBed, duration: Double) throws(EarshotError) {
        guard other.stream.system === stream.system else { throw .wrongEngine }
        guard other !== self else { return }
        guard duration.isFinite, duration >= 0 else { throw .invalidArgument("crossfade duration \(duration)") }
        guard let engine = stream.engine else { throw .engineShutDown }
        let system = stream.system
        if !other.isPlaying {
            let target = system.read(other.stream.parts[0]) { $0.fade?.to ?? $0.volume }
            for p in other.stream.parts {
                system.fade(p, to: 0, duration: 0, curve: .linear, stopsAtEnd: false, restoreVolume: nil, host: engine)
            }
            try other.play()
            for p in other.stream.parts {
                system.fade(p, to: target, duration: duration, curve: .equalPower, stopsAtEnd: false, restoreVolume: nil, host: engine)
            }
        }
        let restore = system.read(stream.parts[0]) { $0.fade?.to ?? $0.volume }
        for p in stream.parts {
            system.fade(p, to: 0, duration: duration, curve: .equalPower, stopsAtEnd: true, restoreVolume: restore, host: engine)
        }
    }

    /// World- or head-locked; changing it takes effect at once.
    public var lock: Lock {
        get { stream.system.read(stream.parts[0]) { _ in placement.worldLocked } ? .world : .head }
        set { change { field, _ in field.worldLocked = newValue == .world } }
    }

    /// The yaw now (degrees; mid-ramp, where the ramp is).
    public var yaw: Float {
        guard let engine = stream.engine else { return 0 }
        return stream.system.withStreamLock { _ in placement.yaw.volume(at: stream.system.clock(engine)).0 }
    }

    /// Turns the bed to `degrees` of yaw over `ramp` seconds of playback (0: at once).
    public func setYaw(_ degrees: Float, ramp: Double = 0) {
        guard degrees.isFinite, ramp.isFinite else { return }
        change { field, now in field.rampYaw(to: degrees, seconds: ramp, now: now) }
    }

    /// Sets yaw, pitch and roll at once (degrees; see ``Options``).
    public func setOrientation(yaw: Float, pitch: Float, roll: Float) {
        guard yaw.isFinite, pitch.isFinite, roll.isFinite else { return }
        change { field, now in
            field.rampYaw(to: yaw, seconds: 0, now: now)
            field.pitch = pitch
            field.roll = roll
        }
    }

    private func change(_ body: (SoundFieldPlacement, Double) -> Void) {
        guard let engine = stream.engine else { return }
        stream.system.changeField(stream.parts, host: engine, body)
    }

    /// Each play session's end, as ``AudioStream/events``.
    public var events: AsyncStream<AudioStream.Event> { stream.events }
}
