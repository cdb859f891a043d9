@testable import Earshot
import EarshotMeasure
import XCTest

/// The voice ranking hears a voice in another room as the rooms make it heard: at its way's
/// length, through its path's loss. Loopback renders on RoomPropagationTests' two rooms (west
/// and east, a 1 m door at z = 3 in the wall x = 0).
final class RoomRankingTests: XCTestCase {
    /// Two sources for three voices: the listener (west, at (−1.5, 1, 3)) hears one voice 2 m
    /// away and one 8 m away in its room, and one 3 m away in the east room straight through
    /// the door's opening (an emitter's voice). Door closed (walls 30 dB), that one is the quietest and goes
    /// virtual; the door opening gives it its source back, from the 8 m one.
    func testAVoiceBehindAClosedDoorRanksBelowAFartherOneInTheListenersRoom() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 2)
        defer { e.shutdown() }
        let l = Vector3(-1.5, 1, 3)
        e.listener = Listener(position: l, at: Vector3(1, 0, 0))
        try e.setGeometry(RoomPropagationTests.geometry(walls: Walls(loss: 30, hf: 0.5), open: 0))
        let tone = try e.loadClip(TestSignals.sine(frequency: 300, amplitude: 0.5), name: "tone")
        /// What the ranking reads of a voice, dB.
        func audibility(_ v: Voice) -> Double {
            e.withAL { e.core.slot(of: v.id).map { Level.dB(Double(e.core.pool.slots[$0].audibility)) } ?? -200 }
        }
        func play(_ at: Vector3) throws -> Voice {
            try e.play(tone, options: .init(loop: true, placement: .spatial(SpatialProperties(position: at))))
        }
        let far = try play(l + Vector3(-8, 0, 0))
        // Followed as an emitter (the ranking's fast path), the others placed on their own.
        let behind = try e.play(tone, options: .init(loop: true, emitter: try e.makeEmitter(SpatialProperties(position: l + Vector3(3, 0, 0)))))
        let near = try play(l + Vector3(-2, 0, 0))
        _ = try TestSignals.renderFrames(e, seconds: 0.5)
        XCTAssertEqual(e.propagation(of: behind)?.via, .walls)
        print("RoomRankingTests: door closed: 8 m \(far.status) \(audibility(far)) dB, 3 m behind the door \(behind.status) \(audibility(behind)) dB, 2 m \(near.status) \(audibility(near)) dB")
        XCTAssertEqual(audibility(behind), Level.dB(1.0 / 3) - 30, accuracy: 0.5, "3 m through 30 dB of wall")
        XCTAssertEqual(behind.status, .virtual, "30 dB of wall: quieter than 8 m in the listener's room")
        XCTAssertEqual(far.status, .real)
        XCTAssertEqual(near.status, .real)

        try e.setPortalOpenness("door", to: 1)
        _ = try TestSignals.renderFrames(e, seconds: 0.5)
        print("RoomRankingTests: door open: 8 m \(far.status) \(audibility(far)) dB, 3 m through the door \(behind.status) \(audibility(behind)) dB, 2 m \(near.status) \(audibility(near)) dB")
        XCTAssertEqual(audibility(behind), Level.dB(1.0 / 3), accuracy: 0.5, "straight through the opening, no loss")
        XCTAssertEqual(behind.status, .real, "through the open door it is 3 m away")
        XCTAssertEqual(far.status, .virtual)
        XCTAssertEqual(near.status, .real)
    }
}
