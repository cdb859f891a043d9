import Foundation

/// The true-peak detector of a limiter that holds a true-peak ceiling (``LimiterSettings/truePeak``):
/// a 32-tap Kaiser-windowed sinc (β 9, the kernel of ffmpeg's default resampler, which its
/// `ebur128` filter reads true peaks through) at seven points between every two samples (8×).
/// Full-band content near the Nyquist frequency is where interpolators disagree (a shorter
/// kernel, BS.1770's 48-tap 4× filter among them, reads white noise up to 0.6 dB lower): the
/// limiter holds the longer kernel's reading, so ffmpeg's meter reads its output under the
/// ceiling — and, at three more points, libebur128's own 49-tap 4× kernel (Hann-windowed), so
/// the engine's meter (``LoudnessMeter``) does too.
///
/// It keeps the last input frames of the previous buffer and the last frames the limiter sent, so
/// the points between two buffers are read from the real samples on both sides: past the end of a
/// buffer (the next one is not mixed yet) it reads silence, which holds the part of a point the
/// limiter sends now under the ceiling; the next buffer's gain then keeps the whole point under it
/// (the old part is fixed). Allocation-free once its scratch has grown to the largest buffer.
struct TruePeakDetector: Sendable {
    /// The points are held this much under the ceiling (0.2 dB): the gain changes under the
    /// kernel while the limiter ramps, which moves a point by up to about 0.1 dB.
    static let margin: Float = 1.023_293

    /// Taps either side of the point.
    static let half = 16
    static let phases = 8
    /// One row per point between `t0` and `t0 + 1`: `row[m]` is the weight of sample
    /// `t0 − half + 1 + m`.
    let coefficients: [[Float]]
    /// The rows one after another (what ``scan(_:frames:)`` reads).
    private let flat: [Float]
    /// One channel of the history and the buffer in a line, silence past its end.
    private var line: [Float] = []
    /// Σ|h| of the worst phase: no point exceeds it × the largest sample in reach.
    let gainBound: Float
    let channels: Int
    /// The last `2 × half` input frames of the previous buffer, interleaved (oldest first), and
    /// the next buffer's, staged before limiting changes them.
    private var history: [Float]
    private var staged: [Float]
    /// The last `2 × half` frames the limiter *sent* (after its gain): the points between them
    /// and a new buffer are partly fixed already.
    private var sent: [Float]
    /// The peak of the points before each frame `e` of the buffer scanned last, for
    /// e = −half … frames + half − 1 (index e + half); grown, never shrunk.
    private var intervals: [Float] = []

    init(channels: Int) {
        self.channels = channels
        let h = Self.half
        var rows: [[Float]] = []
        // The long Kaiser kernel at 1/8…7/8.
        for p in 1..<Self.phases {
            let frac = Double(p) / Double(Self.phases)
            rows.append((0..<(2 * h)).map { m in
                let x = Double(m - h + 1) - frac   // distance of the sample from the point
                let r = x / Double(h)
                let window = r * r < 1 ? Self.besselI0(9 * (1 - r * r).squareRoot()) / Self.besselI0(9) : 0
                return Float(Self.sinc(x) * window)
            })
        }
        // libebur128's: 49 taps at 4× (±6 samples), Hann-windowed, at 1/4, 2/4, 3/4.
        for p in 1..<4 {
            let frac = Double(p) / 4
            rows.append((0..<(2 * h)).map { m in
                let x = Double(m - h + 1) - frac
                let j = 24 - 4 * x   // its tap index
                return abs(x) <= 6 ? Float(Self.sinc(x) * 0.5 * (1 - cos(2 * Double.pi * j / 48))) : 0
            })
        }
        let bound = rows.map { $0.reduce(0) { $0 + abs($1) } }.max() ?? 1
        coefficients = rows
        flat = rows.flatMap { $0 }
        gainBound = bound
        history = [Float](repeating: 0, count: 2 * h * channels)
        staged = history
        sent = history
    }

