/// A clip's level envelope: the RMS of each block of about 10 ms (power averaged over the
/// channels), measured once when the clip is uploaded. The sidechain reads it at each voice's
/// playhead to know how loud a bus is, since OpenAL gives no per-bus signal.
///
/// A block is 10 ms, made longer for clips of low rate or few bytes per frame so that its 4
/// bytes stay under 0.5 % of the samples it stands for (a 48 kHz mono 16-bit clip: 480 frames,
/// 960 bytes, per block; 0.42 %). With the last block partial, the envelope stays under 1 % of
/// any clip at least two blocks long.
struct ClipLevels {
    /// Frames per block (0 for an empty envelope).
    private(set) var blockFrames: Int = 0
    /// The clip's frames.
    private(set) var frames: Int = 0
    /// RMS of each block, full scale 1.
    private(set) var rms: [Float] = []

    static let empty = ClipLevels()

    /// Bytes the envelope's values take.
    var byteCount: Int { rms.count * MemoryLayout<Float>.stride }

    /// The power (RMS²) of the block holding clip frame `frame`; 0 outside the clip or for an
    /// empty envelope.
    @inline(__always)
    func power(at frame: Double) -> Float {
        guard blockFrames > 0, frame >= 0, frame < Double(frames) else { return 0 }
        let block = Int(frame) / blockFrames
        guard block < rms.count else { return 0 }
        let r = rms[block]
        return r * r
    }

    /// Frames per block for audio of `sampleRate` Hz and `bytesPerFrame`: 10 ms, or more when
    /// 10 ms would be 800 bytes or fewer.
    static func blockFrames(sampleRate: Int, bytesPerFrame: Int) -> Int {
        let tenMilliseconds = max(1, (sampleRate + 50) / 100)
        return max(tenMilliseconds, 800 / max(1, bytesPerFrame) + 1)
    }

    /// Measures `pcm`, allocating nothing but the envelope's own array.
    static func measure(_ pcm: PCMAudio) -> ClipLevels {
        let channels = pcm.channels, frames = pcm.frameCount
        guard channels > 0, frames > 0 else { return .empty }
        let block = blockFrames(sampleRate: pcm.sampleRate, bytesPerFrame: channels * pcm.samples.bytesPerSample)
        var levels = ClipLevels()
        levels.blockFrames = block
        levels.frames = frames
        levels.rms.reserveCapacity((frames + block - 1) / block)
        switch pcm.samples {
        case .int16(let s):
            s.withUnsafeBufferPointer { levels.fill(from: $0, channels: channels, scale: 1.0 / 32768) }
        case .float32(let s):
            s.withUnsafeBufferPointer { levels.fill(from: $0, channels: channels, scale: 1) }
        }
        return levels
    }

    private mutating func fill<S: LevelSample>(from samples: UnsafeBufferPointer<S>, channels: Int, scale: Double) {
        let total = samples.count
        let blockSamples = blockFrames * channels
        var start = 0
        while start < total {
            let end = min(total, start + blockSamples)
            var sum = 0.0
            for i in start..<end {
                let x = samples[i].doubleValue * scale
                sum += x * x
            }
            let mean = sum / Double(end - start)
            // A NaN or infinite sample in a float clip counts as silence rather than poison the sum.
            rms.append(mean.isFinite ? Float(mean.squareRoot()) : 0)
            start = end
        }
    }
}

/// The two sample types of ``PCMAudio``, read as `Double`.
protocol LevelSample {
    var doubleValue: Double { get }
}

extension Int16: LevelSample {
    @inline(__always) var doubleValue: Double { Double(self) }
}

extension Float: LevelSample {
    @inline(__always) var doubleValue: Double { Double(self) }
}
