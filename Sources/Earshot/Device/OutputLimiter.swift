#if canImport(Glibc)
import Glibc
#endif

/// Keeps a loopback render within full scale (|sample| ≤ 1.0): a peak limiter with look-ahead
/// inside each render and no added latency.
///
/// OpenAL Soft mixes in float and does not clip: 200 plays of one full-scale clip at the same
/// instant reach about 119× full scale on a float loopback device. OpenAL Soft's own limiter
/// (`ALC_OUTPUT_LIMITER_SOFT`, requested on every real device) also works on loopback, but it
/// delays the whole output by 1 ms (48 frames at 48 kHz) even when nothing overloads, which
/// would move every sample-accurate start of an offline render. So loopback output is limited
/// here instead, after the mix:
///
/// - **Transparent below full scale.** While no sample of a render exceeds 1.0 and the limiter
///   is not releasing, the buffer is not touched: renders of scenes that never exceeded full
///   scale stay bit-identical.
/// - **Look-ahead** (``lookAheadSeconds``, 1 ms): within the render, the gain starts falling
///   that long before an overloading sample, linearly, so that it reaches exactly the gain that
///   brings the peak to 1.0. The renderer cannot see the next render, so an overload in the first
///   millisecond of a render gets a shorter (at the very first frame, instant) attack.
/// - **Release** (``releaseSeconds``, 0.05 s time constant): the gain then returns towards 1
///   exponentially and snaps to exactly 1 when within 10⁻⁴ (about 0.46 s after the overload).
/// - Whatever the rounding, every sample written is clamped to −1…1; NaN is written as 0.
///
/// It allocates nothing; a render that overloads costs about 2 × 48 × channels comparisons per
/// frame more.
struct OutputLimiter: Sendable {
    /// How far ahead (within a render) the gain starts falling before an overload.
    static let lookAheadSeconds = 0.001
    /// The release time constant.
    static let releaseSeconds = 0.05
    /// How close to 1 the released gain snaps to exactly 1 (−0.0009 dB, inaudible): about
    /// 0.46 s after an overload the output is untouched again.
    static let snapDistance: Float = 1e-4

    let channels: Int
    let lookAhead: Int
    let releaseCoefficient: Float
    /// The gain applied to the last frame rendered (1: not limiting).
    private(set) var gain: Float = 1
    /// Renders that needed limiting, since the engine started (for tests and stats).
    private(set) var limitedRenders = 0

    init(channels: Int, sampleRate: Int) {
        self.channels = max(1, channels)
        lookAhead = max(1, Int((Self.lookAheadSeconds * Double(sampleRate)).rounded()))
        releaseCoefficient = Float(exp(-1 / (Self.releaseSeconds * Double(sampleRate))))
    }

    /// Limits `buffer` (interleaved, whole frames) in place.
    mutating func process(_ buffer: UnsafeMutableBufferPointer<Float>) {
        guard let base = buffer.baseAddress else { return }
        let frames = buffer.count / channels
        guard frames > 0 else { return }
        if gain == 1 {
            var peak: Float = 0
            var nan = false
            for i in 0..<(frames * channels) {
                let a = abs(base[i])
                if a > peak { peak = a }
                if a.isNaN { nan = true }
            }
            if peak <= 1, !nan { return }   // the common case: untouched, bit-identical
        }
        limitedRenders += 1
        let c = channels
        /// The gain frame `j` needs so that its peak is 1.0 at most.
        func required(_ j: Int) -> Float {
            var peak: Float = 0
            for ch in 0..<c {
                let a = abs(base[j * c + ch])
                if a > peak { peak = a }
            }
            return peak > 1 ? 1 / peak : 1
        }
        let lookAhead = self.lookAhead
        let step = 1 / Float(lookAhead)
        var g = gain
        for i in 0..<frames {
            // Attack: the lowest gain any frame within the look-ahead asks of this one, falling
            // linearly towards it over `lookAhead` frames.
            var target: Float = 1
            let end = min(frames, i + lookAhead)
            for j in i..<end {
                let r = required(j)
                if r < 1 {
                    let ramped = r + (1 - r) * Float(j - i) * step
                    if ramped < target { target = ramped }
                }
            }
            // Release: back towards 1 exponentially, never above the target.
            let released = 1 - (1 - g) * releaseCoefficient
            g = min(target, released)
            if g > 1 - Self.snapDistance { g = 1 }
            if g < 1 {
                for ch in 0..<c {
                    let k = i * c + ch
                    base[k] *= g
                }
            }
            for ch in 0..<c {
                let k = i * c + ch
                let v = base[k]
                base[k] = v.isNaN ? 0 : min(max(v, -1), 1)
            }
        }
        gain = g
    }
}
