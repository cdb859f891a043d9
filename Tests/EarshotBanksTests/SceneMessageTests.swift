import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Messages and warnings that say the useful thing once (issue 35, items 6, 8 and 20), the CLI
/// run as a process.
final class SceneMessageTests: XCTestCase {
    static let assets = CLIRunner.packageRoot.appendingPathComponent("Assets").path
    static let readme = " (every scene key is described in Demos/Scenes/README.md of the Earshot package)"

    func lines(_ s: String) -> [String] { s.split(separator: "\n").map(String.init) }

    /// A bank of six sounds and clips included by a scene that plays one: no "never used" for
    /// the bank's definitions; the scene's own unused clip is still warned about, and every
    /// warning carries FILE:LINE:COLUMN.
    func testIncludedDefinitionsAreNotWarnedAboutAndEveryWarningHasLineAndColumn() throws {
        let f = try BankFixture("warn-include")
        defer { f.remove() }
        try f.write("lib.yaml", """
            clips: { a: audio/a440.wav, k: audio/k1.wav, x: audio/k1.wav }
            sounds:
              walk: { clips: [a] }
              run: { clips: [k] }
              jump: { clips: [x] }
            music:
              level:
                bpm: 120
                states: { calm: { file: \(Self.assets)/Music/theme.ogg } }
            """)
        let scene = try f.write("scene.yaml", """
            duration: 1
            include: lib.yaml
            clips:
              mine: audio/k1.wav
            events:
              - { at: 0.1, play: walk }
              - { at: 0.5, hint: end }
            """)
        let r = try CLIRunner.run("earshot", ["validate", scene])
        XCTAssertEqual(r.status, 0, r.stderr)
        let warnings = lines(r.stderr)
        XCTAssertEqual(warnings, [
            "earshot: warning: \(scene):7:5: events: hint: end at 0.5 s without a begin before it",
            "earshot: warning: \(scene):4:3: clips.mine: never used (no emitter or play event names it); it is still loaded and checked",
        ], r.stderr)
        let json = try CLIRunner.run("earshot", ["validate", "--json", scene])
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let w = try XCTUnwrap(report["warnings"] as? [[String: Any]])
        XCTAssertEqual(w.map { $0["column"] as? Int }, [5, 3])
        // A mix warning points at the loudest voice's event.
        let loud = try f.write("loud.yaml", """
            duration: 1
            clips: { tone: audio/a440.wav }
            events:
              - { at: 0.1, play: tone, gain: 16 }
              - { at: 0.1, play: tone, gain: 16 }
            """)
        let mix = try XCTUnwrap(try Scene.load(path: loud).warnings().first { $0.key == "mix" })
        XCTAssertEqual(mix.line, 4)
        XCTAssertEqual(mix.column, 5)
        XCTAssertTrue(mix.description.hasPrefix("\(loud):4:5: mix: at 0.10 s"), mix.description)
    }

