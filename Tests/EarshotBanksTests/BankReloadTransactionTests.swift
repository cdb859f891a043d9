import Earshot
@testable import EarshotBanks
import EarshotScenes
import Foundation
import XCTest

/// A watched save is one transaction (issue 37): prepared on the watch's thread, applied whole at
/// the start of the game's next `update` — every change heard from the same render block on — or,
/// when one change of it fails, not at all. Measured on the loopback output, each sound by its own
/// tone (440 Hz and 1 kHz), in blocks of half a game frame.
final class BankReloadTransactionTests: XCTestCase {
    static func bank(low: String = "0", high: String = "0", highClip: String = "k1") -> String {
        """
        clips:
          tone: audio/a440.wav
          k1: audio/k1.wav
        \(highClip == "bad" ? "  bad: audio/bad.wav" : "")
        sounds:
          low: { clips: [tone], loop: true, gain: \(low) }
          high: { clips: [\(highClip)], loop: true, gain: \(high) }
        """
    }

    /// Half a 60 Hz game frame at 48 kHz: two render blocks per `update`.
    static let block = 400

    /// The level (dB) of `hz` in the left channel of interleaved stereo `x`, Hann-windowed so that
    /// the other tone (4.7 bins away at this length) does not leak in.
    static func level(_ x: [Float], _ hz: Double) -> Double {
        let n = x.count / 2
        let w = 2 * Double.pi * hz / 48_000
        var re = 0.0, im = 0.0, sum = 0.0
        for i in 0..<n {
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            let v = Double(x[i * 2]) * hann
            re += v * cos(w * Double(i))
            im += v * sin(w * Double(i))
            sum += hann
        }
        return 20 * log10(max(2 * (re * re + im * im).squareRoot() / sum, 1e-12))
    }

    /// The two tones' levels in each of `frames` game frames' render blocks (update, then two blocks).
    static func blocks(_ engine: AudioEngine, frames: Int, update: Bool = true) throws -> [(low: Double, high: Double)] {
        var out: [(Double, Double)] = []
        for _ in 0..<frames {
            if update { engine.update(deltaTime: Double(2 * block) / 48_000) }
            for _ in 0..<2 {
                let x = try engine.render(frames: block)
                out.append((level(x, 440), level(x, 1000)))
            }
        }
        return out
    }

    /// An engine with the bank watched and both sounds playing for 0.1 s; the levels of its last block.
    func playing(_ f: BankFixture) throws -> (AudioEngine, SoundBank, BankReloadTests.EventLog, (low: Double, high: Double)) {
        try "not audio".write(toFile: f.path("audio/bad.wav"), atomically: true, encoding: .utf8)
        let path = try f.write("game.yaml", Self.bank())
        let engine = try BankFixture.engine()
        let bank = try SoundBank(path: path, engine: engine, watch: true)
        let log = BankReloadTests.EventLog(bank)
        XCTAssertNotNil(try bank.play("low"))
        XCTAssertNotNil(try bank.play("high"))
        let lead = try Self.blocks(engine, frames: 6)
        return (engine, bank, log, try XCTUnwrap(lead.last))
    }

    /// Renders game frames until the tones move (at most 10 frames: a frame whose update finds
    /// the watch still finishing a reload leaves the save to the next) and checks that both moved
    /// in the same block — the first of a frame, right after its update — and are at their new
    /// levels (dB from `before`) from the block after.
    func assertBothMoveTogether(_ engine: AudioEngine, _ before: (low: Double, high: Double), low: Double, high: Double,
                                file: StaticString = #filePath, line: UInt = #line) throws {
        let after = try Self.blocks(engine, frames: 10)
        let lowMoved = after.firstIndex { abs($0.low - before.low) > 1 }
        let highMoved = after.firstIndex { abs($0.high - before.high) > 1 }
        print("transaction: low moved in block \(lowMoved ?? -1), high in block \(highMoved ?? -1); levels (dB) "
              + after.prefix(6).map { String(format: "%.2f/%.2f", $0.low - before.low, $0.high - before.high) }.joined(separator: " "))
        let moved = try XCTUnwrap(lowMoved, "the 440 Hz sound never changed", file: file, line: line)
        XCTAssertEqual(highMoved, moved, "the 1 kHz sound changes in the same block", file: file, line: line)
        XCTAssertEqual(moved % 2, 0, "the first block of a frame: right after its update", file: file, line: line)
        for b in after[(moved + 1)...] {
            XCTAssertEqual(b.low - before.low, low, accuracy: 0.5, file: file, line: line)
            XCTAssertEqual(b.high - before.high, high, accuracy: 0.5, file: file, line: line)
        }
    }

