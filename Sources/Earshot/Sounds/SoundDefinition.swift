/// What a ``Sound`` is: its clips and how one is picked, the variation of each play, how many may
/// sound at once, how often it may start, and the defaults of its voices.
///
/// A game plays *sounds*, not clips: "footstep on gravel" is six recordings picked at random, never
/// the same one twice in a row, a little pitch and gain variation each time, at most four at once,
/// never two within 30 ms. A definition says that once; ``AudioEngine/makeSound(_:)`` turns it into
/// a ``Sound`` the engine plays with ``AudioEngine/play(_:options:)-(Sound,_)``.
///
/// - **Selection** (``Selection``): `random` (by ``weights`` when given), `shuffle` (every clip
///   once, in a random order, before any repeats) or `sequence` (in order, round and round).
///   ``avoidRepeat`` keeps `random` and `shuffle` from picking one of the last N clips again.
/// - **Variation**: each play's pitch is moved by a uniform random ±``pitchVariation`` cents and
///   its gain by ±``gainVariation`` dB, from the engine's seeded generator
///   (``AudioEngine/Configuration/randomSeed``).
/// - **Limit** (``InstanceLimit``): at most `count` voices of the sound at once (and optionally per
///   emitter); a play past it steals the oldest or the quietest, is refused, or starts virtual.
/// - **Cooldown**: plays sooner than ``cooldown`` seconds after the last start are refused.
///
/// A refused play returns a voice whose ``Voice/status`` is ``VoiceStatus/refused`` (never nil;
/// a bank's `play(_:options:)` returns nil for it), is counted in ``EngineStats`` and is reported on
/// ``AudioEngine/voiceEvents`` (``VoiceEndReason/refused``, ``VoiceEndReason/cooldown``).
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let clips = try (1...3).map { _ in try engine.loadClip(path: "Assets/Sounds/step.wav") }
/// var steps = SoundDefinition(clips: clips, selection: .random, avoidRepeat: 1)
/// steps.pitchVariation = 50                                  // ± half a semitone
/// steps.gainVariation = 2                                    // ± 2 dB
/// steps.limit = .init(count: 4, steal: .oldest)
/// steps.cooldown = 0.03
/// steps.name = "footstep"                                   // what the monitor shows
/// let footstep = try engine.makeSound(steps)
/// _ = try engine.play(footstep, options: .init(position: Vector3(1, 0, -2)))
/// ```
public struct SoundDefinition: Sendable, Equatable {
    /// How the clip of each play is picked.
    public enum Selection: String, Sendable, Equatable, CaseIterable {
        /// At random, in proportion to ``SoundDefinition/weights`` (equal when none are given).
        case random
        /// Every clip once, in a random order, before any repeats; then a new order.
        case shuffle
        /// In the order given, starting again after the last.
        case sequence
    }

    /// What a play does when the sound already has ``InstanceLimit/count`` voices.
    public enum StealMode: String, Sendable, Equatable, CaseIterable {
        /// The oldest voice of the sound stops (with the engine's click-free fade) and the new one
        /// plays; the stopped one ends with ``VoiceEndReason/stolen``.
        case oldest
        /// The quietest voice of the sound (as heard now: gains, fades and distance) stops, as
        /// for `oldest`.
        case quietest
        /// The new play is refused: the voice `play` returns is ``VoiceStatus/refused`` and
        /// ``VoiceEndReason/refused`` is reported.
        case refuse
        /// The new voice plays virtually (its time runs, nothing is heard) until one of the
        /// audible voices of the sound ends; then the newest waiting one is heard.
        case virtual
    }

    /// At most `count` voices of the sound at once, and at most `perEmitter` on one emitter.
    public struct InstanceLimit: Sendable, Equatable {
        /// Voices of the sound that may sound at once, 1…``SoundDefinition/maxInstanceCount``.
        public var count: Int
        /// What a play past the limit does.
        public var steal: StealMode
        /// Voices of the sound one ``Emitter`` may play at once (nil: no such limit). A play on an
        /// emitter at its limit is handled by ``steal`` among that emitter's voices.
        public var perEmitter: Int?

