import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// The scene format: defaults, relative paths, time order, and malformed scenes refused with the
/// documented `FILE:LINE:COLUMN: KEY: reason` before anything plays.
final class SceneParsingTests: XCTestCase {
    private var tmp: URL!
    private var beep: String { SceneFixtures.beep }

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func write(_ yaml: String, name: String = "scene.yaml") throws -> String {
        try SceneFixtures.write(yaml, name: name, in: tmp)
    }

    func testEveryDemoSceneIsValid() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: SceneFixtures.scenesFolder).filter { $0.hasSuffix(".yaml") }
        XCTAssertTrue(names.contains("showcase.yaml"))
        XCTAssertGreaterThanOrEqual(names.count, 8)
        for name in names {
            switch Scene.check(path: SceneFixtures.path(name)) {
            case .success(let s): XCTAssertLessThanOrEqual(s.duration, 8, "\(name): keep scenes short")
            case .failure(let p): XCTFail("\(name): \(p)")
            }
        }
    }

    func testAWordLikeNothingIsAnIdNotNull() throws {
        // Issue 24 item 7: `nothing` was read as YAML's null (the message word for it). Only a
        // plain empty value, `~` and `null` are null; `nothing` quoted or not is an id.
        for spelled in ["nothing", "'nothing'", "\"nothing\""] {
            let path = try write("""
                duration: 1
                clips: { nothing: \(beep) }
                emitters: { e: { clip: \(spelled), position: [1, 0, 0] } }
                events:
                  - { at: 0.5, play: \(spelled) }
                """)
            let s = try Scene.load(path: path)
            XCTAssertEqual(s.clips.map(\.id), ["nothing"], spelled)
            XCTAssertEqual(s.emitters.first?.clip, "nothing", spelled)
        }
        for null in ["~", "null", ""] {
            let path = try write("duration: 1\nclips: { b: \(beep) }\nemitters: { e: { clip: \(null), position: [1, 0, 0] } }\n")
            XCTAssertThrowsError(try Scene.load(path: path), null) { XCTAssertTrue("\($0)".contains("got nothing"), "\($0)") }
        }
    }

    func testDefaultsRelativePathsAndTimeOrder() throws {
        try FileManager.default.createDirectory(at: tmp.appendingPathComponent("sub/sounds"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: beep, toPath: tmp.appendingPathComponent("sub/sounds/b.wav").path)
        let path = try write("""
            duration: 3
            clips: { b: sounds/b.wav }
            emitters: { e: { clip: b, position: [1, 0, 0] } }
            events:
              - { at: 2.5, hint: end }
              - { at: 0.5, play: b }
              - { at: 2.5, stop: e }
              - { at: 1, hint: begin }
            """, name: "sub/s.yaml")
        let scene = try Scene.load(path: path)
        XCTAssertEqual(scene.name, "s")
        XCTAssertEqual(scene.sampleRate, 48_000)
        XCTAssertFalse(scene.hrtf)
        XCTAssertEqual(scene.distanceModel, .inverseClamped)
        XCTAssertEqual(scene.session, SceneSessionSettings())
        XCTAssertEqual(scene.clips.first?.path, tmp.appendingPathComponent("sub/sounds/b.wav").path)
        XCTAssertEqual(scene.listener, SceneListener())
        XCTAssertEqual(scene.emitters.first?.start, 0)
        XCTAssertEqual(scene.emitters.first?.priority, 128)
        XCTAssertEqual(scene.emitters.first?.loop, false)
        XCTAssertEqual(scene.events.map(\.time), [0.5, 1, 2.5, 2.5])
        XCTAssertEqual(scene.events.map(\.label), ["play b", "hint begin", "hint end", "stop e"], "same time: file order")
    }

    func testSessionSettingsParse() throws {
        let path = try write("""
            duration: 1
            session: { category: ambient, ducking: { level: -18, attack: 0.2, release: 1 } }
            """)
        let s = try Scene.load(path: path).session
        XCTAssertEqual(s.category, .ambient)
        XCTAssertEqual(s.ducking.levelDB, -18)
        XCTAssertEqual(s.ducking.linearLevel, 0.1259, accuracy: 1e-3)
        XCTAssertEqual(s.ducking.attack, 0.2)
        XCTAssertEqual(s.ducking.release, 1)
        XCTAssertEqual(SceneSessionSettings.Ducking().linearLevel, 0, "silent by default")
    }

    /// (YAML, line, column or nil, key, a fragment of the reason).
    private var malformed: [(String, Int, Int?, String, String)] {
        [
            ("duration: 2\nvolume: 3\n", 2, 1, "volume", "unknown key"),
            ("name: x\n", 1, 1, "duration", "required key is missing"),
            ("duration: long\n", 1, 11, "duration", "expected a number"),
            ("duration: \"2\"\n", 1, 11, "duration", "got the string \"2\""),
            ("duration: -1\n", 1, 11, "duration", "out of range"),
            ("duration: 2\nhrtf: yes please\n", 2, 7, "hrtf", "expected true or false"),
            ("duration: 2\ndistanceModel: cubic\n", 2, 16, "distanceModel", "not one of"),
            ("duration: 2\nclips:\n  step: no/such/step.wav\n", 3, 9, "clips.step", "no such file: no/such/step.wav"),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: b, position: [1, 2] }\n", 5, 29, "emitters.car.position", "expected [x, y, z]"),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: horn, position: [1, 2, 3] }\n", 5, 16, "emitters.car.clip", "no clip or sound with id \"horn\""),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: b, gain: -1, position: [0, 0, 0] }\n", 5, 25, "emitters.car.gain", "out of range"),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: b, priority: 300, position: [0, 0, 0] }\n", 5, 29, "emitters.car.priority", "out of range"),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: b }\n", 5, 8, "emitters.car.position", "required key is missing"),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: b, position: [0, 0, 0], path: { circle: { radius: 1, period: 1 } } }\n", 5, 46, "emitters.car.path", "not both"),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: b, path: { circle: { radius: 0, period: 1 } } }\n", 5, 45, "emitters.car.path.circle.radius", "out of range"),
            ("duration: 2\nclips:\n  b: \(beep)\nemitters:\n  car: { clip: b, path: { waypoints: [[1, 0, 0, 0], [1, 1, 0, 0]] } }\n", 5, 54, "emitters.car.path.waypoints[1][0]", "must increase"),
            ("duration: 2\nevents:\n  - { at: 1, music: theme, action: play }\n", 3, 21, "events[0].music", "no music track with id \"theme\""),
            ("duration: 2\nevents:\n  - { at: 1, stop: car }\n", 3, 20, "events[0].stop", "no emitter with id \"car\""),
            ("duration: 2\nevents:\n  - { at: 3, hint: begin }\n", 3, 11, "events[0].at", "out of range"),
            ("duration: 2\nevents:\n  - { at: 1, hint: maybe }\n", 3, 20, "events[0].hint", "not one of: begin, end"),
            ("duration: 2\nevents:\n  - { at: 1, hint: begin, colour: red }\n", 3, 27, "events[0].colour", "unknown key"),
            ("duration: 2\nevents:\n  - { at: 1 }\n", 3, 5, "events[0]", "an event needs one of"),
            ("duration: 2\nevents:\n  - { at: 1, interruption: began, shouldResume: true }\n", 3, 49, "events[0].shouldResume", "ended only"),
            ("duration: 2\nsession: { ducking: { level: loud } }\n", 2, 30, "session.ducking.level", "silent, or dB"),
            ("duration: 2\nlistener: { at: [0, 0, 0] }\n", 2, 17, "listener.at", "cannot be [0, 0, 0]"),
            ("duration: 2\nduration: 3\n", 2, 1, "duration", "duplicate key"),
            ("duration: 2\nevents: [ { at: 1, hint: begin }\n", 3, nil, "", "YAML syntax"),
        ]
    }

    func testMalformedScenesGiveFileLineAndKey() throws {
        for (i, (yaml, line, column, key, fragment)) in malformed.enumerated() {
            let path = try write(yaml, name: "bad\(i).yaml")
            guard case .failure(let problems) = Scene.check(path: path) else {
                XCTFail("case \(i) was accepted:\n\(yaml)")
                continue
            }
            guard case .invalid(let file, let l, let c, let k, let reason)? = problems.first else {
                XCTFail("case \(i): \(problems)")
                continue
            }
            XCTAssertEqual(file, path, "case \(i)")
            XCTAssertEqual(l, line, "case \(i): \(problems)")
            if let column { XCTAssertEqual(c, column, "case \(i): \(problems)") }
            XCTAssertEqual(k, key, "case \(i): \(problems)")
            XCTAssertTrue(reason.contains(fragment), "case \(i): \(reason)")
            let text = problems.first?.description ?? ""
            XCTAssertTrue(text.hasPrefix("\(path):\(line):"), text)
            XCTAssertThrowsError(try Scene.load(path: path), "case \(i)")
        }
    }

    func testEveryProblemIsReportedNotJustTheFirst() throws {
        let path = try write("duration: 2\nclips: { a: missing.wav }\nbogus: 1\nevents:\n  - { at: 1, play: nope }\n")
        guard case .failure(let p) = Scene.check(path: path) else { return XCTFail("accepted") }
        let keys = p.problems.compactMap { e -> String? in
            if case .invalid(_, _, _, let k, _) = e { return k } else { return nil }
        }
        XCTAssertEqual(keys, ["clips.a", "bogus", "events[0].play"])
    }

    func testMissingSceneFileAndNonYAML() throws {
        XCTAssertThrowsError(try Scene.load(path: tmp.appendingPathComponent("none.yaml").path)) { e in
            XCTAssertEqual(e as? SceneError, .unreadable(.fileNotFound(path: tmp.appendingPathComponent("none.yaml").path)))
        }
        let path = try write("- just\n- a list\n")
        guard case .failure(let p) = Scene.check(path: path), case .invalid(_, 1, _, "", let reason)? = p.first else {
            return XCTFail("a list is not a scene")
        }
        XCTAssertTrue(reason.contains("expected a mapping"), reason)
    }

    /// A scene's problem is a `SceneError` (it left `EarshotError`, issue 26): one line,
    /// FILE:LINE:COLUMN: key: reason, then where the keys are described in the package a game
    /// installed — not a path only a checkout of the repository has at hand.
    func testSceneErrorReadsAsOneLineAndSaysWhereTheKeysAreDescribed() throws {
        let invalid = SceneError.invalid(file: "a.yaml", line: 3, column: 7, key: "events[0].at", reason: "not a time\n(at all)")
        XCTAssertEqual(invalid.description,
                       "a.yaml:3:7: events[0].at: not a time\\n(at all) (every scene key is described in Demos/Scenes/README.md of the Earshot package)")
        XCTAssertTrue(SceneError.invalid(file: "a.yaml", line: 1, column: 1, key: "", reason: "empty").description.hasPrefix("a.yaml:1:1: empty ("))
        let missing = EarshotError.fileNotFound(path: "gone.yaml")
        XCTAssertEqual(SceneError.unreadable(missing).description, missing.description)
    }

    func testValidateCommandPrintsTheDocumentedLines() throws {
        let bad = try write("duration: 2\nclips:\n  step: gone.wav\n", name: "cli.yaml")
        let r = try CLIRunner.run("earshot", ["validate", bad])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("earshot: \(bad):3:9: clips.step: no such file: gone.wav"), r.stderr)
        let good = try CLIRunner.run("earshot", ["validate", "Demos/Scenes/showcase.yaml"])
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertTrue(good.stdout.contains("ok"), good.stdout)
        // Nothing plays and nothing is written for an invalid scene.
        let out = tmp.appendingPathComponent("never.wav").path
        let render = try CLIRunner.run("earshot", ["render", bad, "-o", out])
        XCTAssertEqual(render.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
