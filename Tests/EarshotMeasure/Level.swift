import Foundation

/// The level of rendered audio — RMS and decibels, one definition that every test target and
/// the benchmarks use (no XCTest here). Samples are interleaved floats; sums are taken in `Double`
/// in sample order.
///
/// Silence has a finite level, so a silent window compares and prints like any other: amplitudes
/// are floored at 1e-12 (−240 dB), powers at 1e-30 (−300 dB) — the floors of the helpers this
/// replaced, so every figure the tests print stays as it was.
///
/// ```swift
/// let stereo: [Float] = [0.5, 0, -0.5, 0]
/// Level.rms(stereo)                        // 0.5: the left channel (channel 0 of 2, every frame)
/// Level.rms(stereo, 0..<4)                 // 0.354: samples 0..<4 as one stream
/// Level.dB(Level.rms(stereo, 0..<4))       // −9.03 dB
/// ```
public enum Level {
    /// The mean square of `samples` taken as one stream (interleaved channels together); 0 when
    /// there are none.
    public static func meanSquare<C: Collection>(_ samples: C) -> Double where C.Element: BinaryFloatingPoint {
        guard !samples.isEmpty else { return 0 }
        var sum = 0.0
        for v in samples { sum += Double(v) * Double(v) }
        return sum / Double(samples.count)
    }

    /// The RMS of `samples` (a slice, a window) taken as one stream; 0 when there are none.
    public static func rms(stream samples: some Collection<Float>) -> Double {
        meanSquare(samples).squareRoot()
    }

    /// The RMS of `samples[range]` taken as one stream, the range clamped to the samples; 0 when
    /// nothing is left.
    public static func rms(_ samples: [Float], _ range: Range<Int>) -> Double {
        let r = max(0, range.lowerBound)..<max(max(0, range.lowerBound), min(samples.count, range.upperBound))
        return rms(stream: samples[r])
    }

    /// The RMS of one channel of interleaved samples (`channels` of them; by default the left of
    /// the engine's stereo) over frames `from..<to` (`to` clamped to the last whole frame; nil:
    /// to the end); 0 when that is empty.
    public static func rms(_ samples: [Float], channel: Int = 0, of channels: Int = 2, from: Int = 0, to: Int? = nil) -> Double {
        let frames = samples.count / channels
        let end = min(to ?? frames, frames)
        guard end > from else { return 0 }
        var sum = 0.0
        for i in from..<end {
            let v = Double(samples[i * channels + channel])
            sum += v * v
        }
        return (sum / Double(end - from)).squareRoot()
    }

    /// The RMS of each channel of interleaved samples.
    public static func rms(_ samples: [Float], channels: Int) -> [Double] {
        (0..<channels).map { rms(samples, channel: $0, of: channels) }
    }

    /// An amplitude ratio (an RMS, a gain) in dB: 20 log10, at least −240 dB.
    public static func dB(_ amplitude: Double) -> Double { 20 * log10(max(amplitude, 1e-12)) }

    /// The amplitude `a` relative to `b` in dB.
    public static func dB(_ a: Double, over b: Double) -> Double { dB(a / b) }

    /// A power ratio (a mean square, an energy) in dB: 10 log10, at least −300 dB.
    public static func dB(power: Double) -> Double { 10 * log10(max(power, 1e-30)) }
}
