import Earshot
import EarshotBanks
import EarshotTestSupport
import Foundation
import XCTest

/// A bank's `beds:`: the game opens a bed by name as the bank defines it (file, gain, bus),
/// and hears it; unknown names and an unloaded bank are typed errors.
final class BankBedTests: XCTestCase {
    private func rms(_ s: [Float], channel: Int) -> Float {
        var sum: Float = 0
        var n = 0
        for i in stride(from: channel, to: s.count, by: 2) { sum += s[i] * s[i]; n += 1 }
        return n == 0 ? 0 : (sum / Float(n)).squareRoot()
    }

    func testABanksBedOpensAsDefinedAndIsHeard() throws {
        let f = try BankFixture("beds")
        defer { f.remove() }
        let forest = CLIRunner.packageRoot.appendingPathComponent("Assets/Ambience/forest-foa.ogg").path
        let path = try f.write("game.yaml", """
            clips: { tone: audio/a440.wav }
            beds:
              forest: { file: \(forest), gain: -6 dB }
              quiet:  { file: \(forest), gain: -26 dB, bus: ui }
            """)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        XCTAssertEqual(bank.bedNames, ["forest", "quiet"])

        let loud = try bank.openBed("forest")
        try loud.play()
        let a = try BankFixture.frames(engine, 30)
        loud.stop()
        let quiet = try bank.openBed("quiet")
        try quiet.play()
        let b = try BankFixture.frames(engine, 30)
        for ch in 0..<2 {
            XCTAssertGreaterThan(rms(a, channel: ch), 1e-3, "the bed is heard in channel \(ch)")
            // Same file, 20 dB apart by the bank's gains (the stop's fade is over within a frame or two).
            let diff = 20 * log10(rms(b, channel: ch) / rms(a, channel: ch))
            XCTAssertEqual(diff, -20, accuracy: 1.0, "channel \(ch): \(diff) dB")
        }
        try engine.setMuted(true, for: .ui)
        let muted = try BankFixture.frames(engine, 10).suffix(3_200)
        XCTAssertLessThan(rms(Array(muted), channel: 0), 1e-5, "the second bed plays on the bank's bus (ui)")

        XCTAssertThrowsError(try bank.openBed("forrest")) { error in
            guard case .unknownName(_, let kind, _, let nearest)? = error as? BankError else { return XCTFail("\(error)") }
            XCTAssertEqual(kind, "bed")
            XCTAssertEqual(nearest, "forest")
        }
        bank.unload()
        XCTAssertEqual(bank.bedNames, [])
        XCTAssertThrowsError(try bank.openBed("forest")) { error in
            guard case .unloaded? = error as? BankError else { return XCTFail("\(error)") }
        }
    }
}
