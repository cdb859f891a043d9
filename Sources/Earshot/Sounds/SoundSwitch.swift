/// A switch sound (Wwise's switch containers, FMOD's labelled parameters): the designer's table
/// from the label of a parameter — the surface under a footstep — to the sound that plays.
///
/// The parameter is a *labelled* one (``ParameterDefinition/init(name:labels:)``) the game sets
/// by label, globally or on an emitter (``AudioEngine/setParameter(_:_:)-(String,String)``). Each play reads
/// the label the voice hears (its emitter's, else the global one) and plays that case's sound,
/// with its own selection, variation, limit and cooldown; a label without a case plays
/// ``defaultCase`` (none: the play is refused, as a limit refuses one). With ``follow``, a looping
/// case is re-chosen when the label changes: the old case fades out over ``fade`` seconds while
/// the new one fades in, and the game's ``Voice`` carries on across the change.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// try engine.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood"]))
/// let gravel = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/step.wav")]))
/// let wood = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/beep.wav")]))
/// let step = try engine.makeSound(SoundDefinition(switch: SoundSwitch(parameter: "surface",
///                                                                     cases: ["gravel": gravel, "wood": wood])))
/// try engine.setParameter("surface", "wood")
/// _ = try engine.play(step)              // plays `wood`
/// ```
public struct SoundSwitch: Sendable, Equatable {
    /// The labelled parameter it switches on.
    public var parameter: String
    /// The sound of each label (labels of the parameter; not every label needs a case).
    public var cases: [String: Sound]
    /// The sound of a label without a case (nil: such a play is refused).
    public var defaultCase: Sound? {
        get { fallback.first }
        set { fallback = newValue.map { [$0] } ?? [] }
    }
    /// ``defaultCase`` in an array: a value that holds a ``Sound`` directly could not be part of
    /// the ``SoundDefinition`` that a sound holds.
    private var fallback: [Sound] = []
    /// Re-choose the case of a looping voice when the label changes, cross-fading.
    public var follow: Bool
    /// The cross-fade of a following switch, in seconds (0…60; default 0.1).
    public var fade: Double

    public init(parameter: String, cases: [String: Sound], defaultCase: Sound? = nil, follow: Bool = false,
                fade: Double = 0.1) {
        self.parameter = parameter
        self.cases = cases
        self.fallback = defaultCase.map { [$0] } ?? []
        self.follow = follow
        self.fade = fade
    }

    /// The most cases one switch holds.
    public static let maxCases = 256

    /// The case of `label` (its default when it has none).
    public func sound(for label: String) -> Sound? { cases[label] ?? defaultCase }

    /// Every sound it may play.
    var sounds: [Sound] { Array(cases.values) + fallback }

    func validate() throws(EarshotError) {
        guard !parameter.isEmpty else { throw .invalidArgument("a switch needs a parameter") }
        guard !cases.isEmpty || defaultCase != nil else {
            throw .invalidArgument("a switch needs at least one case or a default")
        }
        guard cases.count <= Self.maxCases else {
            throw .invalidArgument("a switch holds at most \(Self.maxCases) cases (got \(cases.count))")
        }
        guard fade.isFinite, (0...60).contains(fade) else {
            throw .invalidArgument("switch fade \(fade) s (must be 0…60)")
        }
    }
}

extension SoundDefinition {
    /// A switch sound: each play plays the case of the label `switch.parameter` has
    /// (``SoundSwitch``). Its own gain and pitch multiply the case's; its limit and cooldown
    /// apply on top of the case's own.
    public init(switch sw: SoundSwitch, gain: Float = 1, pitch: Float = 1, limit: InstanceLimit? = nil,
                cooldown: Double = 0, name: String? = nil) {
        self.init(clips: [], gain: gain, pitch: pitch, limit: limit, cooldown: cooldown, name: name)
        parameterPart = ParameterPart(switchCases: [sw])
    }

    /// The switch of a switch sound (nil for any other).
    public var switchCases: SoundSwitch? { parameterPart?.switchCases.first }

    /// Whether the sound is a switch.
    public var isSwitch: Bool { !(parameterPart?.switchCases.isEmpty ?? true) }

    /// Whether a play goes another way than one clip's: layers, a timeline, a switch.
    var isComposite: Bool { isSwitch || isLayered }
}
