import Foundation
import EarshotTestSupport
import XCTest

/// `earshot render`, `earshot play SCENE` (offline, no device, live with Ctrl-C) and `--help`.
final class SceneCommandTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    func testRenderFormats() throws {
        let s16 = tmp.appendingPathComponent("a.wav").path, f32 = tmp.appendingPathComponent("b.wav").path
        XCTAssertEqual(try CLIRunner.run("earshot", ["render", "Demos/Scenes/orbit.yaml", "-o", s16, "--duration", "1", "--quiet"]).status, 0)
        let r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/orbit.yaml", "-o", f32, "--format", "f32", "--duration", "1", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stderr, "", "--quiet prints nothing")
        let a = try RenderedAudio(path: s16), b = try RenderedAudio(path: f32)
        XCTAssertEqual(a.frameCount, 48_000)
        XCTAssertEqual(b.frameCount, 48_000)
        XCTAssertEqual(a.rms(0, 1), b.rms(0, 1), accuracy: 1e-3, "same scene, same mix")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: f32)[.size] as? Int ?? 0, 48_000 * 8 + 58, accuracy: 64)
        let bad = try CLIRunner.run("earshot", ["render", "Demos/Scenes/orbit.yaml", "-o", s16, "--format", "mp3"])
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains("--format takes s16 or f32"), bad.stderr)
    }

    func testPlaySceneOfflineAndWithoutADevice() throws {
        let out = tmp.appendingPathComponent("p.wav").path
        let r = try CLIRunner.run("earshot", ["play", "Demos/Scenes/footsteps.yaml", "--out", out, "--seconds", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try RenderedAudio(path: out).frameCount, 48_000)
        let none = try CLIRunner.run("earshot", ["play", "Demos/Scenes/orbit.yaml"], environment: ["ALSOFT_DRIVERS": "null-none"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.hasPrefix("earshot: no audio output device"), none.stderr)
    }

    func testPlaySceneLiveStopsCleanlyOnCtrlC() throws {
        // OpenAL Soft's null backend: a real-time device that plays to nowhere.
        let process = Process()
        process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("earshot")
        process.arguments = ["play", "Demos/Scenes/showcase.yaml"]
        process.currentDirectoryURL = CLIRunner.packageRoot
        process.environment = ProcessInfo.processInfo.environment.merging(["ALSOFT_DRIVERS": "null"]) { $1 }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 2.4)
        process.interrupt()   // SIGINT, as Ctrl-C sends
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { process.terminate(); XCTFail("did not stop after SIGINT") }
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationReason, .exit, "exits by itself, not killed by the signal")
        XCTAssertEqual(process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("playing \"showcase\""), stderr)
        XCTAssertTrue(stderr.contains("hint begin"), "session events are shown: \(stderr)")
        XCTAssertTrue(stderr.contains("earshot: stopped at"), stderr)
        XCTAssertFalse(stderr.contains("hint end"), "stopped before 4 s: \(stderr)")
    }

    func testEveryCommandHasHelp() throws {
        for command in ["render", "validate", "play", "devices", "info", "decode", "stress"] {
            let r = try CLIRunner.run("earshot", [command, "--help"])
            XCTAssertEqual(r.status, 0, command)
            XCTAssertTrue(r.stdout.contains("USAGE: earshot \(command)"), "\(command): \(r.stdout)")
        }
        let play = try CLIRunner.run("earshot", ["play", "--help"])
        XCTAssertTrue(play.stdout.contains(".yaml"), play.stdout)
    }
}
