import Foundation

/// How the loopback output's ``OutputLimiter`` limits: its ceiling and whether it holds the true
/// (inter-sample) peak under it as well as every sample. ``AudioEngine/Configuration/limiter``;
/// scenes say `limiter: { ceiling: -1, truePeak: true }`.
///
/// A sample-peak ceiling keeps every sample under it, but the waveform a DAC or a lossy encoder
/// reconstructs between samples can rise above them (up to +3 dB for a sine at a quarter of the
/// rate): delivery specs (EBU R128, ASWG-R001) cap the *true* peak, measured 4× oversampled,
/// typically at −1 dBTP. With `truePeak`, the limiter's detector reads the signal 8×
/// oversampled (a 16-tap windowed-sinc interpolator; finer than the 4× meters measure with) and
/// keeps that under the ceiling too, across render boundaries (see the DocC article "Loudness").
///
/// ```swift
/// var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
/// config.limiter = .init(ceiling: -1, truePeak: true)   // −1 dBTP, the R128 delivery ceiling
/// let engine = try AudioEngine(configuration: config)
/// ```
public struct LimiterSettings: Sendable, Equatable, Codable {
    /// The ceilings a limiter takes, dBFS (or dBTP with ``truePeak``).
    public static let ceilings: ClosedRange<Float> = -20...0
    /// The ceiling in dBFS (dBTP with ``truePeak``); default −0.1.
    public var ceiling: Float
    /// Whether the true (8×-oversampled) peak is held under the ceiling too (default false).
    public var truePeak: Bool

    public init(ceiling: Float = OutputLimiter.ceilingDecibels, truePeak: Bool = false) {
        self.ceiling = ceiling
        self.truePeak = truePeak
    }

    /// Throws ``EarshotError/invalidArgument(_:)`` for a ceiling outside ``ceilings``.
    public func validate() throws(EarshotError) {
        guard ceiling.isFinite, Self.ceilings.contains(ceiling) else {
            throw .invalidArgument("limiter ceiling \(ceiling) dB is outside \(Self.ceilings.lowerBound)…\(Self.ceilings.upperBound)")
        }
    }

    /// The ceiling as a linear amplitude.
    var linearCeiling: Float { ceiling == OutputLimiter.ceilingDecibels ? OutputLimiter.ceiling : Float(pow(10, Double(ceiling) / 20)) }
}
