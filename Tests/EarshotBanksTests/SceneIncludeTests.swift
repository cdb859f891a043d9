import Earshot
import EarshotMeasure
import EarshotScenes
import EarshotTestSupport
import XCTest

/// `include:` in scenes and banks: what an included bank defines is the includer's to use
/// (rendered and measured), and every way an include goes wrong is a problem at its place —
/// cycles, depth, duplicate ids, problems inside the included file (named by that file).
final class SceneIncludeTests: XCTestCase {
    func testASceneIncludesABankRelativeToItselfAndPlaysItsSounds() throws {
        let f = try BankFixture("include")
        defer { f.remove() }
        // The bank in a folder of its own: its clip paths are relative to it.
        try FileManager.default.createDirectory(atPath: f.path("banks/audio"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: f.path("audio/a440.wav"), toPath: f.path("banks/audio/tone.wav"))
        try f.write("banks/common.yaml", """
            clips: { tone: audio/tone.wav }
            buses: { quiet: { gain: -12 } }
            sounds: { hum: { clips: [tone], loop: true, bus: quiet } }
            """)
        let scenePath = try f.write("scene.yaml", """
            duration: 0.5
            include: banks/common.yaml
            events:
              - { at: 0, play: hum, position: [1, 0, 0] }
            """)
        let scene = try Scene.load(path: scenePath)
        XCTAssertEqual(scene.includedFiles, [f.path("banks/common.yaml")])
        XCTAssertEqual(scene.sounds.map(\.id), ["hum"])
        let out = f.path("out.wav")
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        let audio = try SndFileDecoder.decode(path: out)
        guard case .float32(let s) = audio.samples else { return XCTFail("not float") }
        // Hard right at 1 m (0.3535 RMS for amplitude 0.5) on the bank's −12 dB bus: 0.0885.
        XCTAssertEqual(Level.rms(s, channel: 1, from: 2400), 0.3535 * pow(10, -12.0 / 20), accuracy: 0.005)
        XCTAssertLessThan(Level.rms(s, channel: 0, from: 2400), 0.001)
    }

    func testIncludeProblemsAreReportedWhereTheyAre() throws {
        let f = try BankFixture("problems")
        defer { f.remove() }
        // A cycle: a → b → a.
        try f.write("a.yaml", "include: [b.yaml]\nclips: { one: audio/k1.wav }\n")
        try f.write("b.yaml", "clips: { two: audio/k1.wav }\ninclude: a.yaml\n")
        XCTAssertEqual(problems(SceneBank.check(path: f.path("a.yaml"))),
                       ["\(f.path("b.yaml")):2:10: include: an include cycle: a.yaml → b.yaml → a.yaml (a bank cannot include itself, directly or through others)"])
        // Deeper than 8.
        for i in 0..<10 { try f.write("d\(i).yaml", "include: d\(i + 1).yaml\n") }
        try f.write("d10.yaml", "clips: { deep: audio/k1.wav }\n")
        let deep = problems(SceneBank.check(path: f.path("d0.yaml")))
        XCTAssertEqual(deep, ["\(f.path("d7.yaml")):1:10: include: includes nest deeper than 8 files (the most a scene may have)"])
        // An id the includer defines too, and a problem inside the included bank (its own file and line).
        try f.write("lib.yaml", "clips: { step: audio/k1.wav }\nsounds:\n  walk: { clips: [stpe] }\n")
        let scene = try f.write("s.yaml", "duration: 1\ninclude: lib.yaml\nclips:\n  step: audio/k1.wav\n")
        let found = problems(Scene.check(path: scene))
        XCTAssertTrue(found.contains("\(f.path("lib.yaml")):3:19: sounds.walk.clips[0]: no clip named \"stpe\" (did you mean 'step'?)"), "\(found)")
        // (lib.yaml failed, so its step is not known to the scene: no duplicate reported for it.)
        try f.write("lib.yaml", "clips: { step: audio/k1.wav }\n")
        XCTAssertEqual(problems(Scene.check(path: scene)),
                       ["\(scene):4:3: clips.step: duplicate id: \(f.path("lib.yaml")):1 (an included bank) defines clips.step already"])
        // More than 64 MiB with what it includes: refused before the included file is read.
        let big = f.path("big.yaml")
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: UInt64(SceneLimits.maxFileBytes - 10))   // sparse: nothing to read
        try handle.close()
        try f.write("huge.yaml", "include: big.yaml\nclips: { step: audio/k1.wav }\n")
        let huge = problems(SceneBank.check(path: f.path("huge.yaml")))
        XCTAssertEqual(huge.count, 1)
        XCTAssertTrue(huge[0].hasPrefix("\(f.path("huge.yaml")):1:10: include: \(big) has 67108854 bytes; a file and everything it includes may have at most 67108864"), "\(huge)")
        // A missing file, and a bank that includes a scene (its timeline refused).
        try f.write("m.yaml", "include: [nowhere.yaml, s2.yaml]\n")
        try f.write("s2.yaml", "duration: 1\n")
        let m = problems(SceneBank.check(path: f.path("m.yaml")))
        XCTAssertEqual(m.count, 2)
        XCTAssertTrue(m.contains { $0.hasPrefix("\(f.path("m.yaml")):1:11: include[0]: no such file: nowhere.yaml") }, "\(m)")
        XCTAssertTrue(m.contains { $0.hasPrefix("\(f.path("s2.yaml")):1:1: duration: a bank has no duration:") }, "\(m)")
    }

