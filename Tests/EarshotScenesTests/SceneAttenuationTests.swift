import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// `referenceDistance`, `maxDistance` and `rolloff`, top level and per emitter: the linear models
/// and the exponent are audible as their formulas say (before these keys, linear did nothing
/// audible and exponent sounded like inverse). Levels measured on loopback renders.
final class SceneAttenuationTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// The RMS (channel mix) of a looping 1 kHz tone at `position`, with the scene's top-level keys
    /// `top` and the emitter's own keys `own`.
    private func level(at position: String, top: String = "", own: String = "") throws -> Double {
        let yaml = "duration: 1\n" + top + "clips:\n  tone: \(try SceneFixtures.tone(in: tmp))\n"
            + "emitters:\n  e: { clip: tone, loop: true, position: \(position)\(own) }\n"
        return try SceneFixtures.render(yaml: yaml, in: tmp).rms(0.2, 1)
    }

    func testLinearExponentAndOverridesFollowTheirFormulas() throws {
        let linear = "distanceModel: linearClamped\nreferenceDistance: 1\nmaxDistance: 10\nrolloff: 1\n"
        let near = try level(at: "[0, 0, -1]", top: linear)
        // Linear: 1 − (5.5 − 1)/(10 − 1) = 0.5 at 5.5 m, silent at 10 m and beyond.
        XCTAssertEqual(Level.dB(try level(at: "[0, 0, -5.5]", top: linear) / near), Level.dB(0.5), accuracy: 0.3)
        XCTAssertLessThan(try level(at: "[0, 0, -12]", top: linear), near * 1e-3, "silent past maxDistance")
        // An emitter's own rolloff: 0 does not attenuate at all.
        XCTAssertEqual(Level.dB(try level(at: "[0, 0, -5.5]", top: linear, own: ", rolloff: 0") / near), 0, accuracy: 0.3)

        // Exponent with rolloff 2 at 4 m: 4^−2 (−24.1 dB), where inverse gives 1/4 (−12.0 dB).
        let exponent = "distanceModel: exponent\nrolloff: 2\n"
        let e1 = try level(at: "[0, 0, -1]", top: exponent)
        XCTAssertEqual(Level.dB(try level(at: "[0, 0, -4]", top: exponent) / e1), Level.dB(1.0 / 16), accuracy: 0.3)
        let i1 = try level(at: "[0, 0, -1]", top: "distanceModel: inverse\n")
        XCTAssertEqual(Level.dB(try level(at: "[0, 0, -4]", top: "distanceModel: inverse\n") / i1), Level.dB(0.25), accuracy: 0.3)
    }

    func testDistancesAreValidated() throws {
        let tone = tmp.appendingPathComponent("tone.wav").path
        try SoxTone.write(to: tone, frequency: 1_000, seconds: 1)
        for (body, key, words) in [
            ("referenceDistance: 5\nmaxDistance: 2\n", "maxDistance", "must be greater than referenceDistance"),
            ("referenceDistance: 0\n", "referenceDistance", "out of range"),
            ("rolloff: -1\n", "rolloff", "out of range"),
            ("clips:\n  tone: \(tone)\nemitters:\n  e: { clip: tone, position: [0, 0, -1], maxDistance: 0.5 }\n", "emitters.e.maxDistance", "must be greater"),
        ] {
            let path = try SceneFixtures.write("duration: 1\n" + body, in: tmp)
            XCTAssertThrowsError(try Scene.load(path: path), key) { error in
                XCTAssertTrue("\(error)".contains(key) && "\(error)".contains(words), "\(error)")
            }
        }
    }
}
