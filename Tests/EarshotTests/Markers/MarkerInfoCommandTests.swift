import EarshotTestSupport
import Foundation
import XCTest

/// `earshot info FILE` lists a file's markers (time, frame, kind, length, id, name) in text and
/// JSON, and reports marker chunks it cannot read without failing the file.
final class MarkerInfoCommandTests: XCTestCase {
    func testInfoListsMarkersInTextAndJSON() throws {
        let tool = try FFmpegTool()
        let path = tool.path("cues.wav")
        var spec = MarkerFiles.Spec(rate: 48_000, frames: 48_000)
        spec.cues = [MarkerFiles.Cue(id: 1, frame: 12_000, name: "hit"),
                     MarkerFiles.Cue(id: 2, frame: 36_000, name: "line", length: 4_800),
                     MarkerFiles.Cue(id: 3, frame: 60_000, name: "gone")]
        try MarkerFiles.write(spec, to: path)

        let text = try CLIRunner.run("earshot", ["info", path])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("markers:     2 (1 past the end of the audio or unusable, left out)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  0.250000 s  frame 12000  cue  id 1  \"hit\""), text.stdout)
        XCTAssertTrue(text.stdout.contains("  0.750000 s  frame 36000  region  length 4800 frames (0.100000 s)  id 2  \"line\""), text.stdout)

        let json = try CLIRunner.run("earshot", ["info", "--json", path])
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let markers = try XCTUnwrap(object["markers"] as? [[String: Any]])
        XCTAssertEqual(markers.map { $0["frame"] as? Int }, [12_000, 36_000])
        XCTAssertEqual(markers.map { $0["seconds"] as? Double }, [0.25, 0.75])
        XCTAssertEqual(markers.map { $0["name"] as? String }, ["hit", "line"])
        XCTAssertEqual(markers.map { $0["kind"] as? String }, ["cue", "region"])
        XCTAssertEqual(markers[1]["length"] as? Int, 4_800)
        XCTAssertEqual(markers[1]["lengthSeconds"] as? Double, 0.1)
        XCTAssertTrue(markers[0]["length"] is NSNull)
        XCTAssertEqual(object["markersLeftOut"] as? Int, 1)
        XCTAssertTrue(object["markersUnreadable"] is NSNull)

        // A lying cue count: the file is still described (exit 0), its markers unreadable.
        let lying = tool.path("lying.wav")
        spec.cueCount = 9
        try MarkerFiles.write(spec, to: lying)
        let bad = try CLIRunner.run("earshot", ["info", lying])
        XCTAssertEqual(bad.status, 0, bad.stderr)
        XCTAssertTrue(bad.stdout.contains("frames:      48000"), bad.stdout)
        XCTAssertTrue(bad.stdout.contains("markers:     unreadable (the audio is not affected): "), bad.stdout)
        XCTAssertTrue(bad.stdout.contains("the cue chunk claims 9 entries of 24 bytes but holds 72 bytes"), bad.stdout)
        let badJSON = try CLIRunner.run("earshot", ["info", "--json", lying])
        let badObject = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(badJSON.stdout.utf8)) as? [String: Any])
        XCTAssertTrue((badObject["markersUnreadable"] as? String)?.contains("cue chunk claims 9") == true, badJSON.stdout)
        XCTAssertEqual((badObject["markers"] as? [Any])?.count, 0)
    }
}
