/// How a voice plays: gain, pitch, looping, priority, bus, timing, and where it is heard from.
///
/// These are a clip's complete options; a ``Sound``'s play takes ``SoundPlayOptions``, which
/// override its definition (why two types: the article "Sounds and the mix").
///
/// Placement is one of three, stated once: a ``Placement/pan(_:)`` for a non-positional voice
/// (−1 hard left, 0 centre, +1 hard right, constant power), a position with full
/// ``SpatialProperties``, or an ``Emitter`` the voice follows. Each has its initializer
/// (`position:`, `pan:`, `emitter:`), and `placement:` takes any; no initializer takes two, so
/// a position cannot be silently overridden by an emitter. A stereo clip played without a position
/// keeps its image (left and right as recorded; `pan` is its balance); positioned, it folds to mono
/// (the mean of its channels) unless it has a ``spread``; ``spatialMode`` forces either (see
/// <doc:StereoAndSpread>).
///
/// ```swift
/// let step = try engine.loadClip(path: "Assets/Sounds/step.wav")
/// let click = try engine.loadClip(path: "Assets/Sounds/beep.wav", forPositioning: false)
/// let hum = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
/// let car = try engine.makeEmitter(SpatialProperties(position: Vector3(5, 0, 0)))
/// _ = try engine.play(step, options: .init(gain: 0.8, position: Vector3(2, 0, -1)))
/// _ = try engine.play(click, options: .init(pan: -1, bus: .ui))        // left ear only
/// _ = try engine.play(hum, options: .init(loop: true, priority: 10, emitter: car))
/// ```
public struct PlayOptions: Sendable, Equatable {
    /// Where a voice is heard from.
    public enum Placement: Sendable, Equatable {
        /// Non-positional, at a stereo pan −1…+1.
        case pan(Float)
        /// Positioned in 3D with its own spatial properties.
        case spatial(SpatialProperties)
        /// Following an emitter (its position, velocity, cone and distance settings).
        case emitter(Emitter)
    }

    /// Linear gain, 0 or more (1 = as recorded). The voice starts at this times its clip handle's
    /// own gain (``Clip/gain``, 1 unless set with ``Clip/withGain(_:)``).
    public var gain: Float
    /// Playback-rate factor, above 0 (2 = an octave up, twice as fast).
    public var pitch: Float
    /// Loop until stopped.
    public var loop: Bool
    /// 0 is the most important, 255 the least (default 128).
    public var priority: UInt8
    /// The bus whose gain, mute and pause apply (default ``Bus/sfx``).
    public var bus: Bus
    /// Seconds to wait before the voice starts, in playback time: the wait stands still while the
    /// voice or its bus is paused (see <doc:BusesAndPause>).
    ///
    /// On a loopback engine the voice starts on the exact frame: the frame at which the call was
    /// made (the frames rendered so far) plus `delay` × the sample rate, rounded to the nearest
    /// frame, whatever the size of the renders — ``AudioEngine/render(into:)`` ends a mix call
    /// where a start is due. With a source free it starts from its first frame there; when every
    /// source is taken it waits, virtual, for the next ``AudioEngine/update(deltaTime:)`` to rank it.
    /// On a live device that reports its clock, it counts from the device's mixing clock at the
    /// call: the voice is heard `delay` after a voice played at once would be, within a fraction
    /// of a millisecond — started in the update before its time with a lead-in of silence (see
    /// <doc:TimeAndScheduling>). A voice that begins at an ``offset`` starts at the first update
    /// at or after its time.
    public var delay: Double
    /// When the voice starts, as an ``AudioEngine/audioTime`` (seconds of output heard); nil (the
    /// default) for now. ``delay`` counts from it. A time already past starts the voice at once,
    /// from its first frame. On a loopback engine the voice starts on the exact frame
    /// (`startTime` × the sample rate, rounded), whatever the size of the renders. On a live
    /// device that reports its clock, its first frame is heard when ``AudioEngine/audioTime``
    /// reads `startTime` (measured within 0.35 ms on PulseAudio), if that is later than the
    /// output latency from now (see <doc:TimeAndScheduling>; ``delay`` has the same limits).
    ///
    /// ```swift
    /// var beat = PlayOptions()
    /// beat.startTime = engine.audioTime + 0.5   // half a second of output from now
    /// ```
    public var startTime: Double?
    /// Seconds over which the voice fades in from silence (0 = starts at full gain), in playback
    /// time: a pause freezes the fade, which resumes at the level it had.
    public var fadeIn: Double
    /// Where the voice is heard from.
    public var placement: Placement
    /// Occlusion, obstruction, air absorption and reverb send level of a positioned voice at its
    /// position (a voice on an emitter uses the emitter's; see ``EnvironmentProperties``).
    public var environment: EnvironmentProperties = .open
    /// Seconds into the clip where the voice begins (default 0), less than the clip's duration.
    /// A voice that begins part-way fades in over the engine's `fadeTime`, so it cannot click.
    ///
    /// ```swift
    /// var options = PlayOptions(pan: 0)
    /// options.offset = 1.5      // begin 1.5 s in
    /// options.loopCount = 2     // then play the whole clip twice more: three passes in all
    /// ```
    public var offset: Double = 0
    /// How many more times the clip plays after the first pass, gaplessly (0…``maxLoopCount``;
    /// default 0: once), as `AVAudioPlayer.numberOfLoops` counts: 2 plays it three times and then
    /// the voice ends as ``VoiceEndReason/finished``. For a voice that loops until stopped, set
    /// ``loop`` instead (not both). An ``offset`` applies to the first pass only.
    public var loopCount: Int = 0

