/// One layer of a layered sound (FMOD's multi-track events, Wwise's blend containers): a clip
/// that starts with the sound's other layers, stays sample-aligned with them, and is shaped by
/// its own curves — the idle, low, mid and high loops of a car engine crossfaded by `rpm`.
///
/// A layered sound is a ``SoundDefinition`` made with
/// ``SoundDefinition/init(layers:curves:loop:gain:pitch:limit:cooldown:bus:priority:spatial:)``:
/// one play starts every layer at once (one ``Voice`` for the game, which stops, pauses, moves
/// and takes parameters for all of them), and each layer's gain, pitch and curves apply on top of
/// the sound's.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// try engine.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 800, seek: 4000))
/// let idle = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
/// let high = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
/// let car = try engine.makeSound(SoundDefinition(layers: [
///     SoundLayer(clip: idle, curves: [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(800, 0), .init(3000, -40)])]),
///     SoundLayer(clip: high, curves: [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(800, -40), .init(3000, 0)])]),
/// ]))
/// let voice = try engine.play(car)
/// try voice.setParameter("rpm", 2500)
/// ```
public struct SoundLayer: Sendable, Equatable {
    /// The layer's clip (loaded in the engine that makes the sound).
    public var clip: Clip
    /// Linear gain of the layer, times the sound's (finite, ≥ 0).
    public var gain: Float
    /// Pitch of the layer, times the sound's (finite, > 0).
    public var pitch: Float
    /// The layer's own curves, on top of the sound's (``ParameterCurve``).
    public var curves: [ParameterCurve]
    /// Where and how the layer plays on the sound's timeline — its delay, clip choice, variation,
    /// loop and sustain point (``SoundLayer/Timing``, SoundLayer+Timing.swift); nil for a layer
    /// that starts with the others and plays `clip` as it is.
    public var timing: Timing?

    public init(clip: Clip, gain: Float = 1, pitch: Float = 1, curves: [ParameterCurve] = [], timing: Timing? = nil) {
        self.clip = clip
        self.gain = gain
        self.pitch = pitch
        self.curves = curves
        self.timing = timing
    }

    /// Every clip the layer may play: ``clip`` and its timing's alternatives.
    public var clips: [Clip] { [clip] + (timing?.alternatives ?? []) }

    /// The most layers one sound holds.
    public static let maxLayers = 16
}

/// A sound definition's curves and layers, kept together behind one optional.
struct ParameterPart: Sendable, Equatable {
    var curves: [ParameterCurve] = []
    var layers: [SoundLayer] = []
    /// A switch sound's cases (SoundSwitch.swift): none or one, in an array so that the part —
    /// and every plain sound's definition, which holds it as nil — stays three words.
    var switchCases: [SoundSwitch] = []
}

extension SoundDefinition {
    /// Curves from game parameters to the properties of its voices (``ParameterCurve``; default
    /// none): each voice follows the global value of each parameter, or its own
    /// (``Voice/setParameter(_:_:ramp:)``), or its emitter's.
    public var curves: [ParameterCurve] {
        get { parameterPart?.curves ?? [] }
        set { setParameterPart(curves: newValue, layers: layers) }
    }

    /// The layers of a layered sound (``SoundLayer``, made with
    /// ``init(layers:curves:loop:gain:pitch:limit:cooldown:bus:priority:spatial:)``); empty for a
    /// sound that picks one clip per play.
    public var layers: [SoundLayer] {
        get { parameterPart?.layers ?? [] }
        set { setParameterPart(curves: curves, layers: newValue) }
    }

    private mutating func setParameterPart(curves: [ParameterCurve], layers: [SoundLayer]) {
        let switchCases = parameterPart?.switchCases ?? []
        parameterPart = curves.isEmpty && layers.isEmpty && switchCases.isEmpty
            ? nil : ParameterPart(curves: curves, layers: layers, switchCases: switchCases)
    }

    /// A layered sound: every layer starts with each play, sample-aligned, and loops until
    /// stopped (unless `loop` is false). ``clips`` are the layers' clips; selection, weights and
    /// variations do not apply.
    public init(layers: [SoundLayer], curves: [ParameterCurve] = [], loop: Bool = true, gain: Float = 1,
                pitch: Float = 1,
                limit: InstanceLimit? = nil, cooldown: Double = 0, bus: Bus = .sfx, priority: UInt8 = 128,
                spatial: SpatialProperties = SpatialProperties()) {
        self.init(clips: layers.flatMap(\.clips), selection: .sequence, gain: gain, pitch: pitch, limit: limit,
                  cooldown: cooldown,
                  bus: bus, priority: priority, loop: loop, spatial: spatial)
        self.layers = layers
        self.curves = curves
    }

    /// Whether the sound plays layers (``layers`` is not empty).
    public var isLayered: Bool { !(parameterPart?.layers.isEmpty ?? true) }

    /// The checks of ``curves`` and ``layers`` (part of ``validate()``).
    func validateParameters() throws(EarshotError) {
        guard curves.count <= ParameterCurve.maxCurvesPerTarget else {
            throw .invalidArgument("a sound holds at most \(ParameterCurve.maxCurvesPerTarget) curves (got \(curves.count))")
        }
        for c in curves { try c.validate() }
        if let sw = switchCases {
            guard layers.isEmpty, clips.isEmpty else { throw .invalidArgument("a switch sound has cases, not clips or layers") }
            try sw.validate()
        }
        guard !layers.isEmpty else { return }
        guard layers.count <= SoundLayer.maxLayers else {
            throw .invalidArgument("a sound holds at most \(SoundLayer.maxLayers) layers (got \(layers.count))")
        }
        guard clips == layers.flatMap(\.clips) else {
            throw .invalidArgument("a layered sound's clips are its layers' clips (make it with SoundDefinition(layers:))")
        }
        guard pitchVariation == 0, gainVariation == 0, weights == nil, avoidRepeat == 0 else {
            throw .invalidArgument("a layered sound has no weights, avoidRepeat or variations (its layers always play together)")
        }
        for (k, layer) in layers.enumerated() {
            guard layer.gain.isFinite, layer.gain >= 0 else {
                throw .invalidArgument("layer \(k + 1): gain \(layer.gain) (must be finite and ≥ 0)")
            }
            guard layer.pitch.isFinite, layer.pitch > 0 else {
                throw .invalidArgument("layer \(k + 1): pitch \(layer.pitch) (must be finite and > 0)")
            }
            guard layer.curves.count <= ParameterCurve.maxCurvesPerTarget else {
                throw .invalidArgument("layer \(k + 1) holds at most \(ParameterCurve.maxCurvesPerTarget) curves (got \(layer.curves.count))")
            }
            for c in layer.curves { try c.validate() }
            if let timing = layer.timing { try timing.validate(layer: k + 1) }
        }
        try validateTimeline()
    }

    /// The parameter names the sound's curves and its layers' curves use.
    var parameterNames: Set<String> {
        var names = Set(curves.map(\.parameter))
        for l in layers { for c in l.curves { names.insert(c.parameter) } }
        return names
    }
}
