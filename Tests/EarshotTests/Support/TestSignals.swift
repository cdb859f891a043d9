import Earshot
import Foundation

/// Signals the tests share: tones, loopback engines, renders in game frames (levels: EarshotMeasure's `Level`).
enum TestSignals {
    /// A mono 16-bit sine of `seconds` at `frequency`, amplitude `amplitude` (0…1).
    static func sine(frequency: Double = 1_000, amplitude: Double = 0.5, seconds: Double = 1, sampleRate: Int = 48_000) -> PCMAudio {
        let n = Int(seconds * Double(sampleRate))
        let samples = (0..<n).map { i in
            Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double(i) / Double(sampleRate))).rounded())
        }
        return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .int16(samples))
    }

    /// `frames` of 16-bit stereo at 48 kHz: a tone of `left.hz` in the left channel and one of
    /// `right.hz` in the right, at their amplitudes (0…1 of 32,000).
    static func stereoTones(left: (hz: Double, amplitude: Double), right: (hz: Double, amplitude: Double),
                            frames: Int) -> PCMAudio {
        var s = [Int16](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let t = Double(i) / 48_000
            s[2 * i] = Int16((left.amplitude * 32_000 * sin(2 * .pi * left.hz * t)).rounded())
            s[2 * i + 1] = Int16((right.amplitude * 32_000 * sin(2 * .pi * right.hz * t)).rounded())
        }
        return PCMAudio(sampleRate: 48_000, channels: 2, samples: .int16(s))
    }

    /// One second of seeded white noise (xorshift), about −12 dBFS: the same samples every run.
    static func whiteNoise(sampleRate: Int = 48_000) -> PCMAudio {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let samples = (0..<sampleRate).map { _ -> Int16 in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int16(truncatingIfNeeded: Int64(bitPattern: state) >> 50)
        }
        return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .int16(samples))
    }

    /// Renders `seconds` of a loopback engine the way a game does — `update`, then one 60 Hz
    /// frame — and returns the interleaved samples.
    @discardableResult
    static func renderFrames(_ e: AudioEngine, seconds: Double) throws -> [Float] {
        var out: [Float] = []
        let frame = e.sampleRate / 60
        for _ in 0..<Int((seconds * 60).rounded()) {
            e.update()
            out += try e.render(frames: frame)
        }
        return out
    }

    /// Renders `seconds` of a 48 kHz loopback engine in game frames of 1/60 s (800 frames, the
    /// last one shorter), with an `update` before each; interleaved stereo.
    @discardableResult
    static func renderGameFrames(_ e: AudioEngine, seconds: Double) throws -> [Float] {
        var out: [Float] = []
        var left = Int((seconds * 48_000).rounded())
        while left > 0 {
            e.update()
            let n = min(800, left)
            out += try e.render(frames: n)
            left -= n
        }
        return out
    }

    /// A loopback engine at 48 kHz stereo with `realVoices` sources and `virtualVoices` voices.
    static func loopbackEngine(realVoices: Int, virtualVoices: Int = 4096) throws -> AudioEngine {
        try loopbackEngine {
            $0.maxRealVoices = realVoices
            $0.maxVirtualVoices = virtualVoices
        }
    }

    /// A loopback engine at 48 kHz stereo.
    static func loopbackEngine(_ configure: (inout AudioEngine.Configuration) -> Void = { _ in }) throws -> AudioEngine {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        configure(&config)
        return try AudioEngine(configuration: config)
    }
}