        public init(count: Int, steal: StealMode = .oldest, perEmitter: Int? = nil) {
            self.count = count
            self.steal = steal
            self.perEmitter = perEmitter
        }
    }

    /// The sound's name, as the monitor (`earshot monitor`), its voice rows and its events show
    /// it — "car", "footstep" — instead of its clips' file names (nil: the first clip's file name,
    /// and how many more it picks from). A bank or scene names each of its sounds by its id. At
    /// most ``SoundDefinition/maxNameBytes`` bytes of UTF-8; it need not be unique.
    public var name: String?
    /// The clips, 1…``SoundDefinition/maxClips`` of them, all loaded in the engine that makes the sound.
    public var clips: [Clip]
    /// How each play's clip is picked (default ``Selection/random``).
    public var selection: Selection
    /// Relative weights of `random` selection, one per clip, each finite and ≥ 0 with a positive
    /// sum (nil: equal). Only for ``Selection/random``.
    public var weights: [Double]?
    /// Never pick one of the last N clips again (`random` and `shuffle`; 0 = no rule). Must be
    /// smaller than the number of clips.
    public var avoidRepeat: Int
    /// Each play's pitch moves by a uniform random amount within ± this many cents (0…2400).
    public var pitchVariation: Double
    /// Each play's gain moves by a uniform random amount within ± this many dB (0…48).
    public var gainVariation: Double
    /// Linear gain of every play before the variation (finite, ≥ 0; default 1).
    public var gain: Float
    /// Pitch of every play before the variation (finite, > 0; default 1).
    public var pitch: Float
    /// How many voices may sound at once (nil: no limit but the pool's).
    public var limit: InstanceLimit?
    /// Seconds that must pass between two starts of the sound (0…3600; 0 = none): sooner plays
    /// are refused. Engine time: frames rendered on a loopback engine.
    public var cooldown: Double
    /// The bus its voices play on unless a play says otherwise (default ``Bus/sfx``).
    public var bus: Bus
    /// Priority of its voices, 0 most important … 255 least (default 128).
    public var priority: UInt8
    /// Whether its voices loop until stopped (default false).
    public var loop: Bool
    /// The distance, cone and rolloff settings of a play at a position
    /// (``SoundPlayOptions/position``); the position itself comes from the play.
    public var spatial: SpatialProperties
    /// Whether its voices are points or keep a stereo clip's image (``SpatialMode``; default
    /// ``SpatialMode/auto``: points when played with a position or an emitter). A play's
    /// ``SoundPlayOptions/spatialMode`` overrides it.
    public var spatialMode: SpatialMode = .auto
    /// Degrees (0…360) between a stereo clip's channels when it plays at a position
    /// (``PlayOptions/spread``); nil: folded to a point. A play's ``SoundPlayOptions/spread``
    /// overrides it.
    public var spread: Float?
    /// Its curves and layers (``curves``, ``layers``; SoundLayer.swift), nil for a sound with
    /// neither: one optional, so that copying a plain sound's definition on every play costs
    /// what it did before parameters existed.
    var parameterPart: ParameterPart?

    /// The most clips one sound may hold.
    public static let maxClips = 256
    /// The longest ``name``, in bytes of UTF-8.
    public static let maxNameBytes = 256
    /// The largest ``InstanceLimit/count``.
    public static let maxInstanceCount = 1024
    /// The most sounds one engine holds at once (``AudioEngine/makeSound(_:)`` throws
    /// ``EarshotError/invalidArgument(_:)`` past it; ``AudioEngine/removeSound(_:)`` frees one).
    public static let maxSoundsPerEngine = 65_534

