import Earshot
import Foundation

/// `earshot-bench limiter`: what the loopback output limiter costs, as a share of one core at
/// 48 kHz stereo. 60 s of a dense mix (three tones and noise) are copied into a game frame's
/// buffer of 800 frames and passed through an ``OutputLimiter``, at +12 dB over full scale (it
/// limits every frame) and at −6 dBFS (at rest: one scan for the peak); the baseline is the copy
/// alone, measured in the same run. Five rounds alternate the three; the lowest CPU of each is kept.
enum LimiterBenchmark {
    static let rate = 48_000
    static let seconds = 60
    static let blockFrames = 800

    static func run(_ arguments: [String]) throws {
        // One second of source material, made once (not timed).
        func mix(level: Float) -> [Float] {
            var noise = SplitMix64(seed: 7)
            return (0..<(rate * 2)).map { i in
                let t = Double(i / 2) / Double(rate)
                let v = sin(2 * .pi * 110 * t) + 0.6 * sin(2 * .pi * 1_000 * t + Double(i % 2)) + 0.4 * sin(2 * .pi * 3_300 * t)
                return level * Float(v / 2 + 0.1 * Double.random(in: -1...1, using: &noise))
            }
        }
        let loud = mix(level: Float(pow(10, 12.0 / 20))), quiet = mix(level: 0.5)
        var block = [Float](repeating: 0, count: blockFrames * 2)
        let blocksPerSecond = rate / blockFrames
        /// CPU seconds to copy (and limit, with a limiter) `seconds` of `source` block by block.
        func pass(_ source: [Float], limiter: inout OutputLimiter?) -> Double {
            let start = Clocks.threadCPU()
            for s in 0..<seconds {
                for b in 0..<blocksPerSecond {
                    let offset = ((b + s) % blocksPerSecond) * blockFrames * 2
                    block.withUnsafeMutableBufferPointer { dst in
                        source.withUnsafeBufferPointer { src in
                            guard let d = dst.baseAddress, let s = src.baseAddress else { return }
                            d.update(from: s + offset, count: blockFrames * 2)
                        }
                        limiter?.process(dst)
                    }
                }
            }
            return Clocks.threadCPU() - start
        }
        var copy = Double.infinity, limiting = Double.infinity, atRest = Double.infinity
        var limitedFrames = 0
        for _ in 0..<5 {
            var none: OutputLimiter? = nil
            copy = min(copy, pass(loud, limiter: &none))
            var l: OutputLimiter? = OutputLimiter(channels: 2, sampleRate: rate)
            limiting = min(limiting, pass(loud, limiter: &l))
            limitedFrames = l?.limitedFrames ?? 0
            var r: OutputLimiter? = OutputLimiter(channels: 2, sampleRate: rate)
            atRest = min(atRest, pass(quiet, limiter: &r))
            precondition(r?.limitedFrames == 0, "the quiet mix must not be limited")
        }
        let audio = Double(seconds)
        print("output limiter, 48 kHz stereo, \(blockFrames)-frame blocks, \(seconds) s of audio (lowest of 5 rounds):")
        print(String(format: "  copy alone (baseline):          %7.2f ms of CPU per second of audio", copy / audio * 1e3))
        print(String(format: "  limiting (+12 dB, every frame): %7.2f ms per second: the limiter %.2f ms, %.3f %% of one core (%d of %d frames limited)",
                     limiting / audio * 1e3, (limiting - copy) / audio * 1e3, (limiting - copy) / audio * 100,
                     limitedFrames, seconds * rate))
        print(String(format: "  at rest (−6 dBFS, untouched):   %7.2f ms per second: the limiter %.2f ms, %.3f %% of one core",
                     atRest / audio * 1e3, (atRest - copy) / audio * 1e3, (atRest - copy) / audio * 100))
    }

}
