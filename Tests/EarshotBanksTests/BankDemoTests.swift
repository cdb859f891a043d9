import Earshot
import EarshotMeasure
import EarshotTestSupport
import XCTest

/// Demos/Bank runs headless (no output device: it renders its WAV and exits 0), stays within
/// 60 lines, and does what it says: footsteps and a car revving through its layers, then the
/// bank's pause snapshot.
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
        // The car revs: from 2.1 s its rpm is 5000 (pitch ×1.646 by the bank's curve), the high
        // layer (hum an octave up: 2 × 110 × 1.646 = 362 Hz) over the low one (181 Hz) at −24 dB;
        // early on (rpm 1100–1500) there is nothing at 362 Hz. Between the footsteps, both channels.
        var mono = [Float](repeating: 0, count: x.count)
        for i in 0..<audio.frameCount { mono[i * 2] = x[i * 2] + x[i * 2 + 1] }
        let late = (from: 103_200, to: 112_800), early = (from: 7_200, to: 16_800)
        let high = BankParameterTests.band(mono, 362.2, from: late.from, to: late.to)
        XCTAssertGreaterThan(high - BankParameterTests.band(mono, 181.1, from: late.from, to: late.to), 10, "the high layer leads at 5000 rpm")
        XCTAssertGreaterThan(high - BankParameterTests.band(mono, 362.2, from: early.from, to: early.to), 15, "and was not there at idle")
    }
}
