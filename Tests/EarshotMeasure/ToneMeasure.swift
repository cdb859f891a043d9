import Foundation

/// Measurements of a recorded tone, shared by the tests and the benchmarks (no XCTest here).
public enum ToneMeasure {
    /// The amplitude of the component at `hz` in `x` (least squares on sin and cos at 48 kHz;
    /// windows of whole cycles of every tone measured make the tones orthogonal).
    public static func amplitude(_ x: ArraySlice<Float>, _ hz: Double, sampleRate: Double = 48_000) -> Double {
        var s = 0.0, c = 0.0, ss = 0.0, cc = 0.0
        for (k, v) in x.enumerated() {
            let w = 2 * Double.pi * hz * Double(k) / sampleRate
            s += Double(v) * sin(w); c += Double(v) * cos(w)
            ss += sin(w) * sin(w); cc += cos(w) * cos(w)
        }
        return (s * s / (ss * ss) + c * c / (cc * cc)).squareRoot()
    }

    /// Frequency from rising zero crossings (interpolated) over the whole signal.
    public static func frequency(_ x: [Float], sampleRate: Double) -> Double {
        guard x.count > 1 else { return 0 }
        var crossings: [Double] = []
        for i in 1..<x.count where x[i - 1] < 0 && x[i] >= 0 {
            crossings.append(Double(i - 1) + Double(-x[i - 1] / (x[i] - x[i - 1])))
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / sampleRate)
    }

    /// Energy that is not the tone, relative to all the energy, in dB: in blocks of 20 ms, the
    /// least-squares fit of `a·sin + b·cos + c` at `frequency` is removed and what is left summed.
    /// A clean tone scores below −60 dB; a click or a badly aligned splice raises it.
    public static func distortion(_ x: [Float], frequency: Double, sampleRate: Double) -> Double {
        let block = Int(sampleRate * 0.02)
        var residual = 0.0, total = 0.0
        var start = 0
        while start + block <= x.count {
            var ss = 0.0, cc = 0.0, sc = 0.0, s1 = 0.0, c1 = 0.0, xs = 0.0, xc = 0.0, x1 = 0.0
            let n = Double(block)
            for i in 0..<block {
                let w = 2 * Double.pi * frequency * Double(i) / sampleRate
                let s = sin(w), c = cos(w), v = Double(x[start + i])
                ss += s * s; cc += c * c; sc += s * c; s1 += s; c1 += c
                xs += v * s; xc += v * c; x1 += v
            }
            // Solve the 3×3 normal equations [ss sc s1; sc cc c1; s1 c1 n] · [a b d] = [xs xc x1].
            let m = [[ss, sc, s1, xs], [sc, cc, c1, xc], [s1, c1, n, x1]]
            let (a, b, d) = solve3(m)
            for i in 0..<block {
                let w = 2 * Double.pi * frequency * Double(i) / sampleRate
                let v = Double(x[start + i])
                let e = v - (a * sin(w) + b * cos(w) + d)
                residual += e * e
                total += v * v
            }
            start += block
        }
        return 10 * log10(max(residual, 1e-30) / max(total, 1e-30))
    }

    private static func solve3(_ rows: [[Double]]) -> (Double, Double, Double) {
        var m = rows
        for col in 0..<3 {
            let pivot = (col..<3).max { abs(m[$0][col]) < abs(m[$1][col]) } ?? col
            m.swapAt(col, pivot)
            guard abs(m[col][col]) > 1e-12 else { continue }
            for r in 0..<3 where r != col {
                let f = m[r][col] / m[col][col]
                for k in col..<4 { m[r][k] -= f * m[col][k] }
            }
        }
        func v(_ i: Int) -> Double { abs(m[i][i]) > 1e-12 ? m[i][3] / m[i][i] : 0 }
        return (v(0), v(1), v(2))
    }
}
