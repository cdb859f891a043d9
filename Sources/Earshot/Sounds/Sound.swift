/// A sound an engine can play: a ``SoundDefinition`` made with ``AudioEngine/makeSound(_:)``.
///
/// Like a ``Clip``, a sound is an asset; each play makes a ``Voice``. The engine keeps what the
/// sound's plays share — which clips played last, the voices it has now, when it last started —
/// so that its limits and variations hold across every play, from any thread.
///
/// The handle is generation-counted: after ``AudioEngine/removeSound(_:)`` it is stale, and
/// playing it throws ``EarshotError/soundRemoved``. It belongs to the engine that made it:
/// playing it on another engine throws ``EarshotError/wrongEngine``, and sounds of two engines
/// are never equal.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let beep = try engine.loadClip(path: "Assets/Sounds/beep.wav")
/// let blip = try engine.makeSound(SoundDefinition(clips: [beep], pitchVariation: 100))
/// let voice = try engine.play(blip)
/// print(voice.status)                     // real (refused when its limit, cooldown or the pool says no)
/// print(engine.instanceCount(of: blip))   // 1
/// ```
public struct Sound: Sendable, Hashable {
    /// The identity of the engine that made it (``EngineLink/id``).
    let engineID: UInt64
    let id: UInt32
    let generation: UInt32
    /// What the sound was made from.
    public let definition: SoundDefinition

    public static func == (a: Sound, b: Sound) -> Bool {
        a.engineID == b.engineID && a.id == b.id && a.generation == b.generation
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(engineID)
        hasher.combine(id)
        hasher.combine(generation)
    }
}

/// How one play of a ``Sound`` differs from the sound's defaults: every field left nil keeps the
/// definition's value; gain and pitch multiply it.
///
/// It is not ``PlayOptions`` because it holds overrides of a definition, where a clip's options
/// hold complete values: one type would need every clip field optional, or could not say "keep
/// the sound's" (the article "Sounds and the mix" has the reasons). The engine turns these into
/// a clip's options once per play, through ``PlayResolver``.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let hum = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")], loop: true))
/// var options = SoundPlayOptions(position: Vector3(3, 0, -2))
/// options.offset = 1.5                  // begin 1.5 s into the clip
/// options.bus = .ui
/// _ = try engine.play(hum, options: options)
/// ```
public struct SoundPlayOptions: Sendable, Equatable {
    /// Multiplies the sound's gain (finite, ≥ 0).
    public var gain: Float = 1
    /// Multiplies the sound's pitch (finite, > 0).
    public var pitch: Float = 1
    /// Overrides the sound's ``SoundDefinition/loop``.
    public var loop: Bool?
    /// Plays the clip this many more times after the first (see ``PlayOptions/loopCount``).
    public var loopCount: Int = 0
    /// Overrides the sound's priority.
    public var priority: UInt8?
    /// Overrides the sound's bus.
    public var bus: Bus?
    /// Seconds before the voice starts (playback time; see ``PlayOptions/delay``).
    public var delay: Double = 0
    /// When the voice starts, as an ``AudioEngine/audioTime`` (see ``PlayOptions/startTime``).
    public var startTime: Double?
    /// Seconds of fade-in (see ``PlayOptions/fadeIn``).
    public var fadeIn: Double = 0
    /// Seconds into the clip where the voice begins (see ``PlayOptions/offset``).
    public var offset: Double = 0
    /// Where it is heard from; nil: at ``position`` when that is set, else centred, non-positional.
    public var placement: PlayOptions.Placement?
    /// A position in 3D, with the sound's ``SoundDefinition/spatial`` distance settings (ignored
    /// when ``placement`` is set).
    public var position: Vector3?
    /// Occlusion, obstruction, air absorption and reverb send of a positioned voice.
    public var environment: EnvironmentProperties = .open
    /// Distance settings of this play: the fields it sets explicitly
    /// (``SpatialProperties/explicitDistance``) override an emitter's and the sound's; its
    /// position and cone are not used. Nil: none.
    ///
    /// ```swift
    /// let car = try engine.makeEmitter(SpatialProperties(position: Vector3(0, 0, -30)))
    /// var options = SoundPlayOptions(emitter: car)
    /// options.distance = SpatialProperties(maxDistance: 40, beyondMax: .silent)
    /// ```
    public var distance: SpatialProperties?

    /// Defaults: the sound as defined, centred and non-positional.
    public init() {}

    /// A play at `position` with the sound's distance settings.
    public init(position: Vector3, gain: Float = 1, bus: Bus? = nil) {
        self.position = position
        self.gain = gain
        self.bus = bus
    }

    /// A play that follows `emitter`.
    public init(emitter: Emitter, gain: Float = 1, bus: Bus? = nil) {
        self.placement = .emitter(emitter)
        self.gain = gain
        self.bus = bus
    }

    /// A non-positional play at a stereo `pan` (−1 … +1).
    public init(pan: Float, gain: Float = 1, bus: Bus? = nil) {
        self.placement = .pan(pan)
        self.gain = gain
        self.bus = bus
    }

    /// The options of the voice: the definition's values and this play's overrides, before the
    /// sound's random variation (which the engine applies to the resolved play).
    /// Overrides the sound's ``SoundDefinition/spatialMode`` (nil: the sound's).
    public var spatialMode: SpatialMode?
    /// Overrides the sound's ``SoundDefinition/spread`` (nil: the sound's).
    public var spread: Float?

    func playOptions(for d: SoundDefinition) -> PlayOptions {
        // Distance settings: the play's explicit ones (`distance`, a `.spatial` placement's),
        // over an emitter's explicit ones, over the sound's (SpatialProperties.explicitDistance).
        var sound = d.spatial
        if let distance { sound = distance.withDistance(from: sound) }
        let place: PlayOptions.Placement
        var emitterDistance: SpatialProperties?
        switch placement {
        case .spatial(let s)?:
            place = .spatial(s.withDistance(from: sound))
        case .emitter?:
            place = placement ?? .pan(0)
            var own = sound
            own.explicitDistance = distance?.explicitDistance ?? []
            emitterDistance = own
        case .pan?:
            place = placement ?? .pan(0)
        case nil:
            if let position {
                var s = sound
                s.position = position
                place = .spatial(s)
            } else {
                place = .pan(0)
            }
        }
        var o = PlayOptions(gain: d.gain * gain, pitch: d.pitch * pitch,
                            loop: loopCount > 0 ? (loop ?? false) : (loop ?? d.loop),
                            priority: priority ?? d.priority, bus: bus ?? d.bus, delay: delay, fadeIn: fadeIn, placement: place)
        o.offset = offset
        o.loopCount = loopCount
        o.environment = environment
        o.startTime = startTime
        o.soundDistance = emitterDistance
        o.spatialMode = spatialMode ?? d.spatialMode
        o.spread = spread ?? d.spread
        return o
    }
}