    /// Whether the voice is a point or keeps a stereo clip's image (default ``SpatialMode/auto``:
    /// a point when it has a position or an emitter). ``SpatialMode/twoD`` ignores the
    /// placement's position or emitter (the voice plays at its pan, or centred).
    public var spatialMode: SpatialMode = .auto
    /// Degrees (0…360) between the two channels of a positioned stereo clip, placed around its
    /// position (FMOD's spread): 0 is a point, 180 puts them to either side of it, 360 all
    /// around. Nil (the default): the clip folds to mono at its position. No effect on a mono
    /// clip or a play without a position. See <doc:StereoAndSpread> for what distance and
    /// Doppler do to such a voice.
    public var spread: Float?

    /// The largest ``loopCount`` (a longer repetition is a ``loop`` and a ``Voice/stop(fade:)``).
    public static let maxLoopCount = 1000

    /// The distance settings of a sound's play on an emitter (the sound's, with the play's
    /// explicit fields marked): the emitter's explicit settings override them
    /// (``SpatialProperties/explicitDistance``). Nil for a clip's play, which takes the emitter's.
    var soundDistance: SpatialProperties?

    /// Options with a ``placement`` (non-positional and centred by default).
    ///
    /// Placement is stated once, so it cannot contradict itself: pass `placement:` here, or use
    /// the initializer that takes exactly one of `position:`, `pan:` or `emitter:`.
    public init(gain: Float = 1, pitch: Float = 1, loop: Bool = false, priority: UInt8 = 128,
                bus: Bus = .sfx, delay: Double = 0, fadeIn: Double = 0, placement: Placement = .pan(0)) {
        self.gain = gain
        self.pitch = pitch
        self.loop = loop
        self.priority = priority
        self.bus = bus
        self.delay = delay
        self.fadeIn = fadeIn
        self.placement = placement
    }

    /// Options for a voice positioned in 3D at `position` (moving at `velocity`, for Doppler).
    public init(gain: Float = 1, pitch: Float = 1, loop: Bool = false, priority: UInt8 = 128,
                position: Vector3, velocity: Vector3 = .zero, bus: Bus = .sfx, delay: Double = 0, fadeIn: Double = 0) {
        self.init(gain: gain, pitch: pitch, loop: loop, priority: priority, bus: bus, delay: delay, fadeIn: fadeIn,
                  placement: .spatial(SpatialProperties(position: position, velocity: velocity)))
    }

    /// Options for a non-positional voice at a stereo `pan` (−1 hard left … +1 hard right).
    public init(gain: Float = 1, pitch: Float = 1, loop: Bool = false, priority: UInt8 = 128,
                pan: Float, bus: Bus = .sfx, delay: Double = 0, fadeIn: Double = 0) {
        self.init(gain: gain, pitch: pitch, loop: loop, priority: priority, bus: bus, delay: delay, fadeIn: fadeIn,
                  placement: .pan(pan))
    }

    /// Options for a voice that follows `emitter`.
    public init(gain: Float = 1, pitch: Float = 1, loop: Bool = false, priority: UInt8 = 128,
                emitter: Emitter, bus: Bus = .sfx, delay: Double = 0, fadeIn: Double = 0) {
        self.init(gain: gain, pitch: pitch, loop: loop, priority: priority, bus: bus, delay: delay, fadeIn: fadeIn,
                  placement: .emitter(emitter))
    }

    /// The head-relative position that places a non-positional voice at `pan` with constant power:
    /// on the unit circle in front of the listener, from hard left (−1) to hard right (+1).
    static func panPosition(_ pan: Float) -> Vector3 {
        let angle = pan * .pi / 2
        return Vector3(sinf(angle), 0, -cosf(angle))
    }
}

#if canImport(Glibc)
import Glibc
#endif
