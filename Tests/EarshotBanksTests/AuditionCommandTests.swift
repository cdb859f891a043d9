import Earshot
import EarshotMeasure
import EarshotTestSupport
import XCTest

/// `earshot audition BANK SOUND`, rendered offline and measured; refusals leave no file.
final class AuditionCommandTests: XCTestCase {
    func testAuditionRendersOneSoundAloneAndWritesNothingOnAFailure() throws {
        let f = try BankFixture("audition")
        defer { f.remove() }
        let bank = try f.write("game.yaml", """
            clips: { tone: audio/a440.wav, k1: audio/k1.wav }
            sounds:
              hum: { clips: [tone], loop: true, gain: -6 }
              blip: { clips: [k1] }
            """)
        let out = f.path("hum.wav"), plot = f.path("hum.svg")
        let r = try CLIRunner.run("earshot", ["audition", bank, "hum", "--seconds", "0.5", "-o", out, "--plot", plot])
        XCTAssertEqual(r.status, 0, r.stderr)
        let audio = try SndFileDecoder.decode(path: out)
        XCTAssertEqual(audio.frameCount, 24_000)
        guard case .int16(let s) = audio.samples else { return XCTFail("16-bit expected") }
        let x = s.map { Float($0) / 32_768 }
        // Centred: both channels alike.
        let left = Level.rms(x, channel: 0, from: 2_400), right = Level.rms(x, channel: 1, from: 2_400)
        XCTAssertEqual(left, right, accuracy: 0.001)
        // Against the same sound at 0 dB: the bank's −6 dB is what comes out.
        let full = try f.write("full.yaml", "clips: { tone: audio/a440.wav }\nsounds: { hum: { clips: [tone], loop: true } }\n")
        XCTAssertEqual(try CLIRunner.run("earshot", ["audition", full, "hum", "--seconds", "0.5", "-o", f.path("ref.wav")]).status, 0)
        guard case .int16(let r0) = try SndFileDecoder.decode(path: f.path("ref.wav")).samples else { return XCTFail() }
        XCTAssertEqual(Level.dB(left, over: Level.rms(r0.map { Float($0) / 32_768 }, channel: 0, from: 2_400)), -6, accuracy: 0.1)
        XCTAssertTrue(try String(contentsOfFile: plot, encoding: .utf8).contains("<svg"))
        // The one-shot is played again each time it ends: 0.1 s clip, 0.5 s audition, five onsets.
        let blip = f.path("blip.wav")
        XCTAssertEqual(try CLIRunner.run("earshot", ["audition", bank, "blip", "--seconds", "0.5", "-o", blip]).status, 0)
        guard case .int16(let b) = try SndFileDecoder.decode(path: blip).samples else { return XCTFail() }
        let y = b.map { Float($0) / 32_768 }
        let heard = stride(from: 0, to: 24_000 - 480, by: 480).filter { Level.rms(y, from: $0, to: $0 + 480) > 0.05 }.count
        XCTAssertGreaterThan(heard, 40, "sound nearly all the time: \(heard) of 49 blocks")
        XCTAssertGreaterThan(right, 0.1)
        // An unknown sound, an undefined parameter: exit 1, the nearest name, nothing written.
        let missing = f.path("missing.wav")
        let bad = try CLIRunner.run("earshot", ["audition", bank, "hmu", "-o", missing])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("\(bank): no sound named \"hmu\" (the nearest is \"hum\")"), bad.stderr)
        let param = try CLIRunner.run("earshot", ["audition", bank, "hum", "--param", "rpm=0:8000:1", "-o", missing])
        XCTAssertEqual(param.status, 1)
        XCTAssertTrue(param.stderr.contains("no parameter named \"rpm\""), param.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: f.folder).filter { $0.contains("partial") }
        XCTAssertEqual(leftovers, [])
        let syntax = try CLIRunner.run("earshot", ["audition", bank, "hum", "--param", "rpm=fast", "-o", missing])
        XCTAssertNotEqual(syntax.status, 0)
        XCTAssertTrue(syntax.stderr.contains("expected NAME=FROM:TO:SECONDS"), syntax.stderr)
    }
}
