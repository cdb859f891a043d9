import Earshot
import EarshotTestSupport
import XCTest

/// Demos/Bank runs headless (no output device: it renders its WAV and exits 0), stays within
/// 60 lines, and does what it says: footsteps and a car, then the bank's pause snapshot.
final class BankDemoTests: XCTestCase {
    func testTheBankDemoPlaysFootstepsACarAndPauses() throws {
        let root = CLIRunner.packageRoot
        let source = try String(contentsOf: root.appendingPathComponent("Demos/Bank/main.swift"), encoding: .utf8)
        XCTAssertLessThanOrEqual(source.split(separator: "\n", omittingEmptySubsequences: false).count, 60)
        let out = NSTemporaryDirectory() + "earshot-bank-demo-\(getpid()).wav"
        defer { unlink(out) }
        let r = try CLIRunner.run("Bank", [out], environment: ["ALSOFT_DRIVERS": "null-none"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Bank: wrote \(out)"), r.stdout)
        let audio = try SndFileDecoder.decode(path: out)
        XCTAssertEqual(audio.frameCount, 4 * 48_000)
        guard case .int16(let s) = audio.samples else { return XCTFail("expected 16-bit samples") }
        let x = s.map { Float($0) / 32_768 }
        let playing = Level.rms(x, from: 48_000, to: 115_200)          // 1.0–2.4 s
        let paused = Level.rms(x, from: 144_000, to: 192_000)          // 3.0–4.0 s, the snapshot in force
        XCTAssertGreaterThan(playing, 0.01, "footsteps and the car are heard")
        XCTAssertLessThan(Level.dB(paused, over: playing), -15, "the pause snapshot takes the game down")
        XCTAssertGreaterThan(paused, 0, "paused, not stopped")
    }
}
