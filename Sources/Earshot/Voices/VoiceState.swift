import COpenAL

/// One slot of the voice pool: everything the engine knows about a voice, real or virtual.
struct VoiceState {
    enum Phase: UInt8 {
        /// The slot holds no voice.
        case free
        /// Logically playing without a source: time runs on the engine clock.
        case virtual
        /// Playing on an OpenAL source.
        case real
    }

    /// What happens when a fade reaches zero.
    enum FadeAction: UInt8 {
        case none
        /// Release the source and go on as a virtual voice (stolen or paused).
        case virtualize
        /// End the voice.
        case stop
    }

    enum Placement: UInt8 { case pan, spatial, emitter }

    // The first 64 bytes hold everything a steady frame reads or writes for a voice (`schedule`
    // and `service`): with the table aligned to 64 bytes, that is one cache line per voice. Keep
    // it that way (`SlotTableTests.testHotFieldsOfAVoiceFitOneCacheLine` checks it); colder fields follow.
    var phase: Phase = .free
    /// Why the voice may not hold a source now, besides its bus: bit 0 paused (its playhead
    /// stands still), bit 1 held back by its sound's instance limit (`virtual` mode: time runs).
    var holds: UInt8 = 0
    var desired = false
    var loop = false
    var priority: UInt8 = 128
    var placement: Placement = .pan
    var fadeAction: FadeAction = .none
    /// The source has not been mixed once since it started at gain 0 (OpenAL does not ramp the
    /// first mix of a source, so a fade-in can only begin after it).
    var awaitingFirstMix = false
    var dirtyGain = false
    var dirtySpatial = false
    var dirtyPosition = false
    var dirtyPitch = false
    var source: ALuint = 0
    var emitterVersion: UInt32 = 0
    var emitterFullVersion: UInt32 = 0
    var audibility: Float = 1
    var gain: Float = 1
    // Fades: `fade` is the envelope (0…1) multiplied into the gain.
    var fade: Float = 1
    var fadeTarget: Float = 1
    private var emitterIndex32: Int32 = -1
    private var busIndex32: Int32 = 0
    var sequence: UInt64 = 0
    /// Engine time at which the voice's first frame plays (later than the play call with a delay).
    var startAt: Double = 0
    // ---- end of the hot line ----
    var generation: UInt32 = 0
    var pitch: Float = 1
    /// Envelope units per second (always > 0 while fading).
    var fadeRate: Float = 0
    var pan: Float = 0
    /// Engine time at which the envelope reached zero with an action pending.
    var silentSince: Double = -1
    /// Position in clip frames while virtual (and at the moment it went virtual).
    var playhead: Double = 0
    /// Engine time up to which `playhead` is accounted for.
    var playheadClock: Double = 0
    var clipRate: Double = 48_000
    var clipFrames: Int = 0
    // The clip.
    var clipID: UInt32 = 0
    var buffer: ALuint = 0
    /// Own spatial properties of a `.spatial` voice. An `.emitter` voice reads its emitter's,
    /// and, with `ownDistance`, keeps here the distance settings of its sound and its play.
    var spatial = SpatialProperties()
    /// While real: the engine time the source started (or last re-based) and its playhead then,
    /// to estimate where it is when the device is lost (a lost source's offset reads 0).
    var realClock: Double = 0
    var realOffset: Double = 0
    /// Never heard yet: may start from frame 0 if it gets a source soon enough.
    var fresh = true
    /// An `.emitter` voice with distance settings of its own in `spatial` (a sound's): the
    /// emitter's explicit ones override them (``SpatialProperties/explicitDistance``).
    var ownDistance = false
    /// How a stereo clip's voice is heard (``ImageFlags``; 0 for a mono clip, which the flags
    /// never concern): read only when its placement is sent (VoicePool+Image.swift). In what
    /// was padding; its spread is the pool's `voiceSpread` column.
    var image: UInt8 = 0
    private var liveIndex32: Int32 = -1
    private var realIndex32: Int32 = -1
    /// The voice's own envelope (``PlayOptions/fadeIn``, ``Voice/stop(fade:)``), multiplied into
    /// the gain with `fade` (the pool's steal/resume envelope). It runs in *playback* time: only
    /// while the voice plays, frozen while it or its bus is paused, so a pause in the middle of a
    /// fade resumes at the level it had and finishes over the time that was left.
    var ownFade: Float = 1
    var ownTarget: Float = 1
    /// Own-envelope units per second (> 0 while it moves).
    var ownRate: Float = 0
    /// Passes through the clip of a voice that does not loop (``PlayOptions/loopCount`` + 1);
    /// more than one are queued on the source as that many copies of the buffer.
    var passes: Int32 = 1
    /// The sound the voice was played from (a `SoundTable.Key`), 0 for a clip played directly.
    var soundKey: UInt32 = 0
    /// Where the voice begins in its clip, in frames (``PlayOptions/offset``).
    var startFrame: Double = 0
    /// The voice ends (`stopReason`) when its own envelope reaches zero.
    var ownStops = false
    /// How the voice ends when its stop fade completes: stopped, or stolen by its sound's limit.
    var stopReason: VoiceEndReason = .stopped
    /// Its source holds a queue of `passes` buffers (cleared when the source is released).
    var queued = false
    /// A task awaits its end (``Voice/finished``): `end` files it for the waiters.
    var awaited = false
    /// The part of the distance gain OpenAL does not apply (a curve, a model other than the
    /// engine's, `beyondMax: silent`'s fade), multiplied into the source's gain; 1 otherwise.
    var distanceGain: Float = 1
    // These fields fill what would be padding: the stride stays 256 bytes, a multiple of the
    // cache line (`SlotTableTests` checks it).

