import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// A bank's sound of a stereo clip played with a `pan` and no position: a balance (issue 39), as
/// in scenes and the library. The clip is a sox file: 440 Hz on the left, 1 kHz on the right.
final class BankBalanceTests: XCTestCase {
    func testABanksStereoSoundWithPanIsABalance() throws {
        let f = try BankFixture("balance")
        defer { f.remove() }
        try SoxTone.writeStereo(to: f.path("audio/tones.wav"), left: 440, right: 1_000, seconds: 0.5)
        let path = try f.write("game.yaml", "clips:\n  st: audio/tones.wav\nsounds:\n  amb: { clips: [st] }\n")
        /// The 440 Hz amplitude in each channel and the 1 kHz one in the right, over 0.2 s.
        func tones(_ pan: Float) throws -> [Double] {
            let engine = try BankFixture.engine()
            defer { engine.shutdown() }
            let bank = try SoundBank(path: path, engine: engine)
            _ = try bank.play("amb", options: SoundPlayOptions(pan: pan))
            engine.update()
            let out = Array(try engine.render(frames: 10_560)[1_920...])
            func channel(_ c: Int) -> ArraySlice<Float> { stride(from: c, to: out.count, by: 2).map { out[$0] }[...] }
            XCTAssertEqual(engine.stats.pairedVoices, 1, "played as a channel pair")
            return [ToneMeasure.amplitude(channel(0), 440), ToneMeasure.amplitude(channel(1), 440),
                    ToneMeasure.amplitude(channel(1), 1_000)].map { Level.dB($0) }
        }
        let centre = try tones(0)
        let half = try tones(0.5)
        XCTAssertEqual(half[2], centre[2], accuracy: 0.1, "right unchanged: \(half) vs \(centre)")
        XCTAssertEqual(half[0] - centre[0], Level.dB(0.5), accuracy: 0.2, "left at 1 − |pan|")
        XCTAssertGreaterThanOrEqual(half[0] - half[1], 60, "440 Hz stays on the left: \(half)")
        let right = try tones(1)
        XCTAssertLessThan(right[0], centre[0] - 60, "pan +1: the left silent: \(right)")
    }
}
