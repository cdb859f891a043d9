import Earshot
import EarshotContent
import EarshotScenes
import Foundation

/// `earshot-bench dialogue`: how fast a line table loads. Writes tables of 10,000 and 100,000
/// lines as YAML (the issue's form: a flow mapping per line, two locales) and as CSV, reads each
/// with `LineTableReader` three times and reports the best time, µs per line and the process's
/// peak RSS. Issue 42 asks for 10,000 lines in under a second.
enum DialogueBenchmark {
    static func run(_ arguments: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bench-dialogue-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        print("lines     form   load s (best of 3)   µs/line   peak RSS MiB")
        for count in [10_000, 100_000] {
            var yaml = "locales: [en, fr]\nfallback: en\nfiles: \"voice/{locale}/{key}.wav\"\nlines:\n"
            var csv = "key,speaker,priority,expire,text.en,text.fr\n"
            for i in 0..<count {
                yaml += "  line.\(i): { speaker: s\(i % 7), priority: \(i % 3 == 0 ? "bark" : "story"), text: { en: \"Line \(i), said.\", fr: \"Réplique \(i).\" } }\n"
                csv += "line.\(i),s\(i % 7),story,,\"Line \(i), said.\",Réplique \(i).\n"
            }
            for (form, text) in [("yaml", yaml), ("csv", csv)] {
                let path = folder.appendingPathComponent("lines-\(count).\(form)").path
                try text.write(toFile: path, atomically: false, encoding: .utf8)
                var best = Double.infinity
                for _ in 0..<3 {
                    let t0 = Date()
                    let table = try LineTableReader.load(path: path)
                    best = min(best, Date().timeIntervalSince(t0))
                    guard table.lines.count == count else { throw EarshotError.invalidArgument("\(table.lines.count) lines read of \(count)") }
                }
                print(String(format: "%7d   %-4@   %18.3f   %7.2f   %12.0f", count, form, best, best / Double(count) * 1e6,
                             Double(ScenesBenchmark.peakRSS()) / 1_048_576))
            }
        }
    }
}
