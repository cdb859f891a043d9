#if canImport(Glibc)
import Glibc
#endif

/// A look-ahead peak limiter that keeps interleaved float audio under a ceiling just below full
/// scale, with no added latency: the engine's loopback output goes through one.
///
/// OpenAL Soft mixes in float and does not clip: 200 plays of one full-scale clip at the same
/// instant reach about 119× full scale on a float loopback device. OpenAL Soft's own limiter
/// (`ALC_OUTPUT_LIMITER_SOFT`, requested on every real device) also works on loopback, but it
/// delays the whole output by 1 ms even when nothing overloads, which would move every
/// sample-accurate start of an offline render. So ``AudioEngine/render(into:)`` limits the mix
/// here instead, and this type can be used on its own on any interleaved float buffer.
///
/// - **Transparent below the ceiling.** While no sample of a buffer exceeds the ceiling and the
///   limiter is at rest (not holding or releasing), the buffer is not touched: renders that never
///   reach the ceiling stay bit-identical.
/// - **Ceiling** ``ceilingDecibels`` (−0.1 dBFS, 0.98855) unless ``LimiterSettings`` says
///   otherwise: no sample leaves above it, in any buffer — also the first of a render, which once
///   passed untouched with samples up to full scale (+0.1 dB over the ceiling). With
///   ``LimiterSettings/truePeak`` the 8×-oversampled peak is held under it too.
/// - **Look-ahead** (``lookAheadSeconds``, 1 ms): the gain each frame needs is the *minimum* of
///   the gains the frames of the look-ahead window need (a sliding-window minimum, kept in a
///   monotonic deque: O(1) amortised per frame), smoothed by a moving average over the window, so
///   the gain falls linearly across the millisecond before a peak and only the peak itself
///   reaches the ceiling — no flat tops. The limiter sees only the buffer it is given (the next
///   one is not mixed yet), so a peak within 1 ms of a buffer's start comes too late for the
///   ramp: the gain then drops at once to the deepest need in view (so that a rising edge does
///   not sit on the ceiling either) and the ramp starts over from there.
/// - **Hold** (``holdSeconds``, 10 ms): the deepest gain of the last 10 ms is held, so a loud
///   sustained sound down to 50 Hz is not modulated between its peaks (a 1 kHz tone at +12 dB
///   over full scale comes out as the tone itself at the ceiling: −150 dB of distortion).
/// - **Release** (``releaseSeconds``, a 0.05 s time constant): the gain then returns towards 1
///   exponentially and snaps to exactly 1 within 10⁻⁴ (about 0.46 s after the last overload);
///   from there buffers are untouched again.
/// - NaN is written as 0.
///
/// It allocates nothing in ``process(_:)``; limiting costs a few comparisons per frame (measured
/// in `make bench`: `earshot-bench limiter`).
///
/// ```swift
/// var limiter = OutputLimiter(channels: 2, sampleRate: 48_000)
/// var block = [Float](repeating: 3, count: 2 * 800)      // 800 stereo frames at +9.5 dBFS
/// block.withUnsafeMutableBufferPointer { limiter.process($0) }
/// print(limiter.limitedFrames, limiter.deepestReductionDecibels)   // 800 -9.64…
/// ```
public struct OutputLimiter: Sendable {
    /// The ceiling, in dBFS: no sample leaves a limited buffer above it.
    public static let ceilingDecibels: Float = -0.1
    /// The ceiling as a linear amplitude (0.98855).
    public static let ceiling: Float = 0.988_553_1
    /// How far ahead the gain starts falling before an overload.
    public static let lookAheadSeconds = 0.001
    /// How long the deepest recent gain is held before the release starts.
    public static let holdSeconds = 0.010
    /// The release time constant.
    public static let releaseSeconds = 0.05
    /// How close to 1 the released gain snaps to exactly 1 (−0.0009 dB, inaudible).
    static let snapDistance: Float = 1e-4

    /// Interleaved channels per frame.
    public let channels: Int
    /// The ceiling and whether the true peak is held under it (Loudness/LimiterSettings.swift).
    public let settings: LimiterSettings
    /// The ceiling as a linear amplitude (``ceiling`` unless the settings say otherwise).
    public let linearCeiling: Float
    /// The true-peak detector, with ``LimiterSettings/truePeak`` (Loudness/TruePeakDetector.swift).
    private var detector: TruePeakDetector?
    /// Look-ahead and hold in frames.
    let lookAhead: Int
    let hold: Int
    let releaseCoefficient: Float

