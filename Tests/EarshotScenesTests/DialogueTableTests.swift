import Earshot
import EarshotContent
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Line tables (YAML and CSV) read with their problems and limits, `earshot lines`, a scene's
/// `say:` events and `earshot render --subtitles`, with lines spoken by espeak-ng.
final class DialogueTableTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func write(_ name: String, _ text: String) throws -> String {
        let p = tmp.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    private func speak(_ locale: String, _ key: String, _ text: String) throws {
        let dir = tmp.appendingPathComponent("voice/\(locale)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        p.arguments = ["-v", locale, "-w", dir.appendingPathComponent("\(key).wav").path, text]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }

    /// The issue's table, as the tests write it.
    private let issueTable = """
        locales: [en, fr]
        fallback: en
        files: "voice/{locale}/{key}.wav"
        lines:
          intro.guard.01: { speaker: guard, priority: story, text: { en: "Halt!", fr: "Halte !" } }
          bark.guard.grenade: { speaker: guard, priority: bark, expire: 0.5, text: { en: "Grenade!" } }
        """

    func testTheIssuesTableReadsAndTenThousandLinesLoad() throws {
        let table = try LineTableReader.load(path: try write("lines.yaml", issueTable))
        XCTAssertEqual(table.locales, ["en", "fr"])
        XCTAssertEqual(table.fallback, "en")
        XCTAssertEqual(table.lines["bark.guard.grenade"]?.priority, .bark)
        XCTAssertEqual(table.lines["bark.guard.grenade"]?.expire, 0.5)
        XCTAssertEqual(table.lines["intro.guard.01"]?.text["fr"], "Halte !")
        XCTAssertEqual(table.path(of: try XCTUnwrap(table.lines["intro.guard.01"]), locale: "fr"),
                       tmp.appendingPathComponent("voice/fr/intro.guard.01.wav").path)
        // 10,000 lines, YAML and CSV.
        var yaml = "locales: [en, fr]\nfallback: en\nfiles: \"voice/{locale}/{key}.wav\"\nlines:\n"
        var csv = "key,speaker,priority,expire,text.en,text.fr\n"
        for i in 0..<10_000 {
            yaml += "  line.\(i): { speaker: s\(i % 7), priority: \(i % 3 == 0 ? "bark" : "story"), text: { en: \"Line \(i), said.\", fr: \"Réplique \(i).\" } }\n"
            csv += "line.\(i),s\(i % 7),story,,\"Line \(i), said.\",Réplique \(i).\n"
        }
        let yamlPath = try write("big.yaml", yaml), csvPath = try write("big.csv", csv)
        for path in [yamlPath, csvPath] {
            let start = Date()
            let big = try LineTableReader.load(path: path)
            let seconds = Date().timeIntervalSince(start)
            print("dialogue: 10,000 lines from \((path as NSString).lastPathComponent) in \(String(format: "%.3f", seconds)) s")
            XCTAssertEqual(big.lines.count, 10_000)
            XCTAssertEqual(big.lines["line.9999"]?.text["en"], "Line 9999, said.")
            // Speed lives in the benchmark (`earshot-bench dialogue`, release): here only the figure.
        }
    }

    func testProblemsNameTheFileLineAndKey() throws {
        func problems(_ name: String, _ text: String) throws -> [String] {
            switch LineTableReader.check(path: try write(name, text)) {
            case .success: return []
            case .failure(let p): return p.problems.map(\.description)
            }
        }
        let yaml = try problems("bad.yaml", """
            locales: [en, fr]
            lines:
              a: { speaker: guard, priority: boss }
              b: { speaker: guard, text: { de: "Halt!" } }
              c: { priority: bark }
              d: { speaker: guard, expire: -1 }
            """)
        XCTAssertTrue(yaml.contains { $0.contains("bad.yaml:3:") && $0.contains("lines.a.priority") }, "\(yaml)")
        XCTAssertTrue(yaml.contains { $0.contains("bad.yaml:4:") && $0.contains("lines.b.text.de") && $0.contains("not one of the locales") }, "\(yaml)")
        XCTAssertTrue(yaml.contains { $0.contains("lines.c.speaker") && $0.contains("required") }, "\(yaml)")
        XCTAssertTrue(yaml.contains { $0.contains("lines.d.expire") }, "\(yaml)")
        let csv = try problems("bad.csv", "key,speaker,text.en\na,guard,\"never closed\n")
        XCTAssertTrue(csv.contains { $0.contains("bad.csv:2:") && $0.contains("never closed") }, "\(csv)")
        let extra = try problems("extra.csv", "key,speaker,text.en\na,guard,Halt!,more\nb,guard,Who?\nb,guard,again\n")
        XCTAssertTrue(extra.contains { $0.contains("extra.csv:2:") && $0.contains("the header has 3") }, "\(extra)")
        XCTAssertTrue(extra.contains { $0.contains("extra.csv:4:") && $0.contains("duplicate key") }, "\(extra)")
        let header = try problems("header.csv", "key,who,text.en\n")
        XCTAssertTrue(header.contains { $0.contains("unknown column 2 'who'") }, "\(header)")
        let laughs = try problems("laughs.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\nlines: {}\n")
        XCTAssertFalse(laughs.isEmpty, "aliases are counted before a tree is built")
    }

    func testSubRipAndWebVTTReadAndWriteBack() throws {
        let entries = try SubtitleFile.parse("1\r\n00:00:01,500 --> 00:00:02,250\r\nHalt!\r\nWho goes there?\r\n\r\n2\n01:02:03,004 --> 01:02:04,000\nFriends.\n", name: "a.srt")
        XCTAssertEqual(entries, [SubtitleEntry(start: 1.5, end: 2.25, text: "Halt!\nWho goes there?"),
                                 SubtitleEntry(start: 3723.004, end: 3724, text: "Friends.")])
        XCTAssertEqual(try SubtitleFile.parse(SubtitleFile.srt(entries), name: "b.srt"), entries)
        XCTAssertEqual(try SubtitleFile.parse(SubtitleFile.vtt(entries), name: "b.vtt"), entries)
        let vtt = try SubtitleFile.parse("WEBVTT - a title\n\nNOTE a note\n\nid1\n00:01.000 --> 00:02.000 align:start\nHi\n", name: "c.vtt")
        XCTAssertEqual(vtt, [SubtitleEntry(start: 1, end: 2, text: "Hi")])
        XCTAssertThrowsError(try SubtitleFile.parse("1\n00:00:02,000 --> 00:00:01,000\nBackwards\n", name: "d.srt"))
        XCTAssertThrowsError(try SubtitleFile.parse("00:01.000 --> 00:02.000\nHi\n", name: "e.vtt"), "no WEBVTT header")
        XCTAssertThrowsError(try SubtitleFile.parse("1\n00:00:99,000 --> 00:01:00,000\nHi\n", name: "f.srt"))
    }

    func testEarshotLinesReportsAMissingFileByKeyAndLocaleAndWritesAReviewTrack() throws {
        let table = try write("lines.yaml", issueTable)
        try speak("en", "intro.guard.01", "Halt!")
        try speak("fr", "intro.guard.01", "Halte !")
        try speak("en", "bark.guard.grenade", "Grenade!")
        try speak("en", "stray", "Nobody says this.")
        let srt = tmp.appendingPathComponent("review.srt").path
        let r = try CLIRunner.run("earshot", ["lines", table, "--srt", srt])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("missing file: bark.guard.grenade [fr]"), r.stderr)
        XCTAssertTrue(r.stderr.contains("file without a line: [en]") && r.stderr.contains("stray.wav"), r.stderr)
        XCTAssertTrue(r.stdout.contains("2 lines; with a file per locale: en 2, fr 1; per speaker: guard 2"), r.stdout)
        let review = try SubtitleFile.read(path: srt)
        XCTAssertEqual(review.map(\.text), ["Grenade!", "Halt!"], "key order")
        XCTAssertEqual(review[1].start, review[0].end, accuracy: 0.002, "back to back")
        let strict = try CLIRunner.run("earshot", ["lines", table, "--strict"])
        XCTAssertEqual(strict.status, 1, "findings fail --strict")
        let bad = try CLIRunner.run("earshot", ["lines", try write("broken.yaml", "lines: { a: { speaker: [x] } }\n")])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("broken.yaml:1:") && bad.stderr.contains("lines.a.speaker"), bad.stderr)
    }

