import COpenAL

/// An effect a bus owns: every voice on the bus (positioned or panned) sends to it, through the
/// send after the reverb zones' (``AudioEngine/Configuration/zoneSends``), reserved by
/// ``AudioEngine/Configuration/busEffects``. An echo on the
/// `voice` bus for a radio, a reverb on `ui` for a dreamy menu.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000), busEffects: true))
/// try engine.setEffect(.echo(EchoProperties(delay: 0.15, feedback: 0.4)), level: 0.5, for: .voice)
/// ```
public enum BusEffect: Sendable, Equatable {
    /// An EAX reverb (a preset of `efx-presets.h` or explicit values).
    case reverb(ReverbProperties)
    /// An echo (EFX `AL_EFFECT_ECHO`).
    case echo(EchoProperties)

    /// The effect unchanged when every value is within its EFX range, else
    /// ``EarshotError/invalidArgument(_:)`` naming the value.
    public func validated() throws(EarshotError) -> BusEffect {
        switch self {
        case .reverb(let r): _ = try r.validated()
        case .echo(let e): _ = try e.validated()
        }
        return self
    }

    var alType: ALint {
        switch self {
        case .reverb: return AL_EFFECT_EAXREVERB
        case .echo: return AL_EFFECT_ECHO
        }
    }
}

/// The parameters of an EFX echo: two taps (`delay`, then `lrDelay` later on the other side)
/// repeating with `feedback`, each repeat duller by `damping`.
public struct EchoProperties: Sendable, Equatable {
    /// Seconds to the first tap, 0…0.207.
    public var delay: Float
    /// Seconds from the first tap to the second, 0…0.404.
    public var lrDelay: Float
    /// High-frequency damping of each repeat, 0…0.99.
    public var damping: Float
    /// How much of each repeat feeds the next, 0…1.
    public var feedback: Float
    /// Stereo spread of the taps, −1…1.
    public var spread: Float

    public init(
        delay: Float = 0.1, lrDelay: Float = 0.1, damping: Float = 0.5, feedback: Float = 0.5, spread: Float = -1
    ) {
        self.delay = delay
        self.lrDelay = lrDelay
        self.damping = damping
        self.feedback = feedback
        self.spread = spread
    }

    public func validated() throws(EarshotError) -> EchoProperties {
        for (name, value, range) in [
            ("delay", delay, Float(0)...0.207), ("lrDelay", lrDelay, 0...0.404),
            ("damping", damping, 0...0.99), ("feedback", feedback, 0...1), ("spread", spread, -1...1),
        ] {
            guard value.isFinite, range.contains(value) else {
                throw .invalidArgument("echo \(name) \(value) is outside \(range.lowerBound)…\(range.upperBound)")
            }
        }
        return self
    }
}
