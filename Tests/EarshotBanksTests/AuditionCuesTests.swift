import Earshot
import EarshotMeasure
import EarshotTestSupport
import XCTest

/// `earshot audition` with cues (issue 41): `--every`/`--count` retriggers on their frames,
/// `--set` by label choosing a switch's case, a music set moved by `--state`, and the timeline
/// and switch keys in `validate` and `info`.
final class AuditionCuesTests: XCTestCase {
    private func left(_ path: String) throws -> [Float] {
        guard case .int16(let s) = try SndFileDecoder.decode(path: path).samples else { throw XCTSkip("16-bit expected") }
        return stride(from: 0, to: s.count, by: 2).map { Float(s[$0]) / 32_768 }
    }

    /// Frames where the signal rises from at least 200 frames of silence.
    private func onsets(_ x: [Float]) -> [Int] {
        var out: [Int] = [], silent = 200
        for (n, v) in x.enumerated() {
            if abs(v) > 0.01 {
                if silent >= 200 { out.append(n) }
                silent = 0
            } else {
                silent += 1
            }
        }
        return out
    }

    func testRetriggersSetsAndStates() throws {
        let f = try BankFixture("audition-cues")
        defer { f.remove() }
        let bank = try f.write("game.yaml", """
            parameters:
              surface: { labels: [gravel, wood] }
            clips: { low: audio/a440.wav, high: audio/k1.wav }
            sounds:
              blip: { clips: [high] }
              stepGravel: { clips: [low] }
              stepWood: { clips: [high] }
              step: { switch: { parameter: surface, cases: { gravel: stepGravel, wood: stepWood } } }
            music:
              level:
                states:
                  explore: { file: audio/a440.wav }
                  combat: { file: audio/k1.wav }
            """)
        // Four plays a quarter second apart, on their frames; no fifth.
        let every = f.path("every.wav")
        var r = try CLIRunner.run("earshot", ["audition", bank, "blip", "--every", "0.25", "--count", "4", "--seconds", "1.5", "-o", every])
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = onsets(try left(every))
        XCTAssertEqual(o.count, 4, "\(o)")
        XCTAssertEqual(zip(o.dropFirst(), o).map { $0 - $1 }, [12_000, 12_000, 12_000])
        // The label picks the case.
        for (label, hz) in [("wood", 1000.0), ("gravel", 440.0)] {
            let out = f.path("\(label).wav")
            r = try CLIRunner.run("earshot", ["audition", bank, "step", "--set", "surface=\(label)", "--seconds", "0.5", "-o", out])
            XCTAssertEqual(r.status, 0, r.stderr)
            let x = try left(out)
            XCTAssertEqual(ToneMeasure.frequency(Array(x[480..<4_320]), sampleRate: 48_000), hz, accuracy: 5, label)
        }
        r = try CLIRunner.run("earshot", ["audition", bank, "step", "--set", "surface=sand", "-o", f.path("no.wav")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("no label \"sand\""), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.path("no.wav")))
        // A music set: explore, then combat from 0.5 s (no rule: at once).
        let music = f.path("music.wav")
        r = try CLIRunner.run("earshot", ["audition", bank, "level", "--state", "combat@0.5", "--seconds", "1", "-o", music])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try left(music)
        XCTAssertEqual(ToneMeasure.frequency(Array(m[4_800..<9_600]), sampleRate: 48_000), 440, accuracy: 5)
        XCTAssertEqual(ToneMeasure.frequency(Array(m[33_600..<38_400]), sampleRate: 48_000), 1000, accuracy: 5)
        r = try CLIRunner.run("earshot", ["audition", bank, "level", "--state", "calm@0.5", "-o", f.path("no.wav")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("calm"), r.stderr)
        // info shows the switch's cases.
        r = try CLIRunner.run("earshot", ["info", bank])
        XCTAssertTrue(r.stdout.contains("switch on surface: gravel → stepGravel, wood → stepWood"), r.stdout)
    }
}
