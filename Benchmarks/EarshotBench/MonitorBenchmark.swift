import Earshot
import Foundation
import Synchronization

/// `earshot-bench monitor [VOICES] [FRAMES]`: what the live monitor costs a game frame. A game
/// frame here is what a game does with Earshot at 60 Hz: move every emitter (one batch), `update`,
/// render 1/60 s (800 frames) on a loopback engine, paced at 60 frames a second of wall time as a
/// game is (so the monitor's 10 Hz captures fall every sixth frame, as they would). VOICES looping
/// voices (default 1,024) on as many moving emitters; the game thread's CPU per frame, monitor off
/// against monitor on with a client attached (a thread of this process reading every line; it
/// counts the frames without decoding them, as a client in its own process would cost the game
/// nothing for its decoding). Rounds alternate off and on; the mean frame of each round (captures fall on every sixth
/// frame), the lowest round of each side. The monitor thread's and the client's CPU are reported apart (they run beside the game).
enum MonitorBenchmark {
    struct Round {
        var updateMs: Double
        var frameMs: Double
        var processMs: Double
        var framesSeen: Int
        /// The monitor's own CPU per capture on the game's thread (`engine.monitorMs`), mean.
        var captureMs: Double
    }

    static func run(_ arguments: [String]) throws {
        let voices = arguments.first.flatMap(Int.init) ?? 1_024
        let frames = arguments.dropFirst().first.flatMap(Int.init) ?? 300
        guard (1...4_000).contains(voices), (10...100_000).contains(frames) else {
            throw EarshotError.invalidArgument("earshot-bench monitor [VOICES 1…4000] [FRAMES 10…100000]")
        }
        print("monitor cost, \(voices) looping voices on moving emitters, 48 kHz stereo loopback, \(frames) game frames at 60 Hz per round:")
        var off: [Round] = [], on: [Round] = []
        for _ in 0..<3 {
            off.append(try round(voices: voices, frames: frames, monitor: false))
            on.append(try round(voices: voices, frames: frames, monitor: true))
        }
        func best(_ rounds: [Round]) -> Round { rounds.min { $0.frameMs < $1.frameMs } ?? rounds[0] }
        let a = best(off), b = best(on)
        for (name, r) in [("monitor off", a), ("monitor on, 1 client", b)] {
            let label = "  " + name + String(repeating: " ", count: max(0, 22 - name.count))
            print(label + String(format: " update %.3f ms, game frame (move + update + render) %.3f ms of the game thread's CPU; whole process %.3f ms per frame",
                                 r.updateMs, r.frameMs, r.processMs)
                  + (r.framesSeen > 0 ? " (the client read \(r.framesSeen) monitor frames)" : ""))
        }
        print(String(format: "  the monitor's cost to the game thread: %+.3f ms per frame = %+.2f %% of a game frame (update alone %+.3f ms)",
                     b.frameMs - a.frameMs, (b.frameMs - a.frameMs) / a.frameMs * 100, b.updateMs - a.updateMs))
        print(String(format: "  the monitor's own work in update, measured by the monitor: %.3f ms per capture, %d captures a second in %d game frames: %.3f ms per game frame = %.2f %% of a game frame",
                     b.captureMs, Int(MonitorProtocol.defaultRate), 60, b.captureMs * MonitorProtocol.defaultRate / 60,
                     b.captureMs * MonitorProtocol.defaultRate / 60 / a.frameMs * 100))
        print(String(format: "  beside it (the monitor's thread: capture to JSON, writes; and the client's reads): %+.3f ms of process CPU per frame",
                     (b.processMs - b.frameMs) - (a.processMs - a.frameMs)))
    }

    static func round(voices: Int, frames: Int, monitor: Bool) throws -> Round {
        var configuration = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000), maxRealVoices: voices)
        configuration.monitor = monitor
        let engine = try AudioEngine(configuration: configuration)
        defer { engine.shutdown() }
        let tone = PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(
            (0..<48_000).map { Float(0.01 * sin(2 * Double.pi * 220 * Double($0) / 48_000)) }))
        let clip = try engine.loadClip(tone, name: "tone")
        var emitters: [Emitter] = []
        for i in 0..<voices {
            let e = try engine.makeEmitter(SpatialProperties(position: Vector3(Float(i % 32) - 16, 0, -Float(i / 32))))
            emitters.append(e)
            _ = try engine.play(clip, options: .init(loop: true, emitter: e))
        }
        let seen = Atomic<Int>(0)
        let kept = Mutex<[[UInt8]]>([])
        let stop = Atomic<Bool>(false)
        let reader = DispatchSemaphore(value: 0)
        if monitor, let path = engine.monitorSocketPath {
            Thread.detachNewThread {
                guard let client = try? MonitorClient(path: path) else { reader.signal(); return }
                while !stop.load(ordering: .relaxed) {
                    // Lines are counted, not decoded: a real client is another process, and its
                    // decoding is no cost of the game's.
                    guard let line = try? client.nextLine(timeout: 0.1) else { continue }
                    if line.starts(with: Array(#"{"buses""#.utf8)) {
                        seen.add(1, ordering: .relaxed)
                        kept.withLock { if $0.count < 400 { $0.append(line) } }   // decoded after the round
                    }
                }
                client.close()
                reader.signal()
            }
            for _ in 0..<2_000 where engine.monitorClientCount == 0 { engine.update(deltaTime: 0); usleep(1_000) }
        }
        var buffer = [Float](repeating: 0, count: 800 * 2)
        var updates: [Double] = [], totals: [Double] = []
        let process0 = Clocks.processCPU()
        let start = Clocks.monotonic()
        for f in 0..<frames {
            let t = Double(f) / 60
            let c0 = Clocks.threadCPU()
            engine.batch { b in
                for (i, e) in emitters.enumerated() {
                    let a = Float(t) + Float(i) * 0.1
                    b.setPosition(Vector3(cos(a) * 8, 0, sin(a) * 8 - 4), of: e)
                }
            }
            let u0 = Clocks.threadCPU()
            engine.update(deltaTime: 1.0 / 60)
            let u1 = Clocks.threadCPU()
            try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
            let c1 = Clocks.threadCPU()
            updates.append(u1 - u0)
            totals.append(c1 - c0)
            let due = start + Double(f + 1) / 60
            let now = Clocks.monotonic()
            if due > now { usleep(useconds_t((due - now) * 1e6)) }
        }
        let processMs = (Clocks.processCPU() - process0) / Double(frames) * 1000
        stop.store(true, ordering: .relaxed)
        if monitor { reader.wait() }
        // The mean, not the median: the monitor captures every sixth frame, and a median would
        // pick a frame without a capture.
        func mean(_ v: [Double]) -> Double { v.reduce(0, +) / Double(v.count) * 1000 }
        let captures = kept.withLock { $0 }.compactMap { line -> Double? in
            guard case .frame(let f)? = try? MonitorMessage.decode(line: line) else { return nil }
            return f.engine.monitorMs
        }
        return Round(updateMs: mean(updates), frameMs: mean(totals), processMs: processMs,
                     framesSeen: seen.load(ordering: .relaxed),
                     captureMs: captures.isEmpty ? 0 : captures.reduce(0, +) / Double(captures.count))
    }
}
