@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The geometry's public API: validation that changes nothing on a bad input, atomic
/// replacement, single rooms and portals changing, openness ramps in playback time (frozen by
/// `pauseAll`), typed errors after shutdown, and the closed door measured on a render.
final class RoomGeometryAPITests: XCTestCase {
    private func engine() throws -> AudioEngine {
        let e = try TestSignals.loopbackEngine()
        e.listener = RoomPropagationTests.listener
        return e
    }

    func testBadGeometryIsRefusedAndChangesNothing() throws {
        let e = try engine()
        defer { e.shutdown() }
        let good = RoomPropagationTests.geometry()
        try e.setGeometry(good)
        var far = good
        far.portals[0].center = Vector3(0, 1, 30)   // touches neither room
        var overlap = good
        overlap.rooms[1] = Room(id: "east", min: Vector3(-1, 0, -5), max: Vector3(10, 3, 5))
        var dup = good
        dup.rooms.append(dup.rooms[0])
        var missing = good
        missing.portals[0].roomB = "attic"
        var bad = good
        bad.portals[0].openness = .nan
        var nested = good
        nested.rooms.append(Room(id: "closet", min: Vector3(-3, 0, -3), max: Vector3(-1, 3, -1), priority: 1))
        for (name, g) in [("far", far), ("overlap", overlap), ("dup", dup), ("missing", missing), ("nan", bad)] {
            XCTAssertThrowsError(try e.setGeometry(g), name) { error in
                guard case EarshotError.invalidArgument = error else { return XCTFail("\(name): \(error)") }
            }
            XCTAssertEqual(e.geometry, good, "\(name): nothing changed")
        }
        try e.setGeometry(nested)   // inside another room with a higher priority: allowed
        XCTAssertEqual(e.room(at: Vector3(-2, 1, -2)), "closet", "the innermost")
        XCTAssertEqual(e.room(at: Vector3(-5, 1, 0)), "west")
        XCTAssertNil(e.room(at: Vector3(50, 1, 0)), "outside")
        XCTAssertEqual(nested.warnings, ["room closet: no portal reaches it (heard only through its walls)"])
        XCTAssertThrowsError(try e.setPortalOpenness("door", to: 2))
        XCTAssertThrowsError(try e.setPortalOpenness("gate", to: 1))
        XCTAssertThrowsError(try e.setPortalOpenness("door", to: 1, ramp: -1))
        XCTAssertThrowsError(try e.removeRoom("attic"))
    }

    func testSingleChangesAndRampsInPlaybackTime() throws {
        let e = try engine()
        defer { e.shutdown() }
        try e.setGeometry(RoomPropagationTests.geometry())
        let clip = try e.loadClip(TestSignals.sine(frequency: 300), name: "tone")
        let v = try e.play(clip, options: .init(loop: true, position: RoomPropagationTests.emitterAt))
        try TestSignals.renderFrames(e, seconds: 0.1)
        XCTAssertEqual(e.propagation(of: v)?.via, .portals)
        // The door swings shut over 0.5 s of playback.
        try e.setPortalOpenness("door", to: 0, ramp: 0.5)
        try TestSignals.renderFrames(e, seconds: 0.25)
        XCTAssertEqual(Double(e.propagation(of: v)?.opennessDB ?? 0), Level.dB(0.5), accuracy: 0.6, "half way")
        // pauseAll holds playback time: the ramp waits however long the frames run.
        try e.pauseAll()
        try TestSignals.renderFrames(e, seconds: 0.3)
        e.resumeAll()
        e.update()
        XCTAssertEqual(Double(e.propagation(of: v)?.opennessDB ?? 0), Level.dB(0.5), accuracy: 0.6, "frozen while paused")
        XCTAssertEqual(e.geometry.portals[0].openness, 0, "the geometry reads the target")
        try TestSignals.renderFrames(e, seconds: 0.4)
        XCTAssertEqual(e.propagation(of: v)?.via, .walls, "shut: only the walls")
        // A wall destroyed: the rooms' walls become curtains, the walls' path is louder.
        try e.setRoom(Room(id: "east", min: Vector3(0, 0, -5), max: Vector3(10, 3, 5), walls: .curtain))
        try e.setRoom(Room(id: "west", min: Vector3(-10, 0, -5), max: Vector3(0, 3, 5), walls: .curtain))
        e.update()
        XCTAssertEqual(Double(e.propagation(of: v)?.transmissionDB ?? 0), -4, accuracy: 0.01)
        // A new portal straight between them: heard through it, no bend.
        try e.setPortal(Portal(id: "hole", between: "west", and: "east", center: Vector3(0, 1, 0), width: 2, height: 2,
                               normal: Vector3(1, 0, 0)))
        e.update()
        XCTAssertEqual(e.propagation(of: v)?.path, ["hole"])
        XCTAssertEqual(Double(e.propagation(of: v)?.diffractionDB ?? -1), 0, accuracy: 0.01)
        try e.removePortal("hole")
        try e.removeRoom("east")
        XCTAssertEqual(e.geometry.portals, [], "the door went with its room")
        e.update()
        XCTAssertEqual(e.propagation(of: v)?.room, nil, "outside")
        try e.setGeometry(.empty)
        e.update()
        XCTAssertNil(e.propagation(of: v))
    }

