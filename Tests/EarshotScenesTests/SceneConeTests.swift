import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Emitters' `direction`, `facing: path` and `cone`, rendered and measured: a cone pointing away
/// from the listener plays at its outer gain, and one that faces along a circle around the
/// listener (so sideways to it) does too.
final class SceneConeTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func level(_ emitter: String) throws -> Double {
        let yaml = "duration: 2\ndopplerFactor: 0\nclips:\n  tone: \(try SceneFixtures.tone(in: tmp))\n"
            + "emitters:\n  e: { clip: tone, loop: true, \(emitter) }\n"
        return try SceneFixtures.render(yaml: yaml, in: tmp).rms(0.2, 2)
    }

    func testAConeFacingAwayAndAConeFacingAlongACirclePlayAtTheOuterGain() throws {
        let cone = "cone: { inner: 60, outer: 120, outerGain: 0.1 }"
        let toward = try level("position: [0, 0, -3], direction: [0, 0, 1], \(cone)")
        let away = try level("position: [0, 0, -3], direction: [0, 0, -1], \(cone)")
        XCTAssertEqual(Level.dB(away / toward), -20, accuracy: 0.5, "pointing away: the outer gain")

        let circle = "path: { circle: { radius: 3, period: 2 } }"
        let omni = try level(circle)
        let along = try level("\(circle), facing: path, \(cone)")
        XCTAssertEqual(Level.dB(along / omni), -20, accuracy: 0.5, "facing along the circle is sideways to the listener")
    }

    func testAConeNeedsADirectionAndOuterCoversInner() throws {
        let tone = tmp.appendingPathComponent("tone.wav").path
        try SoxTone.write(to: tone, frequency: 1_000, seconds: 1)
        for (e, words) in [("position: [0, 0, -1], cone: { inner: 60, outer: 120 }", "a cone needs direction"),
                           ("position: [0, 0, -1], direction: [0, 0, 1], cone: { inner: 90, outer: 30 }", "must be at least inner"),
                           ("position: [0, 0, -1], direction: [0, 0, 1], facing: path", "either direction or facing")] {
            let path = try SceneFixtures.write("duration: 1\nclips:\n  tone: \(tone)\nemitters:\n  e: { clip: tone, \(e) }\n", in: tmp)
            XCTAssertThrowsError(try Scene.load(path: path)) { error in
                XCTAssertTrue("\(error)".contains(words), "\(error)")
            }
        }
    }
}
