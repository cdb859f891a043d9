/// A game parameter (FMOD's parameters, Wwise's RTPCs): a named number the game sets — `rpm`,
/// `speed`, `intensity` — that curves on sounds, layers and buses turn into gain, pitch, low-pass,
/// reverb send and priority (``ParameterCurve``).
///
/// A definition gives the parameter's range, the value it has until the game sets one, and how
/// fast it may move: ``seek`` units per second (0: a set value is taken at once). A value the
/// game sets is the parameter's *target*; the engine moves the heard value toward it at the seek
/// speed, once per ``AudioEngine/update(deltaTime:)``, in playback time — frozen while the engine
/// is held (``AudioEngine/pauseAll(except:)``, an audio-session interruption), and for a voice's
/// own value while that voice or its bus is paused. An engine whose rpm jumps from 800 to 4800
/// with `seek: 4000` takes one second to get there, however the game's frames fall.
///
/// Define parameters before making the sounds whose curves name them
/// (``AudioEngine/defineParameter(_:)``); a curve naming an undefined parameter is refused with
/// ``EarshotError/unknownParameter(name:nearest:)``.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// try engine.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 800, seek: 4000))
/// try engine.setParameter("rpm", 3200)          // every voice that has no rpm of its own
/// print(try engine.parameter("rpm"))            // 800 until the next update moves it
/// ```
public struct ParameterDefinition: Sendable, Equatable {
    /// The name curves and calls use: 1…``maxNameLength`` characters.
    public var name: String
    /// The values the parameter may take (finite bounds, lower ≤ upper). Values set outside it
    /// are clamped to it.
    public var range: ClosedRange<Double>
    /// The value before the game sets one (within ``range``).
    public var defaultValue: Double
    /// How fast the heard value may move toward a set value, in units per second (finite, ≥ 0;
    /// 0: at once).
    public var seek: Double

    /// The labels of a labelled parameter (``init(name:labels:)``): value `k` is `labels[k]`;
    /// empty for a numeric one.
    public var labels: [String] = []

    /// The longest parameter name.
    public static let maxNameLength = 64
    /// The most parameters one engine defines.
    public static let maxParametersPerEngine = 256

    public init(name: String, range: ClosedRange<Double>, defaultValue: Double? = nil, seek: Double = 0) {
        self.name = name
        self.range = range
        self.defaultValue = defaultValue ?? range.lowerBound
        self.seek = seek
    }

    /// The most labels of one parameter.
    public static let maxLabels = 256

    /// A labelled parameter (FMOD's labelled parameters, Wwise's switch groups): its values are
    /// `labels` (value `k` is `labels[k]`), set by label (``AudioEngine/setParameter(_:_:)-(String,String)``),
    /// at once (no seek). What a ``SoundSwitch`` switches on.
    ///
    /// ```swift
    /// let surface = ParameterDefinition(name: "surface", labels: ["gravel", "wood", "metal"])
    /// ```
    public init(name: String, labels: [String], defaultLabel: String? = nil) {
        self.name = name
        self.labels = labels
        range = 0...Double(max(labels.count - 1, 0))
        defaultValue = Double(defaultLabel.flatMap { labels.firstIndex(of: $0) } ?? 0)
        seek = 0
    }

    /// The value of `label` (nil: not one of ``labels``).
    public func value(ofLabel label: String) -> Double? { labels.firstIndex(of: label).map(Double.init) }

    /// The label a value stands for (nil for a numeric parameter).
    public func label(of value: Double) -> String? {
        guard !labels.isEmpty, value.isFinite else { return nil }
        return labels[min(max(Int(value.rounded()), 0), labels.count - 1)]
    }

    /// Throws ``EarshotError/invalidArgument(_:)`` naming the first value out of its range.
    public func validate() throws(EarshotError) {
        if !labels.isEmpty {
            guard labels.count <= Self.maxLabels else {
                throw .invalidArgument("parameter \"\(name)\": at most \(Self.maxLabels) labels (got \(labels.count))")
            }
            guard Set(labels).count == labels.count, labels.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 64 }) else {
                throw .invalidArgument("parameter \"\(name)\": labels must be unique, 1…64 bytes each")
            }
            guard range == 0...Double(labels.count - 1) else {
                throw .invalidArgument("parameter \"\(name)\": a labelled parameter's range is 0…\(labels.count - 1)")
            }
        }
        guard !name.isEmpty, name.count <= Self.maxNameLength else {
            throw .invalidArgument("a parameter name needs 1…\(Self.maxNameLength) characters (got \(name.count))")
        }
        guard range.lowerBound.isFinite, range.upperBound.isFinite else {
            throw .invalidArgument("parameter \"\(name)\": range \(range) (its bounds must be finite)")
        }
        guard defaultValue.isFinite, range.contains(defaultValue) else {
            throw .invalidArgument("parameter \"\(name)\": default \(defaultValue) (must be within \(range.lowerBound)…\(range.upperBound))")
        }
        guard seek.isFinite, seek >= 0 else {
            throw .invalidArgument("parameter \"\(name)\": seek \(seek) per second (must be finite and ≥ 0; 0 = jump)")
        }
    }

    /// `value` clamped to ``range`` (nil for a value that is not finite).
    func clamped(_ value: Double) -> Double? {
        guard value.isFinite else { return nil }
        return min(max(value, range.lowerBound), range.upperBound)
    }
}
