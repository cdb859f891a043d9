extension PCMAudio {
    /// Channel `channel` (0-based) of the audio on its own, as mono audio of the same sample
    /// type and rate: what a stereo clip's channel buffers hold (a 2D stereo voice plays each
    /// channel on a source of its own, so that `pan` is a balance: Voices/VoicePool+Balance.swift).
    /// Mono audio is returned unchanged.
    func channel(_ channel: Int) -> PCMAudio {
        guard channels > 1 else { return self }
        precondition(channel >= 0 && channel < channels, "channel out of range")   // trap: callers pass 0 or 1 of a stereo clip
        switch samples {
        case .int16(let s): return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .int16(Self.pick(channel, of: channels, s)))
        case .float32(let s): return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .float32(Self.pick(channel, of: channels, s)))
        }
    }

    /// Every `count`-th sample of `interleaved` from `channel` on.
    private static func pick<T>(_ channel: Int, of count: Int, _ interleaved: [T]) -> [T] {
        let n = interleaved.count / count
        return [T](unsafeUninitializedCapacity: n) { buffer, initialized in
            interleaved.withUnsafeBufferPointer { src in
                for f in 0..<n { buffer.initializeElement(at: f, to: src[f * count + channel]) }
            }
            initialized = n
        }
    }
}
