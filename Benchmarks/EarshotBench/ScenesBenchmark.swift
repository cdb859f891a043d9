import EarshotScenes
import Foundation

/// `earshot-bench scenes`: how validation scales with a scene's size. Generates scenes of 10,000,
/// 100,000 and 1,000,000 one-shot events (and one just over the event limit), validates each, and
/// reports time, time per event and the process's peak RSS. Linear means the per-event time stays
/// flat; the over-limit scene must be refused by the pre-scan, before any tree is built.
enum ScenesBenchmark {
    static func run(_ arguments: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bench-scenes-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        print("events      validate s   µs/event   peak RSS MiB   result")
        for count in [10_000, 100_000, 1_000_000, SceneLimits.maxEvents + 1] {
            var text = "duration: 86400\nevents:\n"
            text.reserveCapacity(count * 32)
            for i in 0..<count { text += "  - { at: \(i % 86_000).5, hint: \(i % 2 == 0 ? "begin" : "end") }\n" }
            let path = folder.appendingPathComponent("events-\(count).yaml").path
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            text = ""
            let t0 = Date()
            let result = Scene.check(path: path)
            let seconds = Date().timeIntervalSince(t0)
            let outcome: String
            switch result {
            case .success(let s): outcome = "ok, \(s.events.count) events"
            case .failure(let p): outcome = "refused: " + (p.first?.description.prefix(80).description ?? "?")
            }
            print(String(format: "%9d   %10.3f   %8.2f   %12.0f   %@", count, seconds, seconds / Double(count) * 1e6,
                         Double(peakRSS()) / 1_048_576, outcome))
        }
    }

    /// The process's peak resident set (VmHWM), in bytes.
    static func peakRSS() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }
}