    /// The emitter a `.emitter` voice follows (index into the pool's emitters), or -1.
    var emitterIndex: Int {
        @inline(__always) get { Int(emitterIndex32) }
        @inline(__always) set { emitterIndex32 = Int32(newValue) }
    }
    /// The slot's position in the pool's `live` list, or -1.
    var liveIndex: Int {
        @inline(__always) get { Int(liveIndex32) }
        @inline(__always) set { liveIndex32 = Int32(newValue) }
    }
    /// The slot's position in the pool's `real` list, or -1.
    var realIndex: Int {
        @inline(__always) get { Int(realIndex32) }
        @inline(__always) set { realIndex32 = Int32(newValue) }
    }
    /// The voice's bus (index into the engine's buses).
    var busIndex: Int {
        @inline(__always) get { Int(busIndex32) }
        @inline(__always) set { busIndex32 = Int32(newValue) }
    }

    /// Byte offset where the hot line ends (for the layout test).
    static var hotLineEnd: Int { MemoryLayout<VoiceState>.offset(of: \VoiceState.startAt).map { $0 + 8 } ?? .max }

    /// Paused by the game (the voice itself): its playhead stands still.
    var paused: Bool {
        @inline(__always) get { holds & 1 != 0 }
        @inline(__always) set { holds = newValue ? holds | 1 : holds & ~1 }
    }
    /// Held virtual by its sound's instance limit: time runs, no source.
    var limitHeld: Bool {
        @inline(__always) get { holds & 2 != 0 }
        @inline(__always) set { holds = newValue ? holds | 2 : holds & ~2 }
    }
    /// Frames the voice plays in all when it does not loop (its passes through the clip).
    var totalFrames: Double { Double(clipFrames) * Double(passes) }

    /// The bits of ``image``.
    enum ImageFlags {
        /// The clip is stereo.
        static let stereo: UInt8 = 1
        /// ``SpatialMode/threeD``: folded to a point even without a position.
        static let point: UInt8 = 2
        /// Positioned with a spread: its two channels placed around its position.
        static let spread: UInt8 = 4
        /// Playing as a channel pair: the left channel on its source, the right on a second one
        /// (VoicePool+Balance.swift). Set while it holds both.
        static let paired: UInt8 = 8
    }

    var isFading: Bool { fade != fadeTarget }
    /// The voice's own envelope is moving (fade-in or stop fade).
    var isOwnFading: Bool { ownFade != ownTarget }

    /// Its source was taken (a completed steal or pause fade, a lost device) with its playhead at
    /// clip frame `playhead` at engine time `now`: it goes on virtual, silent, and fades in when
    /// it wins a source again.
    mutating func wentVirtual(at playhead: Double, now: Double) {
        self.playhead = playhead
        playheadClock = now
        fade = 0
        fadeTarget = 0
        fadeAction = .none
        silentSince = -1
    }
}

/// Why a voice ended.
public enum VoiceEndReason: String, Sendable, Equatable {
    /// A one-shot reached its end (heard or virtual).
    case finished
    /// ``Voice/stop(fade:)``, a bus stop, an unloaded clip or a removed emitter ended it.
    case stopped
    /// The virtual-voice limit was reached and this voice had the lowest standing.
    case evicted
    /// Its sound's instance limit (``SoundDefinition/StealMode/oldest`` or
    /// ``SoundDefinition/StealMode/quietest``) stopped it to make room for a new play.
    case stolen
    /// The play never started: the pool was full and the request had the lowest standing, or
    /// its sound's limit refuses plays past it (``SoundDefinition/StealMode/refuse``). The event's
    /// voice is a refused handle (``VoiceStatus/refused``).
    case refused
    /// The play never started: its sound started less than ``SoundDefinition/cooldown`` ago.
    case cooldown
    /// The engine shut down (or was released) while it played: what ``Voice/finished`` returns
    /// then. ``AudioEngine/voiceEvents`` never carries it (its streams finish at shutdown).
    case engineShutDown
}

/// A voice's state, as the pool sees it.
public enum VoiceStatus: String, Sendable, Equatable {
    /// Playing on a real OpenAL source.
    case real
    /// Playing without a source (inaudible, outranked or paused): time runs on.
    case virtual
    /// Waiting for its start delay.
    case pending
    /// Ended, stopped (from the moment ``Voice/stop(fade:)`` returns, while its fade-out still
    /// sounds), or a stale handle.
    case stopped
    /// `play` refused it: the virtual-voice limit was reached and it had the lowest standing, or
    /// (a ``Sound``) its cooldown or instance limit said no.
    case refused
}

/// Something that happened to a voice, delivered on ``AudioEngine/voiceEvents``.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// Task {
///     for await event in engine.voiceEvents where event.reason == .finished {
///         print("\(event.sound?.definition.clips.count ?? 0)-clip sound ended")
///     }
/// }
/// ```
public struct VoiceEvent: Sendable, Equatable {
    /// The voice (a refused handle for ``VoiceEndReason/refused`` and ``VoiceEndReason/cooldown``).
    public var voice: Voice
    /// Why it ended.
    public var reason: VoiceEndReason
    /// The sound it was played from (nil for a clip played directly, or a sound removed since).
    public var sound: Sound?
    /// When it ended, as an ``AudioEngine/audioTime``: for a voice that played to its end, the
    /// time its last frame was heard (exact to the frame on a loopback engine, though the event
    /// comes with the update or render after it); for one stopped, stolen or evicted, when that
    /// took effect; for a refused play, the time of the call.
    public var audioTime: Double

    public init(voice: Voice, reason: VoiceEndReason, sound: Sound? = nil, audioTime: Double = 0) {
        self.voice = voice
        self.reason = reason
        self.sound = sound
        self.audioTime = audioTime
    }
}