    func testARenderSaysTheScenesLinesAndWritesTheirSubtitlesAndLane() throws {
        _ = try write("lines.yaml", issueTable)
        try speak("en", "intro.guard.01", "Halt!")
        try speak("fr", "intro.guard.01", "Halte !")
        try speak("en", "bark.guard.grenade", "Grenade!")
        let scene = try write("say.yaml", """
            duration: 2
            dialogue: { lines: lines.yaml, locale: fr }
            emitters:
              guard: { position: [1, 0, -2] }
            events:
              - { at: 0.2, say: intro.guard.01, by: guard }
              - { at: 1.2, say: bark.guard.grenade }
            """)
        let wav = tmp.appendingPathComponent("say.wav").path, svg = tmp.appendingPathComponent("say.svg").path
        let vtt = tmp.appendingPathComponent("say.vtt").path
        let r = try CLIRunner.run("earshot", ["render", scene, "-o", wav, "--plot", svg, "--subtitles", vtt])
        XCTAssertEqual(r.status, 0, r.stderr)
        let said = try SubtitleFile.read(path: vtt)
        XCTAssertEqual(said.map(\.text), ["Halte !", "Grenade!"], "the French line, then the English fallback")
        XCTAssertEqual(said[0].start, 0.2, accuracy: 0.05, "shown at its first audible frame, just after 0.2 s")
        XCTAssertGreaterThanOrEqual(said[0].start, 0.2)
        let plot = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(plot.contains("class=\"subtitle-lane\"") && plot.contains("Halte !"), "the plot's subtitle lane")
        // A wrong extension is refused before anything is rendered; nothing is written.
        let refused = try CLIRunner.run("earshot", ["render", scene, "-o", tmp.appendingPathComponent("x.wav").path, "--subtitles", tmp.appendingPathComponent("x.txt").path])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.appendingPathComponent("x.wav").path))
        // A subtitle read faster than 17 characters a second is a validate warning, at dialogue:.
        _ = try write("fast.yaml", issueTable.replacingOccurrences(of: "fr: \"Halte !\"", with: "fr: \"Halte ! Qui va là ? Montrez-vous, tous, immédiatement !\""))
        let fast = try write("fast-scene.yaml", "duration: 1\ndialogue: { lines: fast.yaml, locale: fr }\nevents:\n  - { at: 0, say: intro.guard.01 }\n")
        let w = try CLIRunner.run("earshot", ["validate", fast])
        XCTAssertEqual(w.status, 0, w.stderr)
        XCTAssertTrue(w.stderr.contains("fast-scene.yaml:2:11: dialogue.lines:") && w.stderr.contains("subtitle too fast: intro.guard.01 [fr]"), w.stderr)
        // validate names a say: of a key the table lacks.
        let typo = try write("typo.yaml", "duration: 1\ndialogue: { lines: lines.yaml }\nevents:\n  - { at: 0, say: intro.gaurd.01 }\n")
        let v = try CLIRunner.run("earshot", ["validate", typo])
        XCTAssertEqual(v.status, 1)
        XCTAssertTrue(v.stderr.contains("typo.yaml:4:") && v.stderr.contains("intro.guard.01"), v.stderr)
    }

    func testTheDialogueDemoCutsTheBarkDropsTheExpiredOneAndQueuesTheCaptain() throws {
        let scene = try Scene.load(path: CLIRunner.packageRoot.appendingPathComponent("Demos/Scenes/dialogue.yaml").path)
        XCTAssertTrue(scene.warnings().isEmpty, "\(scene.warnings())")
        let result = try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("demo.wav").path)
        let texts = result.subtitles.map(\.text)
        XCTAssertEqual(texts, ["Stay close. The gate is just ahead.", "Friends. We have a pass.",
                               "Another long night on the wall.", "Halt! Who goes there?"], "the grenade bark expired")
        XCTAssertEqual(result.subtitles[2].end, 5.6, accuracy: 0.001, "the bark hides where the story line cuts it")
        XCTAssertEqual(result.subtitles[1].start - result.subtitles[0].end, 0.35, accuracy: 0.1,
                       "the captain's second line waits for his first (its trailing silence, then its own lead-in)")
    }
}
