import EarshotMeasure
import Foundation

/// Measurements of reverb tails shared by the environment tests.
enum ReverbMeasures {
    /// `x` through a 1 kHz band-pass (RBJ biquad, Q 0.7, run twice): the band between EAX
    /// reverb's LF (250 Hz) and HF (5 kHz) references, where the tail decays in `decayTime`.
    static func midBand(_ x: [Float], rate: Int) -> [Float] {
        bandPass(x.map(Double.init), centre: 1_000, q: 0.7, rate: rate).map { Float($0) }
    }

    /// `x` through an RBJ band-pass biquad at `centre` Hz with quality `q`, run twice (4th order).
    static func bandPass(_ x: [Double], centre: Double, q: Double, rate: Int) -> [Double] {
        let w0 = 2 * Double.pi * centre / Double(rate), alpha = sin(w0) / (2 * q)
        let a0 = 1 + alpha
        let b0 = alpha / a0, b2 = -alpha / a0, a1 = -2 * cos(w0) / a0, a2 = (1 - alpha) / a0
        var y = x
        for _ in 0..<2 {
            var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
            for i in y.indices {
                let v = b0 * y[i] + b2 * x2 - a1 * y1 - a2 * y2
                x2 = x1; x1 = y[i]; y2 = y1; y1 = v
                y[i] = v
            }
        }
        return y
    }

    /// T60 estimated by Schroeder backward integration: the slope of the energy decay curve
    /// between −5 dB and −25 dB below its start, extrapolated to 60 dB (T20 × 3). The first
    /// 20 ms (the direct burst) are left out.
    static func decayTime(_ x: [Float], rate: Int) -> Double {
        let skip = rate / 50
        var energy = x[skip...].map { Double($0) * Double($0) }
        for i in stride(from: energy.count - 2, through: 0, by: -1) { energy[i] += energy[i + 1] }
        let top = energy[0]
        let edc = energy.map { Level.dB(power: $0 / top) }
        guard let a = edc.firstIndex(where: { $0 <= -5 }), let b = edc.firstIndex(where: { $0 <= -25 }), b > a else { return 0 }
        return Double(b - a) / Double(rate) * 3
    }
}
