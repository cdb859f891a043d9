import Earshot
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// `validate` ok means `render` starts (issue 24, class 5): what the engine refuses when it loads
/// or plays — music it cannot stream, clips without frames, offsets at a clip's end, loops past
/// 2³¹ frames — `validate` refuses first, with FILE:LINE:COLUMN: key: reason, through the same
/// checker (PlayabilityCheck), and `render` refuses the same way (it validates the same scene).
final class SceneValidateAgreesWithRenderTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// A 16-bit PCM WAV of `frames` frames (silence).
    func wav(_ name: String, channels: Int = 1, rate: Int = 8_000, frames: Int) throws -> String {
        func le(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let data = frames * channels * 2
        let bytes = Array("RIFF".utf8) + le(36 + data, 4) + Array("WAVEfmt ".utf8) + le(16, 4) + le(1, 2) + le(channels, 2)
            + le(rate, 4) + le(rate * channels * 2, 4) + le(channels * 2, 2) + le(16, 2) + Array("data".utf8) + le(data, 4)
            + [UInt8](repeating: 0, count: data)
        let path = tmp.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return path
    }

    /// A big-endian 16-bit mono CAF at 8 kHz whose data runs to the end of a sparse file of
    /// `frames` frames (no disk used).
    func sparseCAF(_ name: String, frames: Int) throws -> String {
        func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> UInt64(8 * (n - 1 - $0))) } }
        let desc = be(8_000.0.bitPattern, 8) + Array("lpcm".utf8) + be(0, 4) + be(2, 4) + be(1, 4) + be(1, 4) + be(16, 4)
        let head = Array("caff".utf8) + [0, 1, 0, 0] + Array("desc".utf8) + be(32, 8) + desc + Array("data".utf8) + be(UInt64.max, 8) + [0, 0, 0, 0]
        let path = tmp.appendingPathComponent(name).path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(head)))
        XCTAssertEqual(truncate(path, off_t(head.count + frames * 2)), 0)
        return path
    }

    /// Runs `validate` and `render` on `yaml`; both must exit 1 with the same first problem, at
    /// `key` on `line`, mentioning `reason`.
    func assertBothRefuse(_ yaml: String, line: Int, key: String, reason: String, file: StaticString = #filePath, at: UInt = #line) throws {
        let scene = tmp.appendingPathComponent("s-\(UUID().uuidString).yaml").path
        try yaml.write(toFile: scene, atomically: true, encoding: .utf8)
        let v = try CLIRunner.run("earshot", ["validate", scene])
        XCTAssertEqual(v.status, 1, "validate: \(v.stderr)", file: file, line: at)
        let r = try CLIRunner.run("earshot", ["render", scene, "-o", tmp.appendingPathComponent("o.wav").path, "--quiet"])
        XCTAssertEqual(r.status, 1, "render: \(r.stderr)", file: file, line: at)
        let expected = "\(scene):\(line):"
        for (what, out) in [("validate", v.stderr), ("render", r.stderr)] {
            let first = out.split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertTrue(first.contains(expected) && first.contains(": \(key): ") && first.contains(reason),
                          "\(what) said: \(first)", file: file, line: at)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.appendingPathComponent("o.wav").path), file: file, line: at)
    }

    func scene(music: String) -> String {
        "duration: 0.5\nmusic:\n  m: { file: \(music) }\nevents:\n  - { at: 0, music: m, action: play }\n"
    }

    func testMusicThatCannotBeStreamedIsRefusedByBoth() throws {
        let ima4 = tmp.appendingPathComponent("ima4.caf").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=8000:duration=0.2",
                       "-c:a", "adpcm_ima_qt", ima4]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        try assertBothRefuse(scene(music: ima4), line: 3, key: "music.m.file", reason: "cannot stream")
        try assertBothRefuse(scene(music: try wav("six.wav", channels: 6, frames: 100)), line: 3, key: "music.m.file", reason: "6 channels")
        try assertBothRefuse(scene(music: try wav("one-hz.wav", rate: 1, frames: 100)), line: 3, key: "music.m.file", reason: "sample rate 1 Hz")
        try assertBothRefuse(scene(music: try wav("empty.wav", frames: 0)), line: 3, key: "music.m.file", reason: "no audio frames")
    }

    func testClipsAndPlaysTheEngineWouldRefuseAreRefusedByBoth() throws {
        let empty = try wav("empty-clip.wav", frames: 0)
        try assertBothRefuse("duration: 0.5\nclips:\n  c: \(empty)\n", line: 3, key: "clips.c", reason: "no audio frames")
        // 800 frames at 8 kHz: 0.1 s. An offset of 0.1 s is at its end (nothing to play).
        let short = try wav("short.wav", frames: 800)
        try assertBothRefuse("duration: 0.5\nclips:\n  c: \(short)\nevents:\n  - { at: 0, play: c, offset: 0.1 }\n",
                             line: 5, key: "events[0].offset", reason: "is not inside clip c")
        // 0.0999 s is inside: validate accepts it.
        let okScene = tmp.appendingPathComponent("ok.yaml").path
        try "duration: 0.5\nclips:\n  c: \(short)\nevents:\n  - { at: 0, play: c, offset: 0.0999, loops: 3 }\n".write(toFile: okScene, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLIRunner.run("earshot", ["validate", okScene]).status, 0)
        // 2.2 M frames × 1001 passes are past 2³¹ frames; through a sound too.
        let long = try sparseCAF("long.caf", frames: 2_200_000)
        try assertBothRefuse("duration: 0.5\nclips:\n  c: \(long)\nevents:\n  - { at: 0, play: c, loops: 1000 }\n",
                             line: 5, key: "events[0].loops", reason: "exceed OpenAL's 2³¹ frames")
        try assertBothRefuse("duration: 0.5\nclips:\n  c: \(long)\nsounds:\n  s: { clips: [c] }\nevents:\n  - { at: 0, play: s, loops: 1000 }\n",
                             line: 7, key: "events[0].loops", reason: "exceed OpenAL's 2³¹ frames")
    }
}

