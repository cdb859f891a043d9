import Earshot
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Validation that catches intent: "did you mean" for typos, warnings for what will not do what
/// it says, `validate --strict` and `--json`.
final class SceneValidationTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func problems(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try SceneFixtures.problems(yaml, in: tmp, file: file, line: line)
    }

    func testTyposNameTheWordTheyDidNotKnowAndTheNearestOne() throws {
        XCTAssertTrue(try problems("durration: 3\nduration: 2\n").contains("unknown key 'durration' (did you mean 'duration'?)"))
        let beep = SceneFixtures.beep
        let event = try problems("duration: 2\nclips:\n  coin: \(beep)\nevents:\n  - { at: 1, plya: coin }\n")
        XCTAssertTrue(event.contains("events[0]: unknown event word 'plya' (did you mean 'play'?)"), event)
        let id = try problems("duration: 2\nclips:\n  footstep: \(beep)\nevents:\n  - { at: 1, play: footsetp }\n")
        XCTAssertTrue(id.contains("no clip or sound with id \"footsetp\" (did you mean 'footstep'?)"), id)
        // Nothing near: no guess.
        XCTAssertFalse(try problems("duration: 2\nzebra: 1\n").contains("did you mean"))
    }

    private func writeWarningScene() throws -> String {
        let beep = SceneFixtures.beep
        let music = CLIRunner.packageRoot.appendingPathComponent("Assets/Music/ambience.wav").path
        return try SceneFixtures.write("""
            duration: 5
            distanceModel: linearClamped
            maxDistance: 10
            clips:
              beep: \(beep)
              coin: \(beep)
            music:
              theme: { file: \(music) }
            emitters:
              far: { clip: beep, loop: true, position: [0, 0, -20] }
            events:
              - { at: 0.5, music: theme, action: fade, volume: 0.2, duration: 1 }
              - { at: 1, hint: end }
              - { at: 2, music: theme, action: play }
              - { at: 3, music: theme, action: stop, fade: 0.005 }
              - { at: 4, stop: far }
              - { at: 4.5, stop: far }
            """, name: "warn.yaml", in: tmp)
    }

    func testWarningsForEventsWithoutEffectShortFadesSilentEmittersAndUnusedClips() throws {
        let scene = try Scene.load(path: try writeWarningScene())
        let w = scene.warnings()
        let text = w.map(\.description).joined(separator: "\n")
        XCTAssertEqual(w.count, 6, text)
        XCTAssertTrue(text.contains("warn.yaml:12:5: events: music theme fade at 0.5 s has no effect"), text)
        XCTAssertTrue(text.contains("hint: end at 1.0 s without a begin"), text)
        XCTAssertTrue(text.contains("stop fade 0.005 s is shorter than the engine's 0.02 s"), text)
        XCTAssertTrue(text.contains("stop far at 4.5 s has no effect: it was stopped before"), text)
        // Issue 24 item 7: entry warnings carry the line of the entry's key too.
        XCTAssertTrue(text.contains("warn.yaml:6:3: clips.coin: never used"), text)
        XCTAssertTrue(text.contains("warn.yaml:10:3: emitters.far: never comes within maxDistance (10.0 m; closest 20.0 m)"), text)
        // The demo scenes do what they say.
        for name in try FileManager.default.contentsOfDirectory(atPath: SceneFixtures.scenesFolder) where name.hasSuffix(".yaml") {
            XCTAssertEqual(try Scene.load(path: SceneFixtures.path(name)).warnings(), [], name)
        }
    }

    func testValidatePrintsWarningsStrictRefusesAndJSONCarriesEverything() throws {
        let path = try writeWarningScene()
        let plain = try CLIRunner.run("earshot", ["validate", path])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.stderr.components(separatedBy: "earshot: warning: ").count - 1, 6, plain.stderr)
        XCTAssertTrue(plain.stdout.contains("6 warnings"), plain.stdout)
        let strict = try CLIRunner.run("earshot", ["validate", path, "--strict"])
        XCTAssertEqual(strict.status, 1)
        XCTAssertTrue(strict.stderr.contains("6 warnings (--strict)"), strict.stderr)

        let json = try CLIRunner.run("earshot", ["validate", path, "--json", "--strict"])
        XCTAssertEqual(json.status, 1)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], json.stdout)
        XCTAssertEqual(report["ok"] as? Bool, false)
        XCTAssertEqual((report["warnings"] as? [[String: Any]])?.count, 6)
        XCTAssertEqual((report["warnings"] as? [[String: Any]])?.first?["line"] as? Int, 12)

        let bad = try SceneFixtures.write("duration: 2\nvolume: 3\n", name: "bad.yaml", in: tmp)
        let badJSON = try CLIRunner.run("earshot", ["validate", bad, "--json"])
        XCTAssertEqual(badJSON.status, 1)
        let badReport = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(badJSON.stdout.utf8)) as? [String: Any])
        let first = try XCTUnwrap((badReport["problems"] as? [[String: Any]])?.first)
        XCTAssertEqual(first["line"] as? Int, 2)
        XCTAssertEqual(first["key"] as? String, "volume")
        XCTAssertTrue((first["reason"] as? String)?.contains("unknown key 'volume'") == true)
    }
}

/// Reuse in scenes: anchors in `templates:` and merge keys, and the two-documents message.
final class SceneReuseTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    func testMergeKeysBringInATemplateAndOwnKeysWin() throws {
        let yaml = """
            duration: 3
            clips:
              beep: \(SceneFixtures.beep)
            templates:
              step: &step { play: beep, gain: 0.5, pitch: 1.5 }
              far: &far { position: [0, 0, -10] }
            events:
              - { <<: *step, at: 1 }
              - { <<: [*step, *far], at: 2, gain: 0.25 }
            """
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
        XCTAssertEqual(scene.events.count, 2)
        guard case .play(let first) = scene.events[0].action, case .play(let second) = scene.events[1].action else {
            return XCTFail("\(scene.events)")
        }
        let (clip, p0, g0, pitch0) = (first.id, first.position, first.gain, first.pitch)
        let (p1, g1) = (second.position, second.gain)
        XCTAssertEqual(clip, "beep")
        XCTAssertNil(p0)
        XCTAssertEqual(g0, 0.5)
        XCTAssertEqual(pitch0, 1.5)
        XCTAssertEqual(p1, Vector3(0, 0, -10), "a list of merges")
        XCTAssertEqual(g1, 0.25, "the event's own key wins")
        // A merged key the event does not take is named like any other.
        let bad = yaml.replacingOccurrences(of: "far: &far { position: [0, 0, -10] }", with: "far: &far { colour: red }")
        XCTAssertThrowsError(try Scene.load(path: try SceneFixtures.write(bad, in: tmp))) { error in
            XCTAssertTrue("\(error)".contains("unknown key 'colour'"), "\(error)")
        }
    }

    func testASecondDocumentIsNamedPlainly() throws {
        let path = try SceneFixtures.write("duration: 2\n---\nduration: 3\n", in: tmp)
        XCTAssertThrowsError(try Scene.load(path: path)) { error in
            XCTAssertTrue("\(error)".contains(":2:1: a second YAML document starts here"), "\(error)")
        }
    }
}