    /// The gain applied to the last frame processed (1: not limiting).
    public private(set) var gain: Float = 1
    /// Buffers (renders) in which the limiter worked, since it was made.
    public private(set) var limitedRenders = 0
    /// Frames whose gain was below 1, since the limiter was made.
    public private(set) var limitedFrames = 0
    /// The lowest gain it applied, since it was made (1: it never limited).
    public private(set) var deepestGain: Float = 1
    /// The deepest gain reduction, in dB (0 when it never limited; −12 for a quarter).
    public var deepestReductionDecibels: Float { deepestGain >= 1 ? 0 : 20 * log10f(max(deepestGain, 1e-12)) }

    // The sliding window: `required` holds each frame's needed gain (ceiling / its peak, or 1),
    // by absolute frame index masked into a power-of-two ring; `deque` holds absolute indices whose
    // gains rise from front to back (the front is the window's minimum).
    private var required: [Float]
    private var deque: [Int]
    private var dequeHead = 0
    private var dequeCount = 0
    private let mask: Int
    // The moving average of the window minima over the look-ahead.
    private var minima: [Float]
    private var minimaSum: Double
    /// The next frame to process and the next frame whose need is not yet known (absolute).
    private var next = 0
    private var known = 0
    /// The last frame that needed a gain below 1 (absolute); far in the past at rest.
    private var lastNeed = Int.min / 2

    /// A limiter for `channels` interleaved channels at `sampleRate` frames per second.
    public init(channels: Int, sampleRate: Int, settings: LimiterSettings = LimiterSettings()) {
        self.channels = max(1, channels)
        self.settings = settings
        linearCeiling = settings.linearCeiling
        detector = settings.truePeak ? TruePeakDetector(channels: max(1, channels)) : nil
        let rate = Double(max(1, sampleRate))
        lookAhead = max(1, Int((Self.lookAheadSeconds * rate).rounded()))
        hold = max(0, Int((Self.holdSeconds * rate).rounded()))
        releaseCoefficient = Float(exp(-1 / (Self.releaseSeconds * rate)))
        var size = 1
        while size < lookAhead + hold + 2 { size <<= 1 }
        mask = size - 1
        required = [Float](repeating: 1, count: size)
        deque = [Int](repeating: 0, count: size)
        minima = [Float](repeating: 1, count: lookAhead)
        minimaSum = Double(lookAhead)
    }

    /// Whether nothing is held or releasing: a buffer within full scale then passes untouched.
    var isAtRest: Bool { gain == 1 && next - lastNeed > hold + lookAhead }

    /// Whether every sample is a number within ±1 (NaN and infinities are not): eight lanes at
    /// a time, the rest one by one.
    static func withinFullScale(_ samples: UnsafeBufferPointer<Float>) -> Bool { within(samples, limit: 1) }

    /// Whether every sample is a number within ±`limit`.
    static func within(_ samples: UnsafeBufferPointer<Float>, limit: Float) -> Bool {
        guard let base = samples.baseAddress else { return true }
        let lanes = samples.count / 8
        var outside = SIMDMask<SIMD8<Int32>>(repeating: false)
        let one = SIMD8<Float>(repeating: limit)
        for k in 0..<lanes {
            let v = UnsafeRawPointer(base + 8 * k).loadUnaligned(as: SIMD8<Float>.self)
            // NaN compares false with everything: `!(v ≤ 1) or !(v ≥ −1)` catches it.
            outside .|= .!(v .<= one) .| .!(v .>= -one)
        }
        if any(outside) { return false }
        for i in (8 * lanes)..<samples.count where !(abs(base[i]) <= limit) { return false }
        return true
    }