extension SceneValidateAgreesWithRenderTests {
    /// Six hard links to one sparse clip of 100 M frames (200 MB each as mono 16-bit, each under
    /// the 512 MiB per-clip limit): together over the engine's 1 GiB budget, refused by `validate`
    /// and `render` at `clips` before anything is decoded. Symlinks to one file count once.
    func testClipsOverTheEngineBudgetAreRefusedUpFront() throws {
        let one = try sparseCAF("one.caf", frames: 100_000_000)
        var lines = ["duration: 0.5", "clips:"]
        for i in 0..<6 {
            let link = tmp.appendingPathComponent("link\(i).caf").path
            XCTAssertEqual(Glibc.link(one, link), 0)
            lines.append("  c\(i): \(link)")
        }
        try assertBothRefuse(lines.joined(separator: "\n") + "\n", line: 3, key: "clips", reason: "over the engine's budget")
        // Six symlinks are one file: accepted.
        var ok = ["duration: 0.5", "clips:"]
        for i in 0..<6 {
            let link = tmp.appendingPathComponent("sym\(i).caf").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: one)
            ok.append("  c\(i): \(link)")
        }
        guard case .success = Scene.check(yaml: ok.joined(separator: "\n") + "\n", path: tmp.appendingPathComponent("ok.yaml").path) else {
            return XCTFail("six symlinks to one file refused")
        }
    }
}

extension SceneValidateAgreesWithRenderTests {
    /// A scene's play is judged by the engine's own rule (`PlayResolver`, issue 26): `validate`
    /// states its words against the clip's header, and a render refuses a play the loaded clip
    /// cannot take (a scene changed after validation) with the same words, naming the event's
    /// line, before anything is written.
    func testScenePlayTimingIsTheEnginesRule() throws {
        let short = try wav("rule.wav", frames: 800)   // 0.1 s at 8 kHz
        func rule(_ body: () throws(EarshotError) -> Void) -> String {
            do throws(EarshotError) { try body() } catch {
                if case .invalidArgument(let what) = error { return what }
            }
            return "(no error)"
        }
        let offsetRule = rule { () throws(EarshotError) in
            _ = try PlayResolver.startFrame(offset: 0.1, clipFrames: 800, sampleRate: 8_000, clipName: "clip c")
        }
        XCTAssertEqual(offsetRule, "offset 0.1 s is not inside clip c (0.1 s)")
        let path = tmp.appendingPathComponent("rule.yaml").path
        guard case .failure(let p) = Scene.check(yaml: "duration: 0.5\nclips:\n  c: \(short)\nevents:\n  - { at: 0, play: c, offset: 0.1 }\n", path: path),
              case .invalid(_, 5, _, "events[0].offset", let reason)? = p.first else { return XCTFail("accepted or elsewhere") }
        XCTAssertEqual(reason, offsetRule)

        var scene = try Scene.load(path: try SceneFixtures.write("duration: 0.5\nclips:\n  c: \(short)\nevents:\n  - { at: 0.1, play: c, offset: 0.05 }\n",
                                                                 name: "ok-rule.yaml", in: tmp))
        guard case .play(var play) = scene.events[0].action else { return XCTFail("not a play") }
        play.offset = 0.1
        scene.events[0].action = .play(play)
        let out = tmp.appendingPathComponent("rule.wav.out.wav").path
        XCTAssertThrowsError(try SceneRenderer(scene: scene).render(to: out)) { error in
            guard case .invalidArgument(let what)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertEqual(what, "\(scene.file):5: the play of c: \(offsetRule)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing written")
    }
}
