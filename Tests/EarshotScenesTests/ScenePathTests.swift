import Earshot
@testable import EarshotContent
import EarshotScenes
import XCTest

/// Circle and waypoint paths exactly as the scene contract states them.
final class ScenePathTests: XCTestCase {
    private func assertClose(_ a: Vector3, _ b: Vector3, accuracy: Float = 1e-4, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.x, b.x, accuracy: accuracy, file: file, line: line)
        XCTAssertEqual(a.y, b.y, accuracy: accuracy, file: file, line: line)
        XCTAssertEqual(a.z, b.z, accuracy: accuracy, file: file, line: line)
    }

    func testCircleStartsAtPlusRadiusXAndReachesMinusZAQuarterPeriodLater() {
        let c = Vector3(1, 2, 3)
        let path = ScenePath.circle(center: c, radius: 5, period: 4)
        assertClose(path.position(at: 0), c + Vector3(5, 0, 0))
        assertClose(path.position(at: 1), c + Vector3(0, 0, -5))
        assertClose(path.position(at: 2), c + Vector3(-5, 0, 0))
        assertClose(path.position(at: 3), c + Vector3(0, 0, 5))
        assertClose(path.position(at: 4), c + Vector3(5, 0, 0))
        for t in stride(from: 0.0, to: 4, by: 0.37) {
            XCTAssertEqual((path.position(at: t) - c).length, 5, accuracy: 1e-4, "stays on the circle, in the x–z plane")
            XCTAssertEqual(path.position(at: t).y, 2)
        }
    }

    func testCirclePhaseDirectionAndPlane() {
        let c = Vector3(1, 2, 3)
        // phase 90: starts in front; counter-clockwise then goes left, clockwise right.
        let ccw = ScenePath.circle(center: c, radius: 5, period: 4, phase: 90)
        assertClose(ccw.position(at: 0), c + Vector3(0, 0, -5))
        assertClose(ccw.position(at: 1), c + Vector3(-5, 0, 0))
        let cw = ScenePath.circle(center: c, radius: 5, period: 4, phase: 90, clockwise: true)
        assertClose(cw.position(at: 1), c + Vector3(5, 0, 0))
        // Upright planes: xy goes right then up; yz goes in front then up.
        let xy = ScenePath.circle(center: c, radius: 5, period: 4, plane: .xy)
        assertClose(xy.position(at: 0), c + Vector3(5, 0, 0))
        assertClose(xy.position(at: 1), c + Vector3(0, 5, 0))
        let yz = ScenePath.circle(center: c, radius: 5, period: 4, plane: .yz)
        assertClose(yz.position(at: 0), c + Vector3(0, 0, -5))
        assertClose(yz.position(at: 1), c + Vector3(0, 5, 0))
        // The velocity is the path's derivative, for every variant (central differences).
        for path in [ccw, cw, xy, yz] {
            for t in stride(from: 0.1, to: 4, by: 0.7) {
                let h = 1e-3
                let numeric = (path.position(at: t + h) - path.position(at: t - h)) * Float(1 / (2 * h))
                assertClose(path.velocity(at: t), numeric, accuracy: 2e-2)
            }
        }
    }

    func testWaypointsAreLinearBetweenAndHeldOutside() {
        let path = ScenePath.waypoints([.init(time: 1, position: Vector3(0, 0, 0)), .init(time: 3, position: Vector3(4, 0, -2)),
                                        .init(time: 4, position: Vector3(4, 2, -2))])
        assertClose(path.position(at: 0), .zero)
        assertClose(path.position(at: 2), Vector3(2, 0, -1))
        assertClose(path.position(at: 3.5), Vector3(4, 1, -2))
        assertClose(path.position(at: 10), Vector3(4, 2, -2))
        XCTAssertTrue(path.moves)
        XCTAssertFalse(ScenePath.waypoints([.init(time: 0, position: .zero)]).moves)
        XCTAssertFalse(ScenePath.fixed(.zero).moves)
    }
}