    public init(clips: [Clip], selection: Selection = .random, weights: [Double]? = nil, avoidRepeat: Int = 0,
                pitchVariation: Double = 0, gainVariation: Double = 0, gain: Float = 1, pitch: Float = 1,
                limit: InstanceLimit? = nil, cooldown: Double = 0, bus: Bus = .sfx, priority: UInt8 = 128,
                loop: Bool = false, spatial: SpatialProperties = SpatialProperties(), name: String? = nil) {
        self.name = name
        self.clips = clips
        self.selection = selection
        self.weights = weights
        self.avoidRepeat = avoidRepeat
        self.pitchVariation = pitchVariation
        self.gainVariation = gainVariation
        self.gain = gain
        self.pitch = pitch
        self.limit = limit
        self.cooldown = cooldown
        self.bus = bus
        self.priority = priority
        self.loop = loop
        self.spatial = spatial
    }

    /// Throws ``EarshotError/invalidArgument(_:)`` naming the first value out of its range.
    public func validate() throws(EarshotError) {
        if let name, name.utf8.count > Self.maxNameBytes {
            throw .invalidArgument("a sound's name of \(name.utf8.count) bytes (at most \(Self.maxNameBytes))")
        }
        guard !clips.isEmpty || isSwitch, clips.count <= Self.maxClips else {
            throw .invalidArgument("a sound needs 1…\(Self.maxClips) clips (got \(clips.count))")
        }
        if let weights {
            guard selection == .random else {
                throw .invalidArgument("weights apply to random selection only (this sound is \(selection.rawValue))")
            }
            guard weights.count == clips.count else {
                throw .invalidArgument("\(weights.count) weights for \(clips.count) clips (one weight per clip)")
            }
            guard weights.allSatisfy({ $0.isFinite && $0 >= 0 }), weights.reduce(0, +) > 0,
                  weights.reduce(0, +).isFinite else {
                throw .invalidArgument("weights must be finite, ≥ 0 and not all 0")
            }
        }
        guard avoidRepeat >= 0 else { throw .invalidArgument("avoidRepeat \(avoidRepeat) (must be ≥ 0)") }
        if avoidRepeat > 0 {
            guard selection != .sequence else {
                throw .invalidArgument("avoidRepeat applies to random and shuffle selection, not sequence")
            }
            guard avoidRepeat < clips.count else {
                throw .invalidArgument("avoidRepeat \(avoidRepeat) needs more than \(avoidRepeat) clips (the sound has \(clips.count))")
            }
            if let weights {
                let playable = weights.filter { $0 > 0 }.count
                guard avoidRepeat < playable else {
                    throw .invalidArgument("avoidRepeat \(avoidRepeat) needs more than \(avoidRepeat) clips of weight above 0 (the sound has \(playable))")
                }
            }
        }
        guard pitchVariation.isFinite, (0...2400).contains(pitchVariation) else {
            throw .invalidArgument("pitch variation \(pitchVariation) cents (must be 0…2400)")
        }
        guard gainVariation.isFinite, (0...48).contains(gainVariation) else {
            throw .invalidArgument("gain variation \(gainVariation) dB (must be 0…48)")
        }
        guard gain.isFinite, gain >= 0 else { throw .invalidArgument("gain \(gain) (must be finite and ≥ 0)") }
        guard pitch.isFinite, pitch > 0 else { throw .invalidArgument("pitch \(pitch) (must be finite and > 0)") }
        if let limit {
            guard (1...Self.maxInstanceCount).contains(limit.count) else {
                throw .invalidArgument("limit count \(limit.count) (must be 1…\(Self.maxInstanceCount))")
            }
            if let per = limit.perEmitter, !(1...limit.count).contains(per) {
                throw .invalidArgument("limit perEmitter \(per) (must be 1…\(limit.count), the sound's count)")
            }
        }
        guard cooldown.isFinite, (0...3600).contains(cooldown) else {
            throw .invalidArgument("cooldown \(cooldown) s (must be 0…3600)")
        }
        guard spatial.isValid else { throw .invalidArgument("spatial properties \(spatial)") }
        if let spread, !(spread.isFinite && (0...360).contains(spread)) {
            throw .invalidArgument("spread \(spread)° (must be 0…360)")
        }
        try validateParameters()
    }
}
