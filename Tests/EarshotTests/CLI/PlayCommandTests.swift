import CSndFile
import Foundation
import EarshotTestSupport
import XCTest

/// The `earshot` CLI run as a process: offline renders, bad files, no device.
final class PlayCommandTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws {
        tmp = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: tmp)
    }

    private func frames(ofWAV path: String) -> (frames: Int, channels: Int, rate: Int)? {
        var info = SF_INFO()
        guard let f = sf_open(path, Int32(SFM_READ), &info) else { return nil }
        sf_close(f)
        return (Int(info.frames), Int(info.channels), Int(info.samplerate))
    }

    func testMusicSpeedStretchesOrActsAsATapeAndIsValidated() throws {
        let tone = tmp.appendingPathComponent("a440.wav").path
        try SoxTone.write(to: tone, frequency: 440)
        for (args, seconds) in [(["--speed", "0.5"], 2.0), (["--speed", "2", "--tape"], 0.5)] {
            let out = tmp.appendingPathComponent("speed-\(seconds).wav").path
            let r = try CLIRunner.run("earshot", ["play", tone, "--music"] + args + ["--out", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            // The render stops when the track ends (rounded up to the 10 ms render block).
            let frames = Double(try XCTUnwrap(frames(ofWAV: out)).frames)
            XCTAssertEqual(frames / 48_000, seconds, accuracy: seconds * 0.02 + 0.01, "\(args)")
        }
        for (args, message) in [(["--music", "--speed", "3"], "--speed must be within 0.5…2"),
                                (["--speed", "0.8"], "--speed and --tape go with --music")] {
            let r = try CLIRunner.run("earshot", ["play", tone] + args + ["--out", tmp.appendingPathComponent("x.wav").path])
            XCTAssertEqual(r.status, 1, "\(args)")
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
        }
    }

    func testRenderOfflineWritesStereoWAVOfTheRequestedLength() throws {
        let out = tmp.appendingPathComponent("beep.wav").path
        let r = try CLIRunner.run("earshot", ["play", "Assets/Sounds/beep.wav", "--at", "3,0,0", "--out", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let wav = try XCTUnwrap(frames(ofWAV: out))
        XCTAssertEqual(wav.channels, 2)
        XCTAssertEqual(wav.rate, 48_000)
        XCTAssertEqual(wav.frames, 12_000)   // the clip's 0.25 s at 48 kHz

        let looped = tmp.appendingPathComponent("loop.wav").path
        let r2 = try CLIRunner.run("earshot", ["play", "Assets/Sounds/beep.wav", "--loop", "--seconds", "1.5", "--rate", "44100", "--out", looped])
        XCTAssertEqual(r2.status, 0, r2.stderr)
        XCTAssertEqual(frames(ofWAV: looped)?.frames, 66_150)
        XCTAssertEqual(frames(ofWAV: looped)?.rate, 44_100)
    }

    func testPlaysAppleIMA4CAF() throws {
        // libsndfile refuses IMA4 in CAF; the CLI must use Earshot's own decoder.
        let out = tmp.appendingPathComponent("step.wav").path
        let r = try CLIRunner.run("earshot", ["play", "Assets/Sounds/step-ima4.caf", "--at", "2,0,0", "--out", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThan(frames(ofWAV: out)?.frames ?? 0, 6_000)
    }

    func testMissingFileAndTextFileFailWithOneLine() throws {
        let out = tmp.appendingPathComponent("x.wav").path
        let missing = try CLIRunner.run("earshot", ["play", "no/such/file.wav", "--out", out])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(missing.stderr, "earshot: no/such/file.wav: no such file\n")

        let text = tmp.appendingPathComponent("notes.wav")
        try "these are not samples\n".write(to: text, atomically: true, encoding: .utf8)
        let bad = try CLIRunner.run("earshot", ["play", text.path, "--out", out])
        XCTAssertEqual(bad.status, 1)
        let lines = bad.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, bad.stderr)
        XCTAssertTrue(bad.stderr.hasPrefix("earshot: \(text.path): "), bad.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing is written for a bad input")
    }

    func testNoOutputDeviceIsAnErrorNotACrash() throws {
        // Real condition: OpenAL's ALSA backend on a machine without a sound card.
        let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
        try XCTSkipIf(cards.contains("["), "this machine has a sound card: \(cards)")
        let r = try CLIRunner.run("earshot", ["play", "Assets/Sounds/beep.wav"], environment: ["ALSOFT_DRIVERS": "alsa"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.hasSuffix("earshot: no audio output device (use --out FILE.wav to render offline)\n"), r.stderr)
    }

    func testDevicesJSONIsCleanJSON() throws {
        let r = try CLIRunner.run("earshot", ["devices", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(object?["version"] as? String, "1.1 ALSOFT 1.19.1")
        XCTAssertTrue((object?["alcExtensions"] as? [String])?.contains("ALC_SOFT_loopback") ?? false)
    }

    func testOrbitDemoRendersHeadless() throws {
        let out = tmp.appendingPathComponent("orbit.wav").path
        let r = try CLIRunner.run("Orbit", [out], environment: ["ALSOFT_DRIVERS": "null-none"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(frames(ofWAV: out)?.frames, 8 * 48_000)
    }
}
