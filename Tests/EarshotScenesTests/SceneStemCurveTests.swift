import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// A music set's stem whose `gain:` is a curve of a game parameter: parsed into the stem's
/// curves, checked against `parameters:` (the rendering is measured in StemParameterTests).
final class SceneStemCurveTests: XCTestCase {
    func testAStemGainCurveIsReadAndItsParameterChecked() throws {
        let tmp = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: tmp) }
        let tone = tmp.appendingPathComponent("t.wav").path
        try SoxTone.write(to: tone, frequency: 440, seconds: 1)
        func yaml(_ parameter: String) -> String {
            """
            duration: 1
            parameters:
              intensity: { range: [0, 1], default: 0 }
            music:
              fight:
                bpm: 120
                states:
                  combat:
                    layers:
                      drums: { file: \(tone), gain: { parameter: \(parameter), curve: [[0, -40], [1, 0]] } }
                      bass: { file: \(tone), gain: 0.5 }
            events:
              - { at: 0, music: fight, state: combat }
            """
        }
        let scene = try Scene.load(path: try SceneFixtures.write(yaml("intensity"), in: tmp))
        guard case .layers(let layers) = try XCTUnwrap(scene.musicSets.first).definition.states[0].content else {
            return XCTFail("a layered state")
        }
        XCTAssertEqual(layers.map(\.curves.count), [1, 0])
        XCTAssertEqual(layers[0].curves.first?.value(at: 0.5) ?? 0, -20, accuracy: 1e-9)
        XCTAssertEqual(layers[1].gain, 0.5)
        XCTAssertThrowsError(try Scene.load(path: try SceneFixtures.write(yaml("intensty"), in: tmp))) { error in
            XCTAssertTrue("\(error)".contains("no parameter named \"intensty\""), "\(error)")
        }
    }
}
