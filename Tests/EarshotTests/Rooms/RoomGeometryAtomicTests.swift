import COpenAL
@testable import Earshot
import XCTest

/// A geometry change is all or nothing: the only part of it that can fail is its rooms'
/// reverb zones finding effect slots (OpenAL Soft 1.19.1 gives a context 64; the 65th is
/// AL_OUT_OF_MEMORY). Made to fail deterministically by taking every slot first.
final class RoomGeometryAtomicTests: XCTestCase {
    private static func reverberant() throws -> AcousticGeometry {
        var g = RoomPropagationTests.geometry()
        for k in g.rooms.indices { g.rooms[k].reverb = try ReverbProperties.preset(named: "hallway") }
        return g
    }

    /// Takes every auxiliary effect slot the context has left.
    private func takeEverySlot(_ e: AudioEngine) -> [ALuint] {
        e.withAL {
            var taken: [ALuint] = []
            while taken.count < 1_024, let s = try? EFX.makeSlot() { taken.append(s) }
            return taken
        }
    }

    private func give(_ slots: [ALuint], _ e: AudioEngine) {
        e.withAL { for s in slots { EFX.deleteSlot(s) } }
    }

    func testAGeometryWhoseReverbsFindNoSlotChangesNothing() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let dry = AcousticGeometry(rooms: [Room(id: "hall", min: Vector3(20, 0, 20), max: Vector3(30, 3, 30))])
        try e.setGeometry(dry)
        let taken = takeEverySlot(e)
        XCTAssertFalse(taken.isEmpty)
        let wet = try Self.reverberant()
        XCTAssertThrowsError(try e.setGeometry(wet), "no slot for the rooms' reverbs") { error in
            print("RoomGeometryAtomicTests: \(taken.count) slots taken, setGeometry threw \(error)")
            guard case .openAL(_, let code)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertEqual(code, AL_OUT_OF_MEMORY)
        }
        XCTAssertEqual(e.geometry, dry, "the old geometry stands whole")
        XCTAssertEqual(e.room(at: Vector3(25, 1, 25)), "hall")
        XCTAssertNil(e.room(at: Vector3(5, 1, 0)), "the new rooms are not there")
        XCTAssertThrowsError(try e.setRoom(wet.rooms[0]), "a room with a reverb alone fails alike")
        XCTAssertEqual(e.geometry, dry)
        e.update()
        _ = try e.render(frames: 800)

        give(taken, e)
        try e.setGeometry(wet)
        XCTAssertEqual(e.geometry, wet, "with slots free again it is set")
        XCTAssertEqual(e.room(at: Vector3(5, 1, 0)), "east")
    }

    /// The game's reverb zones are all or nothing too: the first zones make the zone slots, and
    /// when there are none left the call throws and the zones stay as they were.
    func testReverbZonesThatFindNoSlotChangeNothing() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let taken = takeEverySlot(e)
        XCTAssertFalse(taken.isEmpty)
        let hall = ReverbZone(name: "hall", shape: .sphere(center: .zero, radius: 30),
                              reverb: try ReverbProperties.preset(named: "hallway"))
        XCTAssertThrowsError(try e.setReverbZones([hall]), "no slot for the zones") { error in
            guard case .openAL(_, let code)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertEqual(code, AL_OUT_OF_MEMORY)
        }
        print("RoomGeometryAtomicTests: zones after the refused set: \(e.reverbZones.map(\.name))")
        XCTAssertEqual(e.reverbZones, [], "the old zones stand")
        e.update()
        _ = try e.render(frames: 800)

        give(taken, e)
        try e.setReverbZones([hall])
        XCTAssertEqual(e.reverbZones.map(\.name), ["hall"], "with slots free again they are set")
    }
}
