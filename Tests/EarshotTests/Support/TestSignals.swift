import Earshot
import Foundation

/// Signals and measurements shared by the tests: tones, RMS per channel, decibels.
enum TestSignals {
    /// A mono 16-bit sine of `seconds` at `frequency`, amplitude `amplitude` (0…1).
    static func sine(frequency: Double = 1_000, amplitude: Double = 0.5, seconds: Double = 1, sampleRate: Int = 48_000) -> PCMAudio {
        let n = Int(seconds * Double(sampleRate))
        let samples = (0..<n).map { i in
            Int16((amplitude * 32767 * sin(2 * .pi * frequency * Double(i) / Double(sampleRate))).rounded())
        }
        return PCMAudio(sampleRate: sampleRate, channels: 1, samples: .int16(samples))
    }

    /// RMS of each channel of interleaved samples.
    static func rms(_ samples: [Float], channels: Int) -> [Double] {
        var sums = [Double](repeating: 0, count: channels)
        let frames = samples.count / channels
        for f in 0..<frames {
            for c in 0..<channels {
                let v = Double(samples[f * channels + c])
                sums[c] += v * v
            }
        }
        return sums.map { frames > 0 ? ($0 / Double(frames)).squareRoot() : 0 }
    }

    /// RMS of `x[range]` taken as one stream of samples (interleaved channels together), the
    /// range clamped to `x`; 0 when nothing is left.
    static func rms(_ x: [Float], _ range: Range<Int>) -> Double {
        let r = max(0, range.lowerBound)..<min(x.count, range.upperBound)
        guard !r.isEmpty else { return 0 }
        return (r.reduce(0.0) { $0 + Double(x[$1]) * Double(x[$1]) } / Double(r.count)).squareRoot()
    }

    static func dB(_ x: Double) -> Double { 20 * log10(max(x, 1e-12)) }

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
