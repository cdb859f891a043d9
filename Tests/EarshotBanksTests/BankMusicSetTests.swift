import Earshot
import EarshotBanks
import EarshotTestSupport
import XCTest

/// A bank's adaptive music: `bank.setMusicState` starts the bank's music set and moves it by its
/// rules — on the bar line here — measured on the output (a 440 Hz state, then a 1 kHz one).
final class BankMusicSetTests: XCTestCase {
    static let bank = """
    music:
      level:
        bpm: 120
        beatsPerBar: 4
        states:
          calm: { file: audio/calm.wav }
          alert: { file: audio/alert.wav }
        transitions:
          - { from: calm, to: alert, at: nextBar }
    """

    /// Crossings of zero upwards per second in `x` (the left channel of interleaved stereo).
    private func frequency(_ x: [Float], from: Int, to: Int) -> Double {
        var count = 0
        for i in from..<(to - 1) where x[i * 2] <= 0 && x[(i + 1) * 2] > 0 { count += 1 }
        return Double(count) * 48_000 / Double(to - from)
    }

    func testSetMusicStateChangesOnTheBarLine() throws {
        let f = try BankFixture("musicset")
        defer { f.remove() }
        // Tracks of 8 s (four bars), so that the grid runs past the change.
        try SoxTone.write(to: f.path("audio/calm.wav"), frequency: 440, amplitude: 0.5, seconds: 8)
        try SoxTone.write(to: f.path("audio/alert.wav"), frequency: 1_000, amplitude: 0.5, seconds: 8)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: try f.write("m.yaml", Self.bank), engine: engine)
        XCTAssertEqual(bank.musicSetNames, ["level"])
        XCTAssertEqual(try bank.setMusicState("calm"), 0, accuracy: 1e-9, "a set not playing starts at once")
        var out = try BankFixture.frames(engine, 30)   // 0.5 s
        // Asked for at 0.5 s: the next bar line of 120 bpm in 4/4 is at 2 s.
        XCTAssertEqual(try bank.setMusicState("alert", of: "level"), 2, accuracy: 1e-9)
        out += try BankFixture.frames(engine, 120)     // to 2.5 s
        XCTAssertEqual(frequency(out, from: 48_000, to: 95_000), 440, accuracy: 5, "calm up to the bar line")
        XCTAssertEqual(frequency(out, from: 97_000, to: 120_000), 1_000, accuracy: 5, "alert after it")
        XCTAssertEqual(try bank.musicSet("level").currentState, "alert")
        XCTAssertTrue(try bank.musicSet("level") === (try bank.musicSet("level")), "the same set at every call")

        XCTAssertThrowsError(try bank.setMusicState("alret")) { error in
            XCTAssertTrue("\(error)".contains("nearest is \"alert\""), "\(error)")
        }
        XCTAssertThrowsError(try bank.setMusicState("calm", of: "levle")) { error in
            XCTAssertTrue("\(error)".contains("nearest is \"level\""), "\(error)")
        }
        let set = try bank.musicSet("level")
        bank.unload()
        _ = try BankFixture.frames(engine, 3)
        XCTAssertNil(set.currentState, "unload stops the bank's music sets")
    }
}
