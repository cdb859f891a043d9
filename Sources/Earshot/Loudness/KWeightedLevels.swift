import Foundation

/// A clip's K-weighted power envelope (BS.1770's pre-filter and RLB high-pass, as libebur128
/// runs them), measured once when the clip is loaded, beside its unweighted ``ClipLevels`` and
/// on the same blocks. The live per-bus loudness (``BusLoudness``) reads it at each voice's
/// playhead, since OpenAL mixes every bus into one output and no per-bus signal exists.
///
/// A block's value is the SUM over the clip's channels of their K-weighted mean squares
/// (BS.1770 weighs left and right 1), so a stereo clip played at unity reads as the output
/// meter would; a mono clip reads its one channel's power (see the Loudness article).
struct KWeightedLevels {
    private(set) var blockFrames: Int = 0
    private(set) var frames: Int = 0
    /// K-weighted power of each block, full scale 1.
    private(set) var power: [Float] = []

    static let empty = KWeightedLevels()

    var byteCount: Int { power.count * MemoryLayout<Float>.stride }

    /// The K-weighted power of the block holding clip frame `frame`; 0 outside the clip.
    @inline(__always)
    func power(at frame: Double) -> Float {
        guard blockFrames > 0, frame >= 0, frame < Double(frames) else { return 0 }
        let block = Int(frame) / blockFrames
        return block < power.count ? power[block] : 0
    }

    /// Measures `pcm` (the filters run once per clip; allocates the envelope and one filter
    /// state per channel).
    static func measure(_ pcm: PCMAudio) -> KWeightedLevels {
        let channels = pcm.channels, frames = pcm.frameCount
        guard channels > 0, frames > 0, pcm.sampleRate > 0 else { return .empty }
        var levels = KWeightedLevels()
        levels.blockFrames = ClipLevels.blockFrames(sampleRate: pcm.sampleRate,
                                                    bytesPerFrame: channels * pcm.samples.bytesPerSample)
        levels.frames = frames
        levels.power.reserveCapacity((frames + levels.blockFrames - 1) / levels.blockFrames)
        var filters = [KFilter](repeating: KFilter(sampleRate: Double(pcm.sampleRate)), count: channels)
        switch pcm.samples {
        case .int16(let s):
            s.withUnsafeBufferPointer { levels.fill(from: $0, channels: channels, scale: 1.0 / 32768, filters: &filters) }
        case .float32(let s):
            s.withUnsafeBufferPointer { levels.fill(from: $0, channels: channels, scale: 1, filters: &filters) }
        }
        return levels
    }

    private mutating func fill<S: LevelSample>(from samples: UnsafeBufferPointer<S>, channels: Int, scale: Double,
                                               filters: inout [KFilter]) {
        let totalFrames = samples.count / channels
        var start = 0
        while start < totalFrames {
            let end = min(totalFrames, start + blockFrames)
            var sum = 0.0
            for f in start..<end {
                for c in 0..<channels {
                    let y = filters[c].process(samples[f * channels + c].doubleValue * scale)
                    sum += y * y
                }
            }
            let mean = sum / Double(end - start)
            // A NaN or infinite sample poisons the filter state: the rest of the clip reads silence.
            if !mean.isFinite { for c in filters.indices { filters[c].reset() } }
            power.append(mean.isFinite ? Float(mean) : 0)
            start = end
        }
    }
}

/// BS.1770's K filter: the high-shelf pre-filter and the RLB high-pass, two biquads, with
/// coefficients for any rate computed as libebur128 does.
struct KFilter {
    private var b: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)
    private var a: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)
    private var v: (Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0)

    init(sampleRate rate: Double) {
        var f0 = 1681.974450955533
        let g = 3.999843853973347
        var q = 0.7071752369554196
        var k = tan(Double.pi * f0 / rate)
        let vh = pow(10.0, g / 20), vb = pow(vh, 0.4996667741545416)
        let a0 = 1 + k / q + k * k
        let pb = ((vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0)
        let pa = (1.0, 2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)
        f0 = 38.13547087602444
        q = 0.5003270373238773
        k = tan(Double.pi * f0 / rate)
        let rb = (1.0, -2.0, 1.0)
        let ra = (1.0, 2 * (k * k - 1) / (1 + k / q + k * k), (1 - k / q + k * k) / (1 + k / q + k * k))
        // The two biquads as one fourth-order filter (libebur128's form).
        b = (pb.0 * rb.0, pb.0 * rb.1 + pb.1 * rb.0, pb.0 * rb.2 + pb.1 * rb.1 + pb.2 * rb.0,
             pb.1 * rb.2 + pb.2 * rb.1, pb.2 * rb.2)
        a = (pa.0 * ra.0, pa.0 * ra.1 + pa.1 * ra.0, pa.0 * ra.2 + pa.1 * ra.1 + pa.2 * ra.0,
             pa.1 * ra.2 + pa.2 * ra.1, pa.2 * ra.2)
    }

    mutating func reset() { v = (0, 0, 0, 0, 0) }

    /// One sample through the filter (direct form II, as libebur128).
    @inline(__always)
    mutating func process(_ x: Double) -> Double {
        v.0 = x - a.1 * v.1 - a.2 * v.2 - a.3 * v.3 - a.4 * v.4
        let y = b.0 * v.0 + b.1 * v.1 + b.2 * v.2 + b.3 * v.3 + b.4 * v.4
        v.4 = v.3; v.3 = v.2; v.2 = v.1; v.1 = v.0
        return y
    }
}