    /// Limits `buffer` (interleaved, whole frames) in place.
    public mutating func process(_ buffer: UnsafeMutableBufferPointer<Float>) {
        guard let base = buffer.baseAddress else { return }
        let c = channels
        let frames = buffer.count / c
        guard frames > 0 else { return }
        detector?.stage(base, frames: frames)
        defer { detector?.commit(base, frames: frames) }
        if isAtRest {
            // Within the ceiling — and, holding the true peak, so far under it that no point
            // between samples can reach it — the buffer passes untouched, bit-identical. The
            // ceiling itself is the limit, not full scale: a buffer arriving at rest with a
            // sample between the two would leave above the ceiling.
            let limit = detector.map { linearCeiling / $0.gainBound } ?? linearCeiling
            if Self.within(UnsafeBufferPointer(start: base, count: frames * c), limit: limit) {
                next += frames
                known = next
                dequeCount = 0
                return
            }
        }
        limitedRenders += 1
        let start = next
        let end = start + frames
        let lookAhead = self.lookAhead, hold = self.hold, mask = self.mask
        let inverseWindow = 1 / Double(lookAhead)
        let ceiling = linearCeiling
        detector?.scan(base, frames: frames, ceiling: linearCeiling / TruePeakDetector.margin)
        let detector = self.detector
        var g = gain
        var deepest = deepestGain
        var limited = 0
        var head = dequeHead, count = dequeCount, sum = minimaSum
        var lastNeed = self.lastNeed
        var known = max(self.known, start)
        required.withUnsafeMutableBufferPointer { req in
        deque.withUnsafeMutableBufferPointer { dq in
        minima.withUnsafeMutableBufferPointer { avg in
            let dqMask = dq.count - 1
            for t in start..<end {
                // Learn the needs of the frames up to the end of the look-ahead (this buffer's end
                // at most), keeping the deque's gains rising from front to back.
                let horizon = min(t + lookAhead, end)
                while known < horizon {
                    let f = (known - start) * c
                    var peak: Float = 0
                    for ch in 0..<c { peak = max(peak, abs(base[f + ch])) }
                    if let detector { peak = max(peak, detector.need(known - start) * TruePeakDetector.margin) }
                    let need: Float = peak > ceiling ? ceiling / peak : 1
                    req[known & mask] = need
                    if need < 1 { lastNeed = known }
                    while count > 0, req[dq[(head + count - 1) & dqMask] & mask] >= need { count -= 1 }
                    dq[(head + count) & dqMask] = known
                    count += 1
                    known += 1
                }
                // Forget what left the held past.
                while count > 0, dq[head] < t - hold {
                    head = (head + 1) & dqMask
                    count -= 1
                }
                let windowMinimum = req[dq[head] & mask]
                // The moving average of the minima over the look-ahead: a linear attack.
                let slot = t % lookAhead
                sum += Double(windowMinimum) - Double(avg[slot])
                avg[slot] = windowMinimum
                let own = req[t & mask]
                var average = Float(sum * inverseWindow)
                if own < average {
                    // Too late for a ramp: this frame's need came into view less than the
                    // look-ahead before it (the start of a buffer). Drop at once to the deepest
                    // need in view, not just this frame's, so that the frames after it (a rising
                    // edge) do not each sit on the ceiling; the average starts over from there.
                    sum = 0
                    for s in 0..<lookAhead {
                        avg[s] = min(avg[s], windowMinimum)
                        sum += Double(avg[s])
                    }
                    average = min(Float(sum * inverseWindow), windowMinimum)
                }
                let target = min(average, own)
                // Release: back towards 1 exponentially, never above the target.
                let released = 1 - (1 - g) * releaseCoefficient
                g = min(target, released)
                if g > 1 - Self.snapDistance, target >= 1 { g = 1 }
                let f = (t - start) * c
                if g < 1 {
                    limited += 1
                    deepest = min(deepest, g)
                    for ch in 0..<c {
                        let v = base[f + ch] * g
                        base[f + ch] = v.isNaN ? 0 : min(max(v, -ceiling), ceiling)
                    }
                } else {
                    // Unlimited frames of a limited buffer: within the ceiling already (their
                    // need is 1), but NaN is still written as 0.
                    for ch in 0..<c where base[f + ch].isNaN { base[f + ch] = 0 }
                }
            }
        }
        }
        }
        // The running sum drifts by rounding: recompute it exactly now and then.
        if limitedRenders & 255 == 0 { sum = minima.reduce(0) { $0 + Double($1) } }
        gain = g
        deepestGain = deepest
        limitedFrames += limited
        dequeHead = head
        dequeCount = count
        minimaSum = sum
        self.lastNeed = lastNeed
        self.known = known
        next = end
    }
}
