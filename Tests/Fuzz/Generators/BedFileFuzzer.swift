import Earshot
import Foundation

/// Issue 39's bed files: structure-aware over what a bed reads from a file's header — channel
/// counts 1…20 (4, 9 and 16 the valid ones, and their neighbours), containers (WAV, CAF, FLAC,
/// Ogg Vorbis, W64, AIFF), sample types, lengths from 1 frame, rates at their edges — opened as
/// beds declared AmbiX or FuMa, streamed or as clips, with every decoder and lock, played a few
/// frames. A count that is no order must be refused with `unsupportedEncoding`; any other open
/// must play and give finite samples; nothing may trap.
///
/// ```swift
/// let report = BedFileFuzzer(seed: 1).run(cases: 50)
/// print(report.summary)
/// ```
public struct BedFileFuzzer {
    public var seed: UInt64
    public var scratch = "/dev/shm"

    public init(seed: UInt64) { self.seed = seed }

    public struct Report: FuzzReport {
        public var cases = 0
        public var played = 0
        public var refused = 0
        public var findings: [String] = []
        public var seconds = 0.0
        public var summary: String {
            "bed files: \(cases) cases (\(played) played, \(refused) refused) in " + String(format: "%.1f s", seconds) + ", \(findings.count) findings"
        }
    }

    public func run(cases: Int, seconds: Double = .infinity, log: ((String) -> Void)? = nil) -> Report {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        config.bedSources = 30
        guard let engine = try? AudioEngine(configuration: config) else {
            var r = Report()
            r.findings.append("no loopback engine")
            return r
        }
        defer { engine.shutdown() }
        let containers = ["wav", "caf", "flac", "ogg", "w64", "aiff"]
        return FuzzDriver(seed: seed, logEvery: 100).run(Report(), cases: cases, seconds: seconds, log: log) { i, g, report in
            let channels = pick(&g, [4, 9, 16, 4, 9, 16, 1, 2, 3, 5, 8, 10, 15, 17, 20])
            let container = pick(&g, containers)
            let frames = pick(&g, [1, 2, 63, 64, 1_000, 4_800])
            let rate = pick(&g, [8_000, 48_000, 96_000, 22_050])
            let path = "\(scratch)/earshot-bed-fuzz-\(getpid())-\(i).\(container)"
            defer { unlink(path) }
            var samples = [Float](repeating: 0, count: frames * channels)
            for k in samples.indices { samples[k] = Float(Int64(bitPattern: g.next()) >> 40) / Float(1 << 23) * (g.next() % 8 == 0 ? 1 : 0.3) }
            do {
                let w = try AudioFileWriter(path: path, sampleRate: rate, channels: channels, format: g.next() % 2 == 0 ? .f32 : .s16)
                try w.write(samples)
                try w.close()
            } catch {
                return   // a container that cannot hold this count (FLAC above 8, Ogg limits): nothing to open
            }
            var options = AmbisonicBed.Options()
            options.format = pick(&g, AmbisonicFormat.allCases)
            options.loading = pick(&g, AmbisonicBed.Loading.allCases)
            options.decoder = pick(&g, AmbisonicDecoderMatrix.Kind.allCases)
            options.firstOrder = pick(&g, AmbisonicBed.FirstOrderPath.allCases)
            options.lock = pick(&g, AmbisonicBed.Lock.allCases)
            options.yaw = Float(Int(g.next() % 720)) - 360
            options.numberOfLoops = pick(&g, [0, 1, -1])
            do {
                let bed = try engine.openBed(path: path, options: options)
                try bed.play()
                bed.setYaw(Float(g.next() % 360), ramp: 0.01)
                let out = try engine.render(frames: 480)
                if let bad = out.firstIndex(where: { !$0.isFinite }) { report.findings.append("case \(i): sample \(bad) is \(out[bad]) (\(channels) ch \(container))") }
                if ![4, 9, 16].contains(channels) { report.findings.append("case \(i): \(channels) channels played as a bed") }
                bed.stop()
                report.played += 1
            } catch let error as EarshotError {
                report.refused += 1
                if [4, 9, 16].contains(channels), case .unsupportedEncoding = error, options.firstOrder != .bformat {
                    report.findings.append("case \(i): a \(channels)-channel \(container) refused: \(error)")
                }
            } catch {
                report.findings.append("case \(i): untyped error \(error)")
            }
        }
    }

    private func pick<T>(_ g: inout SplitMix64, _ items: [T]) -> T { items[Int(g.next() % UInt64(items.count))] }
}
