import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotTestSupport
import XCTest

/// Hostile and huge scenes (issue 12, items 5 and 6): refused up front with FILE:LINE:COLUMN and
/// the limit, never a stack overflow, never gigabytes. (The deep-nesting case killed this very
/// test process by SIGSEGV inside Yams before the pre-scan.)
final class SceneLimitsTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func problem(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> (line: Int, column: Int, reason: String)? {
        guard case .failure(let p) = Scene.check(yaml: yaml, path: "hostile.yaml"),
              case .invalid(let f, let l, let c, _, let reason)? = p.first else {
            XCTFail("accepted", file: file, line: line)
            return nil
        }
        XCTAssertEqual(f, "hostile.yaml", file: file, line: line)
        return (l, c, reason)
    }

    /// `clipMemory:` (MiB) is the scene's budget of decoded clip audio: clips whose headers add
    /// up to more are refused by `validate` and `render` alike, and the engine it renders on gets
    /// it as `maxTotalClipBytes`.
    func testClipMemoryIsTheScenesBudget() throws {
        let tone = tmp.appendingPathComponent("long.wav").path
        try SoxTone.write(to: tone, frequency: 440, seconds: 12)   // 576,000 frames: 1.15 MB as 16-bit mono
        let other = tmp.appendingPathComponent("other.wav").path
        try SoxTone.write(to: other, frequency: 660, seconds: 0.5)
        func scene(_ memory: String) throws -> String {
            try SceneFixtures.write("duration: 1\n\(memory)clips: { a: \(tone), b: \(other) }\nevents: [ { at: 0, play: a }, { at: 0, play: b } ]\n",
                                    name: "memory.yaml", in: tmp)
        }
        let tight = try scene("clipMemory: 1\n")
        let r = try CLIRunner.run("earshot", ["validate", tight])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("memory.yaml:3:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("over the scene's clipMemory of 1048576 bytes"), r.stderr)
        let out = tmp.appendingPathComponent("memory.wav").path
        XCTAssertEqual(try CLIRunner.run("earshot", ["render", tight, "-o", out]).status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let roomy = try Scene.load(path: try scene("clipMemory: 2\n"))
        XCTAssertEqual(roomy.clipMemory, 2 * 1_048_576)
        XCTAssertEqual(roomy.engineConfiguration(output: .loopback(sampleRate: 48_000)).maxTotalClipBytes, 2 * 1_048_576)
        XCTAssertNil(try Scene.load(path: try scene("")).clipMemory, "the engine's default")
        XCTAssertEqual(try CLIRunner.run("earshot", ["render", try scene("clipMemory: 2\n"), "-o", out]).status, 0)
        let p = try XCTUnwrap(problem("duration: 1\nclipMemory: 0\n"))
        XCTAssertTrue(p.reason.contains("1…65536"), p.reason)
    }

    func testDeepFlowNestingIsRefusedNotOverflowed() throws {
        let yaml = "duration: 2\nevents: " + String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000) + "\n"
        let p = try XCTUnwrap(problem(yaml))
        XCTAssertEqual(p.line, 2)
        XCTAssertEqual(p.column, 8 + SceneLimits.maxDepth, "the first bracket past the limit")
        XCTAssertTrue(p.reason.contains("nest deeper than 64 levels"), p.reason)
    }

    func testDeepBlockNestingIsRefused() throws {
        var yaml = "duration: 2\nevents:\n"
        for i in 1...200 { yaml += String(repeating: "  ", count: i) + "- \n" }
        let p = try XCTUnwrap(problem(yaml))
        XCTAssertTrue(p.reason.contains("nest deeper than 64 levels"), p.reason)
        // Exactly at the limit is fine as far as nesting goes (the scene is wrong in other ways).
        let ok = "duration: 2\nx: " + String(repeating: "[", count: SceneLimits.maxDepth - 1) + String(repeating: "]", count: SceneLimits.maxDepth - 1) + "\n"
        XCTAssertFalse((problem(ok)?.reason ?? "").contains("nest deeper"))
    }

    func testAliasBombIsRefused() throws {
        var yaml = "duration: 2\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for i in 1..<10 { yaml += "x\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let p = try XCTUnwrap(problem(yaml))
        XCTAssertTrue(p.reason.contains("YAML nodes once aliases are expanded"), p.reason)
        XCTAssertLessThanOrEqual(p.line, 10)
    }

    func testMoreEventsThanTheLimitAreRefusedBeforeAnyTreeIsBuilt() throws {
        var yaml = "duration: 10\nevents:\n"
        yaml.reserveCapacity((SceneLimits.maxEvents + 1) * 26)
        for _ in 0...SceneLimits.maxEvents { yaml += "  - { at: 1, hint: begin }\n" }
        let p = try XCTUnwrap(problem(yaml))
        XCTAssertEqual(p.line, SceneLimits.maxEvents + 3, "the first event past the limit")
        XCTAssertTrue(p.reason.contains("more than 1000000 events"), p.reason)
    }

    func testOtherCountsAndTheFileSize() throws {
        let clips = "duration: 2\nclips:\n" + (0...SceneLimits.maxClips).map { "  c\($0): x.wav\n" }.joined()
        XCTAssertTrue(try XCTUnwrap(problem(clips)).reason.contains("more than 10000 clips"))
        let zones = "duration: 2\nzones:\n" + (0...SceneLimits.maxZones).map { "  z\($0): { reverb: room, sphere: { radius: 1 } }\n" }.joined()
        XCTAssertTrue(try XCTUnwrap(problem(zones)).reason.contains("more than 256 zones"))
        let points = (0...SceneLimits.maxWaypoints).map { "[\($0), 0, 0, 0]" }.joined(separator: ", ")
        let waypoints = "duration: 2\nlistener: { path: { waypoints: [\(points)] } }\n"
        let w = try XCTUnwrap(problem(waypoints))
        XCTAssertTrue(w.reason.contains("waypoints; a scene may have at most 100000"), w.reason)

        // A file over 64 MiB is refused by its size, before it is read (a sparse file: no disk).
        let big = tmp.appendingPathComponent("big.yaml").path
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: Data("duration: 1\n".utf8)))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: UInt64(SceneLimits.maxFileBytes + 1))
        try handle.close()
        guard case .failure(let p) = Scene.check(path: big), case .invalid(_, 1, 1, "", let reason)? = p.first else {
            return XCTFail("a 64 MiB + 1 file was read")
        }
        XCTAssertTrue(reason.contains("a scene may have at most 67108864"), reason)
        let r = try CLIRunner.run("earshot", ["validate", big])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasPrefix("earshot: \(big):1:1: "), r.stderr)
    }
}
