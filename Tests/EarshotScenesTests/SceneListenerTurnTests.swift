import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// The listener turns: `at` keyframes interpolated by rotation and `facing: path`, heard as
/// which ear a fixed emitter reaches.
final class SceneListenerTurnTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func render(_ listener: String, emitterAt position: String) throws -> RenderedAudio {
        let yaml = "duration: 5\ndopplerFactor: 0\nclips:\n  tone: \(try SceneFixtures.tone(700, in: tmp))\nlistener: \(listener)\n"
            + "emitters:\n  e: { clip: tone, loop: true, position: \(position) }\n"
        return try SceneFixtures.render(yaml: yaml, in: tmp)
    }

    /// Left over right, dB.
    private func balance(_ a: RenderedAudio, _ from: Double, _ to: Double) -> Double {
        Level.dB(a.rms(0, from, to) / max(a.rms(1, from, to), 1e-12))
    }

    func testTurningNinetyThenNinetySwapsTheEars() throws {
        // Facing −z, then turning left to −x, then on to +z: an emitter at +x goes from the right
        // ear, to behind (both alike), to the left ear.
        let audio = try render("{ at: { waypoints: [[0, 0, 0, -1], [1, 0, 0, -1], [2, -1, 0, 0], [3, -1, 0, 0], [4, 0, 0, 1]] } }",
                               emitterAt: "[3, 0, 0]")
        XCTAssertLessThan(balance(audio, 0.2, 0.9), -6, "right ear first")
        XCTAssertEqual(balance(audio, 2.2, 2.9), 0, accuracy: 2, "behind: both ears alike")
        XCTAssertGreaterThan(balance(audio, 4.2, 4.9), 6, "left ear after 180°")
    }

    func testFacingThePathTurnsWithTheMotion() throws {
        // Walking towards +x past an emitter ahead at (10, 0, 0): facing the path it is in front
        // (both ears alike); facing −z (the default) it is on the right.
        let walk = "path: { waypoints: [[0, 0, 0, 0], [5, 5, 0, 0]] }"
        let facing = try render("{ \(walk), facing: path }", emitterAt: "[10, 0, 0]")
        XCTAssertEqual(balance(facing, 1, 4), 0, accuracy: 2)
        let fixed = try render("{ \(walk) }", emitterAt: "[10, 0, 0]")
        XCTAssertLessThan(balance(fixed, 1, 4), -6)
    }

    func testKeyframesTurnAtASteadyAngularSpeed() {
        let keys = [SceneListener.Keyframe(time: 0, direction: Vector3(0, 0, -1)), .init(time: 1, direction: Vector3(-1, 0, 0))]
        // A quarter of the way: 22.5° of the 90° turn (a straight-line blend would give 18.4°).
        let d = SceneListener.turn(keys, at: 0.25) ?? .zero
        XCTAssertEqual(Double(atan2(-d.x, -d.z)) * 180 / .pi, 22.5, accuracy: 0.01)
        XCTAssertEqual(d.length, 1, accuracy: 1e-5)
        // Opposite keyframes turn through the side, not through zero.
        let back = SceneListener.turn([.init(time: 0, direction: Vector3(0, 0, -1)), .init(time: 1, direction: Vector3(0, 0, 1))], at: 0.5) ?? .zero
        XCTAssertEqual(back.length, 1, accuracy: 1e-5)
        XCTAssertEqual(abs(back.x), 1, accuracy: 1e-4)
    }
}
