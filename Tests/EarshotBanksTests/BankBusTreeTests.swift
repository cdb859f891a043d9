import Earshot
import EarshotBanks
import XCTest

/// Issue 41 item 1 in banks: the bus tree and the VCAs in force while a bank is loaded, and a
/// reload that turns the tree around (no cycle on the way), drops a parent and a VCA.
final class BankBusTreeTests: XCTestCase {
    func testTheTreeAndVCAsLoadAndReload() throws {
        let f = try BankFixture("bustree")
        defer { f.remove() }
        let path = try f.write("game.yaml", """
            buses:
              gameplay: { gain: -6 }
              footsteps: { parent: gameplay, gain: -6 }
            vcas:
              mix: { buses: [footsteps, ui], gain: -10 }
            """)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        defer { bank.unload() }
        let gameplay = Bus("gameplay"), footsteps = Bus("footsteps")
        func dB(_ bus: Bus) throws -> Double { 20 * log10(Double(try engine.effectiveGain(for: bus))) }
        XCTAssertEqual(try engine.parent(of: footsteps), gameplay)
        XCTAssertEqual(try dB(footsteps), -22, accuracy: 0.01, "−6 × −6 × VCA −10")
        XCTAssertEqual(try dB(.ui), -10, accuracy: 0.01)
        // Turned around: gameplay under footsteps; the VCA gone.
        try f.write("game.yaml", """
            buses:
              gameplay: { parent: footsteps, gain: -6 }
              footsteps: { gain: -6 }
            """)
        _ = try bank.reload()
        XCTAssertNil(try engine.parent(of: footsteps))
        XCTAssertEqual(try engine.parent(of: gameplay), footsteps)
        XCTAssertEqual(try dB(gameplay), -12, accuracy: 0.01)
        XCTAssertEqual(try dB(.ui), 0, accuracy: 0.01, "the VCA no longer named is removed")
        XCTAssertEqual(engine.vcas, [])
        try f.write("game.yaml", "buses:\n  gameplay: {}\n  footsteps: {}\n")
        _ = try bank.reload()
        XCTAssertNil(try engine.parent(of: gameplay), "a dropped parent: back under the master")
    }
}
