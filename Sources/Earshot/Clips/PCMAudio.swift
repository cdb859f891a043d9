/// Decoded audio in memory: interleaved samples, a sample rate and a channel count.
///
/// This is what every decoder in Earshot produces and what is uploaded into an OpenAL buffer:
/// 16-bit integers for integer sources, 32-bit floats where the source is floating point.
/// It needs no OpenAL: decoders can be used on their own.
///
/// ```swift
/// let audio = try SndFileDecoder.decode(path: "Assets/Sounds/step.wav")
/// print(audio.frameCount, audio.sampleRate, audio.channels)
/// ```
public struct PCMAudio: Sendable, Equatable {
    /// The interleaved samples, in the representation uploaded to OpenAL.
    public enum Samples: Sendable, Equatable {
        case int16([Int16])
        case float32([Float])

        /// The number of samples (frames × channels).
        public var count: Int {
            switch self {
            case .int16(let s): return s.count
            case .float32(let s): return s.count
            }
        }

        /// Bytes one sample takes.
        public var bytesPerSample: Int {
            switch self {
            case .int16: return 2
            case .float32: return 4
            }
        }
    }

    /// Frames per second.
    public var sampleRate: Int
    /// Channels per frame (1 = mono, 2 = stereo).
    public var channels: Int
    /// Interleaved samples; `samples.count` is a multiple of `channels`.
    public var samples: Samples
    /// Set when the file was shorter than its container said and was decoded leniently
    /// (``ClipDecoder/Options/allowsTruncated``): what was expected and found. Nil otherwise.
    public var truncation: Truncation?

    public init(sampleRate: Int, channels: Int, samples: Samples) {
        precondition(
            channels > 0 && samples.count % channels == 0,
            "PCMAudio: sample count \(samples.count) is not a multiple of \(channels) channels")
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Frames (samples per channel).
    public var frameCount: Int { samples.count / channels }
    /// Duration in seconds.
    public var duration: Double { sampleRate > 0 ? Double(frameCount) / Double(sampleRate) : 0 }
    /// Bytes the samples take in memory (and in an OpenAL buffer).
    public var byteCount: Int { samples.count * samples.bytesPerSample }

    /// The samples as floats in −1…1 (16-bit values are divided by 32768).
    public func floatSamples() -> [Float] {
        switch samples {
        case .float32(let s): return s
        case .int16(let s): return s.map { Float($0) / 32768 }
        }
    }

    /// The audio mixed down to one channel.
    ///
    /// Rule: the mono sample is the mean of the frame's channels (so a stereo clip with the same
    /// signal in both channels keeps its level, and a hard-panned one loses 6 dB). 16-bit results
    /// are rounded to nearest. Mono audio is returned unchanged.
    public func downmixedToMono() -> PCMAudio {
        guard channels > 1 else { return self }
        let n = frameCount, c = channels
        switch samples {
        case .int16(let s):
            var out = [Int16](repeating: 0, count: n)
            s.withUnsafeBufferPointer { src in
                for f in 0..<n {
                    var sum = 0
                    for ch in 0..<c { sum += Int(src[f * c + ch]) }
                    out[f] = Int16(clamping: Int((Double(sum) / Double(c)).rounded()))
                }
            }
            return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .int16(out))
        case .float32(let s):
            var out = [Float](repeating: 0, count: n)
            let scale = 1 / Float(c)
            s.withUnsafeBufferPointer { src in
                for f in 0..<n {
                    var sum: Float = 0
                    for ch in 0..<c { sum += src[f * c + ch] }
                    out[f] = sum * scale
                }
            }
            return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .float32(out))
        }
    }
}
