import Earshot
@testable import EarshotContent
import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Moving listeners and emitters get their path's velocity, so scenes have the Doppler effect:
/// a 40 m/s pass-by of a 1 kHz tone is heard at OpenAL's f·c/(c − v) approaching and
/// f·c/(c + v) receding; `dopplerFactor: 0` turns it off; a circle around the listener (no
/// radial speed) keeps its pitch. Rendered through loopback and measured by zero crossings.
final class SceneDopplerTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// Renders `body` (the scene's keys after `clips:`) with a looping 1 kHz tone as clip `tone`.
    private func render(_ body: String) throws -> RenderedAudio {
        try SceneFixtures.render(yaml: "duration: 10\nclips:\n  tone: \(try SceneFixtures.tone(in: tmp))\n" + body, in: tmp)
    }

    private func frequency(_ a: RenderedAudio, _ from: Double, _ to: Double) -> Double { a.frequency(from, to) }

    func testAPassByRisesApproachingAndFallsReceding() throws {
        let pass = "emitters:\n  car: { clip: tone, loop: true, path: { waypoints: [[0, -200, 0, -5], [10, 200, 0, -5]] } }\n"
        let audio = try render(pass)
        let c = 343.3, v = 40.0
        // Around 1 s the car is 160 m away on the left, closing at 40 m/s (cos of its angle: 0.9995).
        XCTAssertEqual(frequency(audio, 0.8, 1.2), 1_000 * c / (c - v * 0.9995), accuracy: 1_000 * 0.005)
        XCTAssertEqual(frequency(audio, 8.8, 9.2), 1_000 * c / (c + v * 0.9995), accuracy: 1_000 * 0.005)

        let off = try render("dopplerFactor: 0\n" + pass)
        XCTAssertEqual(frequency(off, 0.8, 1.2), 1_000, accuracy: 2, "dopplerFactor 0: no shift")
        XCTAssertEqual(frequency(off, 8.8, 9.2), 1_000, accuracy: 2)
    }

    func testACircleAroundTheListenerKeepsItsPitchAndAMovingListenerHearsTheShift() throws {
        let orbit = try render("emitters:\n  fly: { clip: tone, loop: true, path: { circle: { radius: 5, period: 2 } } }\n")
        XCTAssertEqual(frequency(orbit, 1, 9), 1_000, accuracy: 2, "15.7 m/s around the listener: no radial speed, no shift")

        let approach = try render("""
            speedOfSound: 340
            listener: { path: { waypoints: [[0, 0, 0, 0], [10, 0, 0, -400]] } }
            emitters:
              horn: { clip: tone, loop: true, position: [0, 0, -500] }
            """)
        // The listener closes at 40 m/s: f·(c + v)/c with c = 340.
        XCTAssertEqual(frequency(approach, 2, 3), 1_000 * (340 + 40) / 340, accuracy: 1_000 * 0.005)
    }

    func testCirclePhaseAndDirectionAreHeard() throws {
        // phase 90 starts in front; a quarter turn later counter-clockwise is on the left,
        // clockwise on the right.
        for (direction, louder) in [("ccw", 0), ("cw", 1)] {
            let audio = try render("emitters:\n  fly: { clip: tone, loop: true, path: { circle: { radius: 3, period: 4, phase: 90, direction: \(direction) } } }\n")
            let left = audio.rms(0, 0.9, 1.1), right = audio.rms(1, 0.9, 1.1)
            let balance = Level.dB(left / right)
            XCTAssertGreaterThan(louder == 0 ? balance : -balance, 6, "\(direction): left/right \(balance) dB at 1 s")
        }
        XCTAssertThrowsError(try Scene.load(path: try SceneFixtures.write(
            "duration: 1\nlistener: { path: { circle: { radius: 1, period: 1, plane: up } } }\n", in: tmp))) { error in
            XCTAssertTrue("\(error)".contains("path.circle.plane"), "\(error)")
        }
    }

    func testDopplerKeysAreValidated() throws {
        for (yaml, key) in [("duration: 1\ndopplerFactor: -1\n", "dopplerFactor"), ("duration: 1\nspeedOfSound: 0\n", "speedOfSound")] {
            XCTAssertThrowsError(try Scene.load(path: try SceneFixtures.write(yaml, in: tmp)), key) { error in
                XCTAssertTrue("\(error)".contains(key), "\(error)")
            }
        }
        let path = ScenePath.waypoints([.init(time: 0, position: Vector3(-200, 0, -5)), .init(time: 10, position: Vector3(200, 0, -5))])
        XCTAssertEqual(path.velocity(at: 3), Vector3(40, 0, 0))
        XCTAssertEqual(path.velocity(at: 10), .zero, "after the last waypoint it stands still")
        let circle = ScenePath.circle(center: .zero, radius: 5, period: 4)
        // A quarter period in: at (0, 0, -5), moving towards -x at 2π·5/4 m/s.
        XCTAssertEqual(circle.velocity(at: 1).x, -Float(2 * Double.pi * 5 / 4), accuracy: 1e-4)
        XCTAssertEqual(circle.velocity(at: 1).z, 0, accuracy: 1e-4)
    }
}
