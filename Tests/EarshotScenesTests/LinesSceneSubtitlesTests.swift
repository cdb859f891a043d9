import Earshot
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot lines --scene SCENE --srt/--vtt`: the subtitles of the scene rendered offline, the
/// same cues `earshot render SCENE --subtitles` writes (one render path, no audio file), written
/// whole and only on success.
final class LinesSceneSubtitlesTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    func testLinesWritesWhatTheRenderSaidForTheDialogueDemo() throws {
        let scene = "Demos/Scenes/dialogue.yaml"
        let rendered = tmp.appendingPathComponent("render.srt").path
        let r = try CLIRunner.run("earshot", ["render", scene, "-o", tmp.appendingPathComponent("d.wav").path,
                                              "--subtitles", rendered, "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let srt = tmp.appendingPathComponent("lines.srt").path, vtt = tmp.appendingPathComponent("lines.vtt").path
        let l = try CLIRunner.run("earshot", ["lines", "--scene", scene, "--srt", srt, "--vtt", vtt])
        XCTAssertEqual(l.status, 0, l.stderr)
        XCTAssertTrue(l.stdout.contains("5 lines"), l.stdout)   // the scene's table checked, as `earshot lines TABLE`
        let expected = try String(contentsOfFile: rendered, encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: srt, encoding: .utf8), expected)
        XCTAssertEqual(expected.components(separatedBy: " --> ").count - 1, 4, expected)   // four cues: the grenade expired
        let webvtt = try String(contentsOfFile: vtt, encoding: .utf8)
        XCTAssertTrue(webvtt.hasPrefix("WEBVTT") && webvtt.contains("Halt! Who goes there?"), webvtt)
    }

    func testLinesWithASceneRefusesWhatItCannotSayAndWritesNothing() throws {
        let out = tmp.appendingPathComponent("x.srt").path
        // A scene without dialogue: exit 1, nothing written.
        let noDialogue = try CLIRunner.run("earshot", ["lines", "--scene", "Demos/Scenes/showcase.yaml", "--srt", out])
        XCTAssertEqual(noDialogue.status, 1)
        XCTAssertTrue(noDialogue.stderr.contains("has no dialogue: section"), noDialogue.stderr)
        // A table that is not the scene's.
        let other = tmp.appendingPathComponent("other.yaml").path
        try "locales: [en]\nlines: {}\n".write(toFile: other, atomically: true, encoding: .utf8)
        let mismatch = try CLIRunner.run("earshot", ["lines", other, "--scene", "Demos/Scenes/dialogue.yaml", "--srt", out])
        XCTAssertEqual(mismatch.status, 1)
        XCTAssertTrue(mismatch.stderr.contains("is not the line table of"), mismatch.stderr)
        // --locale is the review track's.
        let locale = try CLIRunner.run("earshot", ["lines", "--scene", "Demos/Scenes/dialogue.yaml", "--locale", "fr", "--srt", out])
        XCTAssertNotEqual(locale.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