    static func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x) }

    /// The modified Bessel function I₀ (its series, to 1e-12), for the Kaiser window.
    static func besselI0(_ x: Double) -> Double {
        var sum = 1.0, term = 1.0, k = 1.0
        while term > 1e-12 * sum {
            term *= (x / (2 * k)) * (x / (2 * k))
            sum += term
            k += 1
        }
        return sum
    }

    /// Reads every point of a buffer about to be limited (and the half-kernel either side): per
    /// channel, the history and the buffer are laid out in one line (silence past
    /// the end), and every row of the kernel slides along it.
    mutating func scan(_ base: UnsafeMutablePointer<Float>, frames: Int, ceiling: Float) {
        let h = Self.half, c = channels, taps = 2 * h
        let points = frames + 2 * h   // e = −h … frames + h − 1
        if intervals.count < points { intervals = [Float](repeating: 0, count: points) }
        // line[i] is frame i − 2h (history for i < 2h).
        let length = frames + 4 * h
        if line.count < length { line = [Float](repeating: 0, count: length) }
        let rows = coefficients.count
        for i in 0..<points { intervals[i] = 0 }
        history.withUnsafeBufferPointer { past in
        line.withUnsafeMutableBufferPointer { ln in
        intervals.withUnsafeMutableBufferPointer { out in
        flat.withUnsafeBufferPointer { k in
            for ch in 0..<c {
                for i in 0..<(2 * h) { ln[i] = past[i * c + ch] }
                for i in 0..<frames { ln[2 * h + i] = base[i * c + ch] }
                // Past the end: nothing yet. A point near the end is then held on the part the
                // limiter sends now; the next buffer answers for the rest (below).
                for i in (2 * h + frames)..<length { ln[i] = 0 }
                // Point slot e holds the points before frame e − h, which read frames
                // e − 2h … e − 1: line indices e … e + 2h − 1.
                for e in 0..<points {
                    let first = e
                    var peak: Float = 0
                    for r in 0..<rows {
                        var sum: Float = 0
                        let row = r * taps
                        for m in 0..<taps { sum += k[row + m] * ln[first + m] }
                        peak = max(peak, abs(sum))
                    }
                    out[e] = max(out[e], peak)
                }
                // The points between the samples already sent and this buffer: their old part
                // `a` is fixed, so the gain g on the new part `b` must keep |a + g·b| under the
                // ceiling — g ≤ (ceiling − a·sign(b)) / |b| — which reads as a peak of ceiling / g.
                sent.withUnsafeBufferPointer { old in
                    for e in 1..<min(points, 2 * h) {
                        for r in 0..<rows {
                            var a: Float = 0, b: Float = 0
                            let row = r * taps
                            for m in 0..<taps {
                                let i = e + m
                                if i < 2 * h { a += k[row + m] * old[i * c + ch] } else { b += k[row + m] * ln[i] }
                            }
                            guard abs(b) > 1e-9 else { continue }
                            let g = max(0.05, (ceiling - (b > 0 ? a : -a)) / abs(b))
                            out[e] = max(out[e], ceiling / g)
                        }
                    }
                }
            }
        }
        }
        }
        }
    }

    /// The peak a frame's gain must answer for: every point whose kernel reaches the frame
    /// (a gain under it on one sample of the kernel only would let the point through).
    func need(_ j: Int) -> Float {
        var peak: Float = 0
        for k in j...(j + 2 * Self.half) { peak = max(peak, intervals[k]) }
        return peak
    }

    /// Stages the buffer's last input frames for the next buffer's first points (before the
    /// limiter changes them); ``commit()`` makes them the history once the buffer is done.
    mutating func stage(_ base: UnsafeMutablePointer<Float>, frames: Int) {
        let keep = 2 * Self.half, c = channels
        history.withUnsafeBufferPointer { past in
        staged.withUnsafeMutableBufferPointer { next in
            let shift = min(frames, keep) * c
            for i in 0..<(keep * c - shift) { next[i] = past[i + shift] }
            for i in 0..<shift { next[keep * c - shift + i] = base[(frames - min(frames, keep)) * c + i] }
        }
        }
    }

    /// Makes the staged input the history, and keeps the last frames of what was sent
    /// (`base`, now limited).
    mutating func commit(_ base: UnsafeMutablePointer<Float>, frames: Int) {
        swap(&history, &staged)
        let keep = 2 * Self.half, c = channels
        let shift = min(frames, keep) * c
        sent.withUnsafeMutableBufferPointer { s in
            for i in 0..<(keep * c - shift) { s[i] = s[i + shift] }
            for i in 0..<shift { s[keep * c - shift + i] = base[(frames - min(frames, keep)) * c + i] }
        }
    }
}
