import Earshot
import XCTest

/// Reverb-zone geometry and blending, as pure math (no OpenAL).
final class ZoneBlendTests: XCTestCase {
    private func zone(_ name: String, _ shape: ReverbZone.Shape, fade: Float = 4) throws -> ReverbZone {
        try ReverbZone(name: name, shape: shape, reverb: ReverbProperties.preset(named: "room"), fade: fade).validated()
    }

    func testWeightIsOneInsideAndFallsSmoothlyToZeroAtTheFadeDistance() throws {
        let room = try zone("room", .box(center: .zero, size: Vector3(4, 3, 4)), fade: 2)
        XCTAssertEqual(room.weight(at: Vector3(1.9, 0, 0)), 1)
        XCTAssertEqual(room.weight(at: Vector3(2, 0, 0)), 1)
        XCTAssertEqual(room.weight(at: Vector3(3, 0, 0)), 0.5, accuracy: 1e-6, "halfway through the fade")
        XCTAssertEqual(room.weight(at: Vector3(4, 0, 0)), 0)
        XCTAssertEqual(room.weight(at: Vector3(40, 0, 0)), 0)
        // No step anywhere along a walk out of the room (steps of 1 cm change the weight < 1.6 %).
        var last: Float = 1
        for i in 0...400 {
            let w = room.weight(at: Vector3(1 + Float(i) / 100, 0, 0))
            XCTAssertLessThanOrEqual(abs(w - last), 0.016)
            last = w
        }
        let ball = try zone("ball", .sphere(center: Vector3(10, 0, 0), radius: 2), fade: 1)
        XCTAssertEqual(ball.distance(from: Vector3(10, 0, 5)), 3, accuracy: 1e-5)
        XCTAssertEqual(ball.weight(at: Vector3(10, 0, 2.5)), 0.5, accuracy: 1e-5)
    }

    func testValidationRefusesBadShapes() throws {
        let room = try ReverbProperties.preset(named: "room")
        XCTAssertThrowsError(try ReverbZone(name: "a", shape: .sphere(center: .zero, radius: 0), reverb: room).validated())
        XCTAssertThrowsError(try ReverbZone(name: "a", shape: .box(center: .zero, size: Vector3(1, -1, 1)), reverb: room).validated())
        XCTAssertThrowsError(try ReverbZone(name: "a", shape: .sphere(center: Vector3(.nan, 0, 0), radius: 1), reverb: room).validated())
        XCTAssertThrowsError(try ReverbZone(name: "a", shape: .sphere(center: .zero, radius: 1), reverb: room, fade: -1).validated())
    }

    func testInsideOneZoneItSurroundsTheListenerAtFullGain() throws {
        let room = try zone("room", .box(center: .zero, size: Vector3(6, 3, 6)))
        let far = try zone("far", .sphere(center: Vector3(100, 0, 0), radius: 5))
        let sends = ZoneBlend.mix(zones: [far, room], listener: Listener(), sends: 2)
        XCTAssertEqual(sends, [ZoneBlend.Send(zone: 1, gain: 1, pan: .zero)])
    }

    func testOutsideTheReverbComesFromTheZoneInTheListenersFrame() throws {
        // A hall 5 m to the listener's right (+x); the listener faces −z, so it is at EAX +x.
        let hall = try zone("hall", .sphere(center: Vector3(8, 0, 0), radius: 3), fade: 10)
        var listener = Listener()
        var send = try XCTUnwrap(ZoneBlend.mix(zones: [hall], listener: listener, sends: 2).first)
        XCTAssertEqual(send.pan.x, 1 - 2 / .pi * atan(3 / 5), accuracy: 1e-5)
        XCTAssertEqual(send.pan.y, 0, accuracy: 1e-6)
        XCTAssertEqual(send.pan.z, 0, accuracy: 1e-6)
        XCTAssertEqual(send.gain, (1 - 0.5 * 0.5 * (3 - 2 * 0.5)).squareRoot(), accuracy: 1e-5, "weight at 5 of 10 m")
        // Turned to face +x, the hall is straight ahead: EAX +z.
        listener.at = Vector3(1, 0, 0)
        send = try XCTUnwrap(ZoneBlend.mix(zones: [hall], listener: listener, sends: 2).first)
        XCTAssertEqual(send.pan.z, 1 - 2 / .pi * atan(3 / 5), accuracy: 1e-5)
        XCTAssertEqual(send.pan.x, 0, accuracy: 1e-5)
    }

    func testTwoZonesShareTheEnergyAcrossADoorway() throws {
        // Two rooms meeting at x = 0 with 2 m fades: at the doorway both have weight 1.
        let a = try zone("a", .box(center: Vector3(-3, 0, 0), size: Vector3(6, 3, 6)), fade: 2)
        let b = try zone("b", .box(center: Vector3(3, 0, 0), size: Vector3(6, 3, 6)), fade: 2)
        let door = ZoneBlend.mix(zones: [a, b], listener: Listener(), sends: 2)
        XCTAssertEqual(door.count, 2)
        XCTAssertEqual(door.map(\.zone), [0, 1], "equally near: ordered by name")
        XCTAssertEqual(door[0].gain * door[0].gain + door[1].gain * door[1].gain, 1, accuracy: 1e-5, "energy shared")
        // A walk from deep in A to deep in B: the energy stays 1, and no gain jumps.
        var last = ZoneBlend.mix(zones: [a, b], listener: Listener(position: Vector3(-5, 0, 0)), sends: 2)
        for i in 0...1000 {
            let p = Vector3(-5 + Float(i) / 100, 0, 0)
            let now = ZoneBlend.mix(zones: [a, b], listener: Listener(position: p), sends: 2)
            let energy = now.reduce(Float(0)) { $0 + $1.gain * $1.gain }
            XCTAssertEqual(energy, 1, accuracy: 1e-4, "at \(p)")
            for zone in 0..<2 {
                let g0 = last.first { $0.zone == zone }?.gain ?? 0, g1 = now.first { $0.zone == zone }?.gain ?? 0
                XCTAssertLessThanOrEqual(abs(g1 - g0), 0.08, "zone \(zone) at \(p)")
            }
            last = now
        }
    }

    func testMoreZonesThanSendsKeepsTheNearestDeterministically() throws {
        let zones = try [
            zone("c", .sphere(center: Vector3(0, 0, -6), radius: 1), fade: 20),
            zone("b", .sphere(center: Vector3(0, 0, 4), radius: 1), fade: 20),
            zone("a", .sphere(center: Vector3(4, 0, 0), radius: 1), fade: 20),
        ]
        let sends = ZoneBlend.mix(zones: zones, listener: Listener(), sends: 2)
        XCTAssertEqual(sends.map(\.zone), [2, 1], "a and b are 3 m away (name order), c 5 m")
        XCTAssertEqual(ZoneBlend.mix(zones: zones, listener: Listener(), sends: 1).map(\.zone), [2])
        XCTAssertEqual(ZoneBlend.mix(zones: zones, listener: Listener(), sends: 0), [])
        XCTAssertEqual(ZoneBlend.mix(zones: zones.reversed(), listener: Listener(), sends: 2).map { zones.count - 1 - $0.zone }, [2, 1],
                       "the same zones in another order make the same choice")
    }
}
