@testable import Earshot
import XCTest

/// Placement is stated once: each initializer makes exactly the placement it names.
final class PlayOptionsTests: XCTestCase {
    func testEachInitializerStatesOnePlacement() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let car = try e.makeEmitter(SpatialProperties(position: Vector3(5, 0, 0)))
        XCTAssertEqual(PlayOptions().placement, .pan(0))
        XCTAssertEqual(PlayOptions(pan: -1, bus: .ui).placement, .pan(-1))
        XCTAssertEqual(PlayOptions(gain: 0.5, position: Vector3(1, 2, 3), velocity: Vector3(0, 0, 4)).placement,
                       .spatial(SpatialProperties(position: Vector3(1, 2, 3), velocity: Vector3(0, 0, 4))))
        XCTAssertEqual(PlayOptions(loop: true, emitter: car).placement, .emitter(car))
        let explicit = PlayOptions(priority: 3, placement: .spatial(SpatialProperties(position: Vector3(0, 0, -2))))
        XCTAssertEqual(explicit.priority, 3)
        XCTAssertEqual(explicit.placement, .spatial(SpatialProperties(position: Vector3(0, 0, -2))))
        // The other settings are the same whichever initializer made them.
        let a = PlayOptions(gain: 0.7, pitch: 1.5, loop: true, priority: 9, pan: 0.25, bus: .ui, delay: 0.1, fadeIn: 0.2)
        var b = PlayOptions(gain: 0.7, pitch: 1.5, loop: true, priority: 9, bus: .ui, delay: 0.1, fadeIn: 0.2)
        b.placement = .pan(0.25)
        XCTAssertEqual(a, b)
    }
}
