import Earshot
import Foundation

/// `earshot-bench loudness`: what loudness metering costs, as a share of one core at 48 kHz
/// stereo, fed in 800-frame game-frame blocks: nine live meters (the master and 8 buses' worth:
/// momentary, short-term, bounded integrated, LRA, sample peak — what ``AudioEngine/setLoudnessMetering(_:)``
/// runs), one render meter (with the 4× true peak, what `earshot render` runs), and the output
/// limiter holding a true-peak ceiling against the sample-peak one on a mix it limits every frame.
/// Lowest CPU of 3 rounds.
enum LoudnessBenchmark {
    static let rate = 48_000
    static let seconds = 30
    static let blockFrames = 800

    static func run(_ arguments: [String]) throws {
        var noise = SplitMix64(seed: 11)
        func mix(level: Double) -> [Float] {
            (0..<(rate * 2)).map { i in
                let t = Double(i / 2) / Double(rate)
                let v = sin(2 * .pi * 110 * t) + 0.6 * sin(2 * .pi * 1_000 * t + Double(i % 2)) + 0.4 * sin(2 * .pi * 3_300 * t)
                return Float(level * (v / 2 + 0.2 * Double.random(in: -1...1, using: &noise)))
            }
        }
        let source = mix(level: 0.3), loud = mix(level: 4)
        let blocksPerSecond = rate / blockFrames
        var block = [Float](repeating: 0, count: blockFrames * 2)
        /// CPU seconds to copy `seconds` of `from` block by block and hand each block to `body`.
        func pass(_ from: [Float], _ body: (UnsafeMutableBufferPointer<Float>) throws -> Void) rethrows -> Double {
            let start = Clocks.threadCPU()
            for s in 0..<seconds {
                for b in 0..<blocksPerSecond {
                    let offset = ((b + s) % blocksPerSecond) * blockFrames * 2
                    try block.withUnsafeMutableBufferPointer { dst in
                        from.withUnsafeBufferPointer { src in
                            guard let d = dst.baseAddress, let s = src.baseAddress else { return }
                            d.update(from: s + offset, count: blockFrames * 2)
                        }
                        try body(dst)
                    }
                }
            }
            return Clocks.threadCPU() - start
        }
        var copy = Double.infinity, live = Double.infinity, render = Double.infinity
        var samplePeakLimiter = Double.infinity, truePeakLimiter = Double.infinity, copyLoud = Double.infinity
        for _ in 0..<3 {
            copy = min(copy, pass(source) { _ in })
            let meters = try (0..<9).map { _ in try LoudnessMeter(channels: 2, sampleRate: rate, truePeak: false, bounded: true) }
            live = min(live, try pass(source) { b in for m in meters { try m.add(UnsafeBufferPointer(b)) } })
            let renderMeter = try LoudnessMeter(channels: 2, sampleRate: rate)
            render = min(render, try pass(source) { b in try renderMeter.add(UnsafeBufferPointer(b)) })
            copyLoud = min(copyLoud, pass(loud) { _ in })
            var plain = OutputLimiter(channels: 2, sampleRate: rate, settings: LimiterSettings(ceiling: -1))
            samplePeakLimiter = min(samplePeakLimiter, pass(loud) { plain.process($0) })
            var tp = OutputLimiter(channels: 2, sampleRate: rate, settings: LimiterSettings(ceiling: -1, truePeak: true))
            truePeakLimiter = min(truePeakLimiter, pass(loud) { tp.process($0) })
        }
        let estimate = try busEstimateCPU()
        let audio = Double(seconds)
        func share(_ cpu: Double, _ base: Double) -> String {
            String(format: "%.2f ms of CPU per second of audio, %.3f %% of one core", (cpu - base) / audio * 1e3, (cpu - base) / audio * 100)
        }
        print("loudness metering, 48 kHz stereo, \(blockFrames)-frame blocks, \(seconds) s of audio (lowest of 3 rounds; the copy alone subtracted):")
        print("  9 live meters (master + 8 buses; M, S, I, LRA, sample peak): " + share(live, copy))
        print("  1 live meter:                                                " + share(copy + (live - copy) / 9, copy))
        print("  1 render meter (with 4× true peak):                          " + share(render, copy))
        print("  8 bus estimates + master estimate (64 voices, 60 frames/s): " + share(estimate, 0))
        print("  master live meter + 8 bus estimates (the live path):         " + share(copy + (live - copy) / 9 + estimate, copy))
        print("  output limiter, sample-peak ceiling, limiting every frame:   " + share(samplePeakLimiter, copyLoud))
        print("  output limiter, true-peak ceiling, limiting every frame:     " + share(truePeakLimiter, copyLoud))
    }

    /// CPU seconds the live per-bus loudness (``AudioEngine/loudness(of:)``) takes over
    /// `seconds` of 60 Hz game frames: a loopback engine with 8 buses (the 5 built in and 3
    /// more), 64 looping voices spread over them; lowest of 3 rounds.
    static func busEstimateCPU() throws -> Double {
        let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: rate)))
        defer { engine.shutdown() }
        let extra = [Bus("footsteps"), Bus("vehicles"), Bus("weapons")]
        for b in extra { try engine.addBus(b) }
        let buses: [Bus] = [.sfx, .music, .voice, .ambience, .ui] + extra
        let n = rate
        let tone = PCMAudio(sampleRate: rate, channels: 2, samples: .float32((0..<(2 * n)).map { i in
            Float(0.1 * sin(2 * .pi * 440 * Double(i / 2) / Double(rate))) }))
        let clip = try engine.loadClip(tone, name: "tone")
        for v in 0..<64 { _ = try engine.play(clip, options: PlayOptions(gain: 0.5, loop: true, bus: buses[v % buses.count])) }
        engine.update()
        _ = try engine.render(frames: blockFrames)
        var best = Double.infinity
        for round in 0..<3 {
            let start = Clocks.threadCPU()
            engine.stepBusLoudnessForBenchmark(from: Double(1 + round * (seconds + 1)), count: seconds * 60, interval: 1.0 / 60)
            best = min(best, Clocks.threadCPU() - start)
        }
        // The estimate measured something: every bus is heard (else the figure would time nothing).
        let quietest = try buses.map { try engine.loudness(of: $0).momentary }.min() ?? -.infinity
        guard quietest > -60 else { throw EarshotError.invalidArgument("bus estimate bench: a bus read \(quietest) LUFS") }
        print(String(format: "  (bus estimates read %.1f LUFS on the quietest bus, %.1f on the master)",
                     quietest, try engine.masterLoudness().momentary))
        return best
    }
}