    func testAWatchedSaveIsHeardWholeFromTheBlockAfterTheNextUpdate() throws {
        let f = try BankFixture("transaction")
        defer { f.remove() }
        let (engine, bank, log, before) = try playing(f)
        defer { engine.shutdown() }
        defer { bank.unload() }
        try f.write("game.yaml", Self.bank(low: "-12", high: "-6"))
        let accepted = log.wait { if case .reloaded = $0 { return true } else { return false } }
        XCTAssertEqual(accepted, .reloaded(BankChanges(changed: ["sounds.high", "sounds.low"])), "\(log.all)")

        // Accepted, not yet in force: blocks rendered without an update sound as before.
        for (i, b) in try Self.blocks(engine, frames: 2, update: false).enumerated() {
            XCTAssertEqual(b.low, before.low, accuracy: 0.2, "block \(i) without an update: low")
            XCTAssertEqual(b.high, before.high, accuracy: 0.2, "block \(i) without an update: high")
        }
        // The next update applies the save: both tones leave their level in its first block and
        // are at their new levels from the block after (OpenAL ramps a gain over the mix after it).
        try assertBothMoveTogether(engine, before, low: -12, high: -6)
        XCTAssertEqual(try bank.sound("low").definition.gain, Float(pow(10, -12.0 / 20)), accuracy: 1e-4)
    }

    func testAWatchedSaveWithOneFailingChangeAppliesNone() throws {
        let f = try BankFixture("transaction-bad")
        defer { f.remove() }
        let (engine, bank, log, before) = try playing(f)
        defer { engine.shutdown() }
        defer { bank.unload() }
        // The gain edit is valid; the other sound's new clip does not load: neither is applied.
        try f.write("game.yaml", Self.bank(low: "-12", high: "-6", highClip: "bad"))
        let refused = log.wait { if case .rejected = $0 { return true } else { return false } }
        XCTAssertTrue(refused?.description.contains("clips.bad") ?? false, "\(log.all)")
        for (i, b) in try Self.blocks(engine, frames: 6).enumerated() {
            XCTAssertEqual(b.low, before.low, accuracy: 0.2, "block \(i): low as it was")
            XCTAssertEqual(b.high, before.high, accuracy: 0.2, "block \(i): high as it was")
        }
        XCTAssertEqual(try bank.sound("low").definition.gain, 1, "the bank is as it was")
        XCTAssertEqual(try bank.sound("high").definition.gain, 1)
        XCTAssertFalse(log.all.contains { if case .reloaded = $0 { return true } else { return false } }, "\(log.all)")
    }

    /// Two saves before the game's next frame: the later one replaces the pending one, and the
    /// frame applies it whole (the clip the first one loaded and the second keeps is not loaded twice).
    func testASecondSaveBeforeTheFrameReplacesThePendingOne() throws {
        let f = try BankFixture("transaction-twice")
        defer { f.remove() }
        let (engine, bank, log, before) = try playing(f)
        defer { engine.shutdown() }
        defer { bank.unload() }
        let isReload = { (e: BankEvent) -> Bool in if case .reloaded = e { return true } else { return false } }
        try f.write("game.yaml", Self.bank(low: "-12"))
        XCTAssertEqual(log.wait(isReload), .reloaded(BankChanges(changed: ["sounds.low"])), "\(log.all)")
        try f.write("game.yaml", Self.bank(low: "-12", high: "-6"))
        XCTAssertNotNil(log.wait { _ in log.all.filter(isReload).count == 2 }, "\(log.all)")
        XCTAssertEqual(log.all.filter(isReload).last, .reloaded(BankChanges(changed: ["sounds.high"])), "what the second save changed")
        try assertBothMoveTogether(engine, before, low: -12, high: -6)
        XCTAssertEqual(engine.stats.clips, 2, "the two tones, each once")
    }
}
