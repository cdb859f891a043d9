import Earshot
import EarshotBanks
import Foundation
import XCTest

/// A bank's `rooms:` and `portals:`: read and checked with the bank, handed to the game as
/// `bank.geometry`, which the engine takes as it is; a reload changes it; unload empties it.
final class BankRoomsTests: XCTestCase {
    static let rooms = """
        rooms:
          west: { box: { min: [-10, 0, -5], max: [0, 3, 5] }, walls: wood }
          east: { box: { min: [0, 0, -5], max: [10, 3, 5] }, walls: { loss: 12, hf: 0.5 } }
        portals:
          door: { between: [west, east], center: [0, 1, 3], size: [1, 2], normal: [1, 0, 0], open: 0.5 }

        """

    func testTheBanksGeometryGoesToTheEngine() throws {
        let f = try BankFixture("rooms")
        defer { f.remove() }
        let path = try f.write("game.yaml", "clips: { tone: audio/a440.wav }\n" + Self.rooms)
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        XCTAssertEqual(bank.geometry.rooms.map(\.id), ["west", "east"])
        XCTAssertEqual(bank.geometry.portals.first?.openness, 0.5)
        try engine.setGeometry(bank.geometry)
        XCTAssertEqual(engine.room(at: Vector3(5, 1, 0)), "east")
        // A reload with the door removed.
        try f.write("game.yaml", "clips: { tone: audio/a440.wav }\n" + Self.rooms.components(separatedBy: "portals:")[0])
        try bank.reload()
        XCTAssertEqual(bank.geometry.portals, [])
        // A bank whose portal touches no room is refused, as a scene is.
        let bad = try f.write("bad.yaml", Self.rooms.replacingOccurrences(of: "center: [0, 1, 3]", with: "center: [0, 1, 30]"))
        XCTAssertThrowsError(try SoundBank(path: bad, engine: engine))
        bank.unload()
        XCTAssertTrue(bank.geometry.isEmpty)
    }
}
