/// How occlusion and obstruction (each 0…1, computed by the game from its geometry) become the
/// low-pass filters of a voice's direct path and of its reverb sends.
///
/// The meanings are Wwise's and FMOD's: **obstruction** is something between the sound and the
/// listener in the same room (a pillar): it muffles and lowers the direct path only, the room's
/// reverb is still excited. **Occlusion** is a wall between them (another room): it muffles and
/// lowers the direct path *and* the sends. Both combine by multiplying filter gains.
///
/// The default curve, per unit of occlusion or obstruction `x`:
/// - gain = 1 − `maxAttenuation`·x (linear in amplitude; default `maxAttenuation` 0.5, −6 dB at 1),
/// - gainHF = (1 − x)² + `minGainHF`·(2x − x²) — a quadratic that keeps most highs for slight
///   occlusion and reaches `minGainHF` (default 0.05, −26 dB above 5 kHz) at 1.
/// A game that wants another curve sets ``map`` to its own function (a pure, fast function:
/// it runs whenever a value changes).
///
/// ```swift
/// var curve = OcclusionCurve()
/// curve.maxAttenuation = 0.7                      // walls are thicker in this game
/// let wall = curve.filters(occlusion: 1, obstruction: 0)
/// print(wall.direct, wall.send)                   // both muffled
/// ```
public struct OcclusionCurve: Sendable {
    /// The filter type the curve produces.
    public typealias Filter = LowPassFilter

    /// Gain lost at full occlusion or obstruction (0…1) by the default curve.
    public var maxAttenuation: Float = 0.5
    /// High-frequency gain left at full occlusion or obstruction (0…1) by the default curve.
    public var minGainHF: Float = 0.05
    /// Replaces the default curve: the filter for one amount (0…1) of occlusion or obstruction.
    public var map: (@Sendable (Float) -> Filter)?

    public init(maxAttenuation: Float = 0.5, minGainHF: Float = 0.05, map: (@Sendable (Float) -> Filter)? = nil) {
        self.maxAttenuation = maxAttenuation
        self.minGainHF = minGainHF
        self.map = map
    }

    /// The filter for `amount` (clamped to 0…1) of occlusion or obstruction.
    public func filter(_ amount: Float) -> Filter {
        let x = amount.isFinite ? min(max(amount, 0), 1) : 0
        if let map {
            let f = map(x)
            return Filter(gain: Self.clamp(f.gain), gainHF: Self.clamp(f.gainHF))
        }
        let a = Self.clamp(maxAttenuation), h = Self.clamp(minGainHF)
        let keep = (1 - x) * (1 - x)
        return Filter(gain: 1 - a * x, gainHF: keep + h * (1 - keep))
    }

    /// The direct-path and send filters for a voice with `occlusion` and `obstruction`.
    public func filters(occlusion: Float, obstruction: Float) -> (direct: Filter, send: Filter) {
        let occluded = filter(occlusion)
        return (occluded * filter(obstruction), occluded)
    }

    private static func clamp(_ v: Float) -> Float { v.isFinite ? min(max(v, 0), 1) : 1 }
}

/// A low-pass filter's two gains (OpenAL's `AL_LOWPASS_GAIN` and `AL_LOWPASS_GAINHF`, 0…1): the
/// whole signal scaled by `gain`, and what lies above 5 kHz by `gainHF` more.
///
/// ```swift
/// let underWater = LowPassFilter(gain: 0.8, gainHF: 0.05)
/// print(underWater.isOpen)   // false
/// ```
public struct LowPassFilter: Sendable, Hashable {
    public var gain: Float
    public var gainHF: Float
    public init(gain: Float = 1, gainHF: Float = 1) {
        self.gain = gain
        self.gainHF = gainHF
    }
    /// No filtering.
    public static let open = LowPassFilter(gain: 1, gainHF: 1)
    /// Whether the filter changes nothing.
    public var isOpen: Bool { gain >= 1 && gainHF >= 1 }
    /// Whether both gains are finite and within 0…1.
    public var isValid: Bool { (0...1).contains(gain) && (0...1).contains(gainHF) }
    /// Two filters in series.
    public static func * (a: LowPassFilter, b: LowPassFilter) -> LowPassFilter {
        LowPassFilter(gain: a.gain * b.gain, gainHF: a.gainHF * b.gainHF)
    }
}

