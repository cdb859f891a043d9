// Ambisonic beds benchmark, mode `beds`:
//   earshot-bench beds [--seconds 60] [--long 600]
import Earshot
import Foundation

/// The cost of one streamed bed per order on a 48 kHz stereo loopback engine, rendered in 10 ms
/// blocks: the render's CPU per second and the streamer's (decode + the loudspeaker decode step),
/// against the same number of plain looping mono voices at the loudspeakers' places (what the
/// bed's sources cost OpenAL without Earshot's decode) in the same run. Then a streamed
/// third-order bed for `--long` seconds (default 600): underruns, and resident memory at its
/// start and end.
enum BedsBenchmark {
    enum Failure: Error { case usage(String), failed(String) }

    static func run(_ arguments: [String]) throws {
        var seconds = 60.0, long = 600.0
        var i = 0
        while i < arguments.count {
            let value = i + 1 < arguments.count ? Double(arguments[i + 1]) : nil
            switch arguments[i] {
            case "--seconds": seconds = value ?? seconds; i += 1
            case "--long": long = value ?? long; i += 1
            default: throw Failure.usage("unknown argument \(arguments[i]); usage: beds [--seconds S] [--long S]")
            }
            i += 1
        }
        guard seconds > 0, long >= 0 else { throw Failure.usage("--seconds > 0, --long ≥ 0") }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bedsbench-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        print("beds benchmark: one streamed bed looping a 10 s AmbiX noise file, \(Int(seconds)) s rendered per case, 48 kHz stereo loopback, 10 ms renders")
        print("  case                          sources  render ms/s  streamer ms/s  same voices ms/s  bed / voices")
        for (order, hrtf, label) in [(1, true, "order 1, B-format (HRTF)"), (1, false, "order 1, 6 loudspeakers"),
                                     (2, false, "order 2, 12 loudspeakers"), (3, false, "order 3, 24 loudspeakers"),
                                     (3, true, "order 3, 24 loudspeakers HRTF")] {
            let path = try file(order: order, in: scratch)
            let bed = try measure(seconds: seconds, hrtf: hrtf) { e in
                let b = try e.openBed(path: path)
                try b.play()
                return b.sourceCount
            }
            let voices = try measure(seconds: seconds, hrtf: hrtf) { e in
                let n = order == 1 && hrtf ? 1 : AmbisonicDecoderMatrix(order: order).speakers.count
                let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(noise(frames: 480_000, seed: 3))), name: "noise")
                for s in 0..<n {
                    let a = Float(s) * 6.283 / Float(n)
                    _ = try e.play(clip, options: .init(gain: 0.2, loop: true, position: Vector3(sinf(a), 0, -cosf(a))))
                }
                return n
            }
            print(String(format: "  %-30@ %7d  %11.2f  %13.2f  %16.2f  %11.2f×", label as NSString, bed.sources, bed.render, bed.streamer,
                         voices.render, bed.render / max(voices.render, 1e-9)))
        }
        guard long > 0 else { return }
        let path = try file(order: 3, in: scratch)
        let e = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
        defer { e.shutdown() }
        let b = try e.openBed(path: path)
        try b.play()
        var buffer = [Float](repeating: 0, count: 480 * 2)
        var rss: [Int] = []
        let total = Int(long * 100)
        for k in 0..<total {
            try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) }
            if k == 1_000 || k == total - 1 { rss.append(residentBytes()) }
        }
        let stats = e.musicStats
        print(String(format: "  long: a third-order bed streamed %.0f s: %d underruns, resident %.1f MiB after 10 s and %.1f MiB at the end",
                     long, stats.underruns, Double(rss.first ?? 0) / 1_048_576, Double(rss.last ?? 0) / 1_048_576))
        if stats.underruns != 0 { throw Failure.failed("\(stats.underruns) underruns") }
    }

    struct Figures { var sources: Int; var render: Double; var streamer: Double }

    /// Renders `seconds` after `setUp`; CPU per second of output in ms.
    static func measure(seconds: Double, hrtf: Bool, _ setUp: (AudioEngine) throws -> Int) throws -> Figures {
        let e = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000), hrtf: hrtf))
        defer { e.shutdown() }
        let sources = try setUp(e)
        var buffer = [Float](repeating: 0, count: 480 * 2)
        for _ in 0..<50 { try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) } }
        let streamer0 = e.musicStats.streamerCPUSeconds
        let cpu0 = Clocks.threadCPU()
        for _ in 0..<Int(seconds * 100) { try buffer.withUnsafeMutableBufferPointer { try e.render(into: $0) } }
        let cpu = Clocks.threadCPU() - cpu0
        return Figures(sources: sources, render: cpu / seconds * 1_000,
                       streamer: (e.musicStats.streamerCPUSeconds - streamer0) / seconds * 1_000)
    }

    static func noise(frames: Int, seed: UInt64) -> [Float] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        return (0..<frames).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * 0.2
        }
    }

    /// A 10 s AmbiX file of decorrelated noise in every channel (libsndfile, 32-bit float WAV).
    static func file(order: Int, in folder: URL) throws -> String {
        let k = AmbisonicFormat.channels(order: order), n = 480_000
        let path = folder.appendingPathComponent("bed\(order).wav").path
        if FileManager.default.fileExists(atPath: path) { return path }
        let channels = (0..<k).map { noise(frames: n, seed: UInt64($0 + 10)) }
        var out = [Float](repeating: 0, count: n * k)
        for f in 0..<n { for c in 0..<k { out[f * k + c] = channels[c][f] } }
        let w = try AudioFileWriter(path: path, sampleRate: 48_000, channels: k, format: .f32)
        try w.write(out)
        try w.close()
        return path
    }

    static func residentBytes() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = s.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