    /// A tab in the indentation: "a tab", at its line and column.
    func testATabSaysTab() throws {
        let f = try BankFixture("tab")
        defer { f.remove() }
        let scene = try f.write("tab.yaml", "duration: 1\nclips:\n\tbeep: audio/k1.wav\n")
        let r = try CLIRunner.run("earshot", ["validate", scene])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr, "earshot: \(scene):3:1: a tab: YAML indents with spaces only (replace the tab with spaces)\(Self.readme)\n")
    }

    /// `render --watch` of a scene whose included bank is broken prints the bank's problem with
    /// its file and line, not what follows from it in the scene; fixing the bank renders.
    func testWatchPrintsTheFirstProblemOfABrokenIncludedBank() throws {
        let f = try BankFixture("watch-include")
        defer { f.remove() }
        let lib = try f.write("lib.yaml", "clips:\n\tstep: audio/k1.wav\n")
        let scene = try f.write("scene.yaml", "duration: 1\ninclude: lib.yaml\nevents:\n  - { at: 0.1, play: step }\n")
        let log = f.path("watch.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log, contents: nil))
        let p = Process()
        p.executableURL = CLIRunner.productsDirectory.appendingPathComponent("earshot")
        p.arguments = ["render", scene, "-o", f.path("out.wav"), "--watch"]
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        func waitFor(_ word: String) -> String {
            let deadline = Date().addingTimeInterval(20)
            var text = ""
            while Date() < deadline {
                text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if text.contains(word) { break }
                usleep(100_000)
            }
            return text
        }
        let text = waitFor("watching")
        try f.write("lib.yaml", "clips:\n  step: audio/k1.wav\n")
        let fixed = waitFor("wrote")
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertTrue(fixed.contains("earshot: wrote \(f.path("out.wav")) (48000 frames"), "the fixed bank is rendered: \(fixed)")
        let said = lines(text)
        XCTAssertEqual(said.first, "earshot: \(lib):2:1: a tab: YAML indents with spaces only (replace the tab with spaces)\(Self.readme)", text)
        XCTAssertEqual(said.count, 2, text)
        XCTAssertFalse(text.contains("no clip or sound"), "the scene's consequence is not printed: \(text)")
        XCTAssertTrue(said.last?.contains("not rendered (1 more problem: earshot validate \(scene) lists them); watching") == true, text)
    }

    /// A directory as an include or as the scene: said to be a directory.
    func testADirectoryIsCalledADirectory() throws {
        let f = try BankFixture("dir")
        defer { f.remove() }
        let scene = try f.write("scene.yaml", "duration: 1\ninclude: audio\n")
        let r = try CLIRunner.run("earshot", ["validate", scene])
        XCTAssertEqual(r.stderr, "earshot: \(scene):2:10: include: audio is a directory, not a bank file (include: names YAML files, one path each)\(Self.readme)\n")
        for command in [["validate", f.path("audio")], ["render", f.path("audio"), "-o", f.path("o.wav")]] {
            let d = try CLIRunner.run("earshot", command)
            XCTAssertEqual(d.status, 1)
            XCTAssertEqual(d.stderr, "earshot: \(f.path("audio")): a directory, not a scene file\n", "\(command)")
        }
    }

    /// A downward range is one problem, not followed by "no parameter named" at each use; one
    /// bad stem is one problem, not "no state" at each event naming its state.
    func testAProblemInADefinitionIsNotRepeatedAtItsUses() throws {
        let f = try BankFixture("once")
        defer { f.remove() }
        let range = try f.write("range.yaml", """
            duration: 2
            parameters:
              rpm: { range: [8000, 0] }
            clips: { hum: audio/a440.wav }
            sounds:
              car: { clips: [hum], gain: { parameter: rpm, curve: [[0, 0], [8000, -6]] } }
            events:
              - { at: 0, play: car }
              - { at: 1, set: { parameter: rpm, value: 3000 } }
            """)
        let r = try CLIRunner.run("earshot", ["validate", range])
        XCTAssertEqual(lines(r.stderr), ["earshot: \(range):3:17: parameters.rpm.range: the range [8000, 0] goes downward (give [low, high])\(Self.readme)"])
        let stem = try f.write("stem.yaml", """
            duration: 2
            music:
              level:
                bpm: 120
                states:
                  a: { file: \(Self.assets)/Music/theme.ogg }
                  b:
                    layers:
                      drums: { file: \(Self.assets)/Music/drums.ogg }
                      bass: { file: missing.ogg }
            events:
              - { at: 0, music: level, state: a }
              - { at: 1, music: level, state: b }
              - { at: 1.5, music: level, state: b }
            """)
        let s = try CLIRunner.run("earshot", ["validate", stem])
        XCTAssertEqual(lines(s.stderr).count, 1, s.stderr)
        XCTAssertTrue(s.stderr.contains("music.level.states.b.layers.bass.file: no such file"), s.stderr)
        XCTAssertFalse(s.stderr.contains("no state"), s.stderr)
    }

    /// `audition`: a negative --seconds is a bad value (not a missing one); without an output
    /// device it names its own offline flag; a sweep past the parameter's range says it is
    /// clamped, in one line.
    func testAuditionMessages() throws {
        let f = try BankFixture("audition-msg")
        defer { f.remove() }
        let bank = try f.write("game.yaml", """
            parameters: { rpm: { range: [0, 8000], default: 800 } }
            clips: { tone: audio/a440.wav }
            sounds: { hum: { clips: [tone], loop: true, gain: { parameter: rpm, curve: [[0, -20], [8000, 0]] } } }
            """)
        let negative = try CLIRunner.run("earshot", ["audition", bank, "hum", "--seconds", "-1", "-o", f.path("n.wav")])
        XCTAssertNotEqual(negative.status, 0)
        XCTAssertTrue(negative.stderr.contains("--seconds -1: must be positive"), negative.stderr)
        XCTAssertFalse(negative.stderr.contains("Missing value"), negative.stderr)
        let live = try CLIRunner.run("earshot", ["audition", bank, "hum", "--seconds", "0.1"], environment: ["ALSOFT_DRIVERS": "null-none"])
        if live.status != 0 {   // no output device here (the usual case): the hint names -o
            XCTAssertEqual(live.stderr, "earshot: no audio output device (use -o FILE.wav to render offline)\n")
        }
        let out = f.path("c.wav")
        let clamped = try CLIRunner.run("earshot", ["audition", bank, "hum", "--param", "rpm=-100:12000:0.2", "--seconds", "0.2", "--out", out])
        XCTAssertEqual(clamped.status, 0, clamped.stderr)
        XCTAssertEqual(lines(clamped.stderr), ["earshot: --param rpm: asked -100→12000, clamped to 0→8000 (rpm's range is 0…8000)",
                                               "earshot: wrote \(out) (0.2 s of hum)"])
        let within = try CLIRunner.run("earshot", ["audition", bank, "hum", "--param", "rpm=100:1200:0.2", "--seconds", "0.2", "-o", f.path("w.wav")])
        XCTAssertFalse(within.stderr.contains("clamped"), within.stderr)
    }
}
