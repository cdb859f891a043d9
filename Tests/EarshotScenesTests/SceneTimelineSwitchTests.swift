import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Scenes with timeline sounds, switches and labelled parameters (issue 41): the keys reach the
/// engine (rendered and measured) and bad ones are refused with their key.
final class SceneTimelineSwitchTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// Tones of 0.2 s at 300, 1,000 and 3,000 Hz.
    private func tones() throws -> String {
        var clips = "clips:\n"
        for hz in [300, 1000, 3000] {
            let path = tmp.appendingPathComponent("t\(hz).wav").path
            try SoxTone.write(to: path, frequency: hz, amplitude: 0.2, seconds: 0.2)
            clips += "  t\(hz): \(path)\n"
        }
        return clips
    }

    private func band(_ a: RenderedAudio, _ hz: Double, _ from: Double, _ to: Double) -> Double {
        Level.dB(power: a.power(at: [hz], from, to))
    }

    /// A timeline (300 Hz now, 1 kHz 0.5 s later) and a switch on `surface` whose label a `set:`
    /// changes by name: each tone sounds where its key puts it.
    func testTimelineAndSwitchKeysReachTheEngine() throws {
        let yaml = "duration: 2.5\n" + (try tones()) + """
            parameters:
              surface: { labels: [gravel, wood], default: wood }
            sounds:
              shot:
                layers:
                  - { clip: t300 }
                  - { clips: [t1000], delay: 0.5, pitch: { cents: 0 }, gain: { db: 0 } }
              stepGravel: { clips: [t300] }
              stepWood: { clips: [t3000] }
              step: { switch: { parameter: surface, cases: { gravel: stepGravel, wood: stepWood } } }
            events:
              - { at: 0, play: shot }
              - { at: 1.0, play: step }
              - { at: 1.5, set: { parameter: surface, value: gravel } }
              - { at: 2.0, play: step }
            """
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
        XCTAssertTrue(try XCTUnwrap(scene.sounds.first { $0.id == "shot" }).isTimeline)
        XCTAssertFalse(try XCTUnwrap(scene.sounds.first { $0.id == "shot" }).loop, "a timeline's layers are one-shots unless they say")
        let a = try SceneFixtures.render(yaml: yaml, in: tmp)
        XCTAssertGreaterThan(band(a, 300, 0.02, 0.18) - band(a, 1000, 0.02, 0.18), 30, "the first part at 0")
        XCTAssertGreaterThan(band(a, 1000, 0.52, 0.68) - band(a, 300, 0.52, 0.68), 30, "the second part at 0.5 s")
        XCTAssertLessThan(band(a, 1000, 0.3, 0.48), band(a, 1000, 0.52, 0.68) - 40, "not before its delay")
        XCTAssertGreaterThan(band(a, 3000, 1.02, 1.18) - band(a, 300, 1.02, 1.18), 30, "wood (the default label)")
        XCTAssertGreaterThan(band(a, 300, 2.02, 2.18) - band(a, 3000, 2.02, 2.18), 30, "gravel, set by label")
    }

    /// Bad timeline and switch keys are refused with their key.
    func testProblemsNameTheirKey() throws {
        let clips = try tones()
        let header = "parameters:\n  surface: { labels: [gravel, wood] }\n  rpm: { range: [0, 10] }\n"
        let cases: [(String, String)] = [
            ("sounds:\n  s: { layers: [ { clip: t300 }, { clip: t1000, loop: false, sustain: true } ] }\n", "one-shot"),
            ("sounds:\n  s: { layers: [ { clip: t300 }, { clip: t1000, tail: true } ] }\n", "sustain: true"),
            ("sounds:\n  s: { layers: [ { clip: t300, delay: -1 } ] }\n", "layers[0].delay"),
            ("sounds:\n  s: { layers: [ { clips: [t300, nope] } ] }\n", "no clip named"),
            ("sounds:\n  a: { clips: [t300] }\n  s: { switch: { parameter: surface, cases: { sand: a } } }\n", "no label \"sand\""),
            ("sounds:\n  s: { switch: { parameter: surface, cases: { wood: nope } } }\n", "no sound named"),
            ("sounds:\n  a: { clips: [t300] }\n  s: { switch: { parameter: rpm, cases: { wood: a } } }\n", "no labels"),
            ("sounds:\n  a: { clips: [t300] }\n  s: { switch: { parameter: surface, cases: { wood: a } }, clips: [t300] }\n", "no clips"),
            ("events:\n  - { at: 0, set: { parameter: surface, value: sand } }\n", "no label \"sand\""),
            ("parameters:\n  x: { labels: [a, a] }\n", "twice"),
        ]
        for (body, expected) in cases {
            let yaml = "duration: 1\n" + (body.hasPrefix("parameters") ? body + clips : header + clips + body)
            let path = try SceneFixtures.write(yaml, in: tmp)
            switch Scene.check(path: path) {
            case .success: XCTFail("accepted: \(body)")
            case .failure(let p): XCTAssertTrue(p.description.contains(expected), "\(body) → \(p.description)")
            }
        }
    }

    /// Every timeline, switch and label key is in the key reference.
    func testTheNewKeysAreDocumented() throws {
        let readme = try String(contentsOfFile: SceneKeyReferenceTests.readme, encoding: .utf8)
        let reference = try XCTUnwrap(SceneKeyReferenceTests.reference(readme)).joined(separator: "\n")
        for key in SceneParser.layerTimingKeys + SceneParser.switchKeys + SceneParser.parameterKeys + SceneParser.soundParameterKeys {
            XCTAssertTrue(reference.contains("`\(key)`"), "\(key) is not in the key reference of Demos/Scenes/README.md")
        }
    }
}