    func testEveryCallIsSafeAfterShutdown() throws {
        let e = try engine()
        try e.setGeometry(RoomPropagationTests.geometry())
        let clip = try e.loadClip(TestSignals.sine(frequency: 300), name: "tone")
        let v = try e.play(clip, options: .init(loop: true, position: RoomPropagationTests.emitterAt))
        e.update()
        e.shutdown()
        func shut(_ body: () throws -> Void) {
            XCTAssertThrowsError(try body()) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        }
        shut { try e.setGeometry(RoomPropagationTests.geometry()) }
        shut { try e.setPortalOpenness("door", to: 0) }
        shut { try e.setRoom(Room(id: "x", min: .zero, max: Vector3(1, 1, 1))) }
        shut { try e.removePortal("door") }
        XCTAssertNil(e.propagation(of: v))
        XCTAssertNil(e.room(at: .zero))
        XCTAssertEqual(e.geometry, .empty)
        e.diffractionCurve = DiffractionCurve(lossPer90: 3)
        e.update()
    }

    /// Geometry changes from other threads while the game renders: no crash, a consistent result.
    func testChangesFromAnotherThread() throws {
        let e = try engine()
        defer { e.shutdown() }
        let clip = try e.loadClip(TestSignals.sine(frequency: 300), name: "tone")
        _ = try e.play(clip, options: .init(loop: true, position: RoomPropagationTests.emitterAt))
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for i in 0..<50 {
                try? e.setGeometry(RoomPropagationTests.geometry(open: Float(i % 2)))
                try? e.setPortalOpenness("door", to: 0.5, ramp: 0.1)
            }
            done.signal()
        }
        for _ in 0..<30 { e.update(); _ = try e.render(frames: 800) }
        done.wait()
        XCTAssertEqual(e.geometry.portals.first?.openness, 0.5)
    }

    /// The monitor's voice rows carry each positioned voice's way (room, path, length, losses).
    func testTheMonitorSeesEachVoicesWay() throws {
        let e = try engine()
        defer { e.shutdown() }
        try e.setGeometry(RoomPropagationTests.geometry())
        let clip = try e.loadClip(TestSignals.sine(frequency: 300), name: "tone")
        _ = try e.play(clip, options: .init(loop: true, position: RoomPropagationTests.emitterAt))
        _ = try e.play(clip, options: .init(loop: true, pan: 0.5))
        try TestSignals.renderFrames(e, seconds: 0.05)
        var capture = MonitorCapture()
        e.withAL { capture.fill(from: e.core) }
        let rooms = capture.voices.compactMap(\.room)
        XCTAssertEqual(rooms.count, 1, "the panned voice has none")
        XCTAssertEqual(rooms.first?.room, "east")
        XCTAssertEqual(rooms.first?.listenerRoom, "west")
        XCTAssertEqual(rooms.first?.via, .portals)
        XCTAssertEqual(rooms.first?.path, ["door"])
        XCTAssertEqual(Double(rooms.first?.length ?? 0), Double(RoomPropagationTests.pathLength), accuracy: 0.01)
        XCTAssertLessThan(rooms.first?.transmissionDB ?? 0, -29, "concrete, measured on request")
    }
}
