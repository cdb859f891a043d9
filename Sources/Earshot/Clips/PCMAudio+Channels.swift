extension PCMAudio {
    /// Channel `channel` (0-based) of the audio on its own, as mono audio of the same sample
    /// type and rate: what a stereo clip's channel buffers hold (a 2D stereo voice with a
    /// balance plays each channel on a source of its own, Spatial/StereoImage.swift). Mono audio
    /// is returned unchanged.
    func channel(_ channel: Int) -> PCMAudio {
        guard channels > 1 else { return self }
        precondition(channel >= 0 && channel < channels, "channel out of range")   // trap: callers pass 0 or 1 of a stereo clip
        let n = frameCount, c = channels
        switch samples {
        case .int16(let s):
            let out = [Int16](unsafeUninitializedCapacity: n) { buffer, count in
                s.withUnsafeBufferPointer { src in
                    for f in 0..<n { buffer[f] = src[f * c + channel] }
                }
                count = n
            }
            return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .int16(out))
        case .float32(let s):
            let out = [Float](unsafeUninitializedCapacity: n) { buffer, count in
                s.withUnsafeBufferPointer { src in
                    for f in 0..<n { buffer[f] = src[f * c + channel] }
                }
                count = n
            }
            return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .float32(out))
        }
    }
}
