import Earshot
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot render --from/--to` (a section that sounds exactly as in the whole render) and
/// `--watch` (render again when the scene changes).
final class RenderSectionTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    func testASectionIsBitIdenticalToTheSameSpanOfTheWholeRender() throws {
        let whole = tmp.appendingPathComponent("whole.wav").path, part = tmp.appendingPathComponent("part.wav").path
        let plot = tmp.appendingPathComponent("part.svg").path
        var r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/showcase.yaml", "-o", whole, "--format", "f32"])
        XCTAssertEqual(r.status, 0, r.stderr)
        r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/showcase.yaml", "-o", part, "--format", "f32",
                                          "--from", "4.2", "--to", "6", "--plot", plot])
        XCTAssertEqual(r.status, 0, r.stderr)
        let a = try RenderedAudio(path: whole), b = try RenderedAudio(path: part)
        XCTAssertEqual(b.frameCount, Int(1.8 * 48_000))
        let start = Int(4.2 * 48_000) * 2
        XCTAssertEqual(Array(a.samples[start..<(start + b.samples.count)]), b.samples,
                       "what came before ran silently, so the section sounds as in the whole render")
        XCTAssertGreaterThan(b.rms(0, 1.8), 0.01)
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        XCTAssertTrue(svg.contains("showcase from 4.2 s"), "the plot says which section")
        XCTAssertTrue(svg.contains("interruption began"), "events of the section, at their section times")

        for (args, words) in [(["--from", "6", "--to", "4"], "--from must come before --to"),
                              (["--to", "3", "--duration", "3"], "give one"),
                              (["--from", "-1"], "--from must be 0 or more")] {
            let bad = try CLIRunner.run("earshot", ["render", "Demos/Scenes/showcase.yaml", "-o", tmp.appendingPathComponent("x.wav").path] + args)
            XCTAssertEqual(bad.status, 1, "\(args)")
            XCTAssertTrue(bad.stderr.contains(words), bad.stderr)
        }
    }

    func testASectionOffAGameFrameIsExactAtAnySample() throws {
        // Issue 24 item 7: --from between two 60 Hz frames cut the render at its own sample, and
        // OpenAL's gain ramps made the first partial frame differ from the whole render's.
        let scene = try Scene.load(path: "Demos/Scenes/showcase.yaml")
        let whole = tmp.appendingPathComponent("whole.wav").path
        _ = try SceneRenderer(scene: scene).render(to: whole, format: .f32, duration: 5)
        let a = try RenderedAudio(path: whole)
        for from in [1.23457, 4.20713, 0.00002] {
            let part = tmp.appendingPathComponent("part.wav").path
            _ = try SceneRenderer(scene: scene).render(to: part, format: .f32, from: from, duration: 5)
            let b = try RenderedAudio(path: part)
            let start = Int((from * 48_000).rounded())
            XCTAssertEqual(b.frameCount, 5 * 48_000 - start, "\(from)")
            let expected = Array(a.samples[(start * 2)...])
            let differing = zip(expected, b.samples).filter { $0 != $1 }.count
            XCTAssertEqual(differing, 0, "from \(from) s: \(differing) samples differ from the whole render")
        }
    }

    func testWatchRendersAgainWhenTheSceneChanges() throws {
        let scene = try SceneFixtures.write("duration: 1\nclips:\n  beep: \(SceneFixtures.beep)\nevents:\n  - { at: 0.1, play: beep }\n",
                                            name: "watched.yaml", in: tmp)
        let out = tmp.appendingPathComponent("watched.wav").path
        let log = tmp.appendingPathComponent("watch.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
        let p = Process()
        p.executableURL = CLIRunner.productsDirectory.appendingPathComponent("earshot")
        p.arguments = ["render", scene, "-o", out, "--watch"]
        p.standardError = try FileHandle(forWritingTo: log)
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        func waitFor(_ text: String, count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let s = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if s.components(separatedBy: text).count - 1 >= count { return true }
                usleep(100_000)
            }
            return false
        }
        XCTAssertTrue(waitFor("wrote \(out) (48000 frames", count: 1), "the first render")
        // Saved again, two seconds long: rendered again.
        usleep(1_100_000)   // a new modification time, whatever the file system's resolution
        try "duration: 2\nclips:\n  beep: \(SceneFixtures.beep)\nevents:\n  - { at: 0.1, play: beep }\n"
            .write(toFile: scene, atomically: true, encoding: .utf8)
        XCTAssertTrue(waitFor("wrote \(out) (96000 frames", count: 1), "the second render")
        // Broken: said, and still watching.
        usleep(1_100_000)
        try "duration: 2\nvolume: 3\n".write(toFile: scene, atomically: true, encoding: .utf8)
        XCTAssertTrue(waitFor("not rendered; watching", count: 1))
        XCTAssertTrue(p.isRunning)
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 130, "Ctrl-C ends the watch")
        XCTAssertEqual(try RenderedAudio(path: out).frameCount, 96_000, "the last good render stays")
    }
}