    /// A bank's scene keys are refused and not read further: a timeline of a million repeats is
    /// one problem (the key), not built (found by the bank fuzzer: 10 s of repeats to refuse).
    func testABanksTimelineIsRefusedUnread() throws {
        let text = "clips: { c: \(CLIRunner.packageRoot.path)/Assets/Sounds/beep.wav }\nevents:\n  - { at: 0, play: c, every: 0.001 }\n"
        guard case .failure(let p) = SceneBank.check(yaml: text, path: "/tmp/b.yaml") else { return XCTFail("accepted") }
        XCTAssertEqual(p.problems.count, 1, p.description)
        XCTAssertTrue(p.description.hasPrefix("/tmp/b.yaml:2:1: events: a bank has no events:"), p.description)
    }

    /// A scene that includes a bank with parameters and a layered sound: its `set:` events drive
    /// the bank's parameter, rendered (the layers cross over as in the bank).
    func testASceneDrivesAnIncludedBanksParameter() throws {
        let f = try BankFixture("params")
        defer { f.remove() }
        try SoxTone.write(to: f.path("audio/t3000.wav"), frequency: 3000, amplitude: 0.5, seconds: 0.25)
        try f.write("car.yaml", """
            parameters: { rpm: { range: [0, 8000], default: 800 } }
            clips: { low: audio/a440.wav, high: audio/t3000.wav }
            sounds:
              car:
                layers:
                  - { clip: low, gain: { parameter: rpm, curve: [[800, 0], [4000, -40]] } }
                  - { clip: high, gain: { parameter: rpm, curve: [[800, -40], [4000, 0]] } }
            """)
        let scenePath = try f.write("drive.yaml", """
            duration: 1
            include: car.yaml
            events:
              - { at: 0, play: car }
              - { at: 0.5, set: { parameter: rpm, value: 4000 } }
            """)
        let scene = try Scene.load(path: scenePath)
        XCTAssertEqual(scene.parameters.map(\.id), ["rpm"])
        let out = f.path("drive.wav")
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        guard case .float32(let s) = try SndFileDecoder.decode(path: out).samples else { return XCTFail("not float") }
        let idle = (low: BankParameterTests.band(s, 440, from: 4_800, to: 19_200), high: BankParameterTests.band(s, 3000, from: 4_800, to: 19_200))
        let revved = (low: BankParameterTests.band(s, 440, from: 28_800, to: 43_200), high: BankParameterTests.band(s, 3000, from: 28_800, to: 43_200))
        XCTAssertGreaterThan(idle.low - idle.high, 30)
        XCTAssertGreaterThan(revved.high - revved.low, 30)
    }

    func testABankIncludedTwiceThroughTwoOthersIsReadOnce() throws {
        let f = try BankFixture("diamond")
        defer { f.remove() }
        try f.write("common.yaml", "clips: { step: audio/k1.wav }\n")
        try f.write("left.yaml", "include: common.yaml\nsounds: { walk: { clips: [step] } }\n")
        try f.write("right.yaml", "include: common.yaml\nsounds: { run: { clips: [step] } }\n")
        let top = try f.write("top.yaml", "include: [left.yaml, right.yaml]\n")
        let bank = try SceneBank.load(path: top)
        XCTAssertEqual(bank.clips.map(\.id), ["step"])
        XCTAssertEqual(Set(bank.sounds.map(\.id)), ["walk", "run"])
        XCTAssertEqual(bank.files, [top, f.path("left.yaml"), f.path("common.yaml"), f.path("right.yaml")])
    }

    func testValidateAndInfoTakeBanks() throws {
        let f = try BankFixture("cli")
        defer { f.remove() }
        try f.write("lib.yaml", "clips: { step: audio/k1.wav }\nsounds:\n  walk: { clips: [step], gain: 99 }\n")
        let bad = try f.write("bank.yaml", "include: lib.yaml\nsnapshots: { pause: { buses: { sfx: { gain: -6 } } } }\n")
        let r = try CLIRunner.run("earshot", ["validate", bad])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("earshot: \(f.path("lib.yaml")):3:32: sounds.walk.gain: 99 is out of range"), r.stderr)
        try f.write("lib.yaml", "clips: { step: audio/k1.wav }\nsounds:\n  walk: { clips: [step], gain: -3 }\n")
        let ok = try CLIRunner.run("earshot", ["validate", bad])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.stdout, "\(bad): ok — bank \"bank\", 1 clips, 1 sounds, 1 snapshots, 0 buses, 0 zones, 0 music tracks, 1 included file\n")
        let info = try CLIRunner.run("earshot", ["info", bad])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("  walk: 1 clip [step], random, bus sfx, priority 128, level -3 dB"), info.stdout)
        XCTAssertTrue(info.stdout.contains("includes:  1 (\(f.path("lib.yaml")))"), info.stdout)
        let json = try CLIRunner.run("earshot", ["info", "--json", bad])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["kind"] as? String, "bank")
    }

    func problems<T>(_ result: Result<T, SceneProblems>) -> [String] {
        guard case .failure(let p) = result else { return [] }
        // Without the trailing pointer to the reference every message carries.
        return p.problems.map { $0.description.replacingOccurrences(of: " (every scene key is described in Demos/Scenes/README.md of the Earshot package)", with: "") }
    }
}
