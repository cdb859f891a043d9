import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Scenes with game parameters (issue 28): `parameters:`, curves on sounds, layers and buses,
/// `layers:`, and `set: { parameter, value, ramp, of }` events — parsed, refused with their line
/// and key, rendered and measured.
final class SceneParameterTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func tones() throws -> String {
        var clips = "clips:\n"
        for hz in [200, 1000, 3000] {
            let path = tmp.appendingPathComponent("t\(hz).wav").path
            try SoxTone.write(to: path, frequency: hz, amplitude: 0.2, seconds: 1)
            clips += "  t\(hz): \(path)\n"
        }
        return clips
    }

    private let header = """
        parameters:
          rpm: { range: [0, 8000], default: 800, seek: 4000 }

        """

    private func band(_ a: RenderedAudio, _ hz: Double, _ from: Double, _ to: Double) -> Double {
        Level.dB(power: a.power(at: [hz], from, to))
    }

    /// A scene's sounds are named by their ids (what the monitor shows), layered or not.
    func testSoundsAreNamedByTheirIds() throws {
        let scene = try Scene.load(path: CLIRunner.packageRoot.appendingPathComponent("Demos/Scenes/engine.yaml").path)
        let car = try XCTUnwrap(scene.sounds.first { $0.id == "car" })
        XCTAssertEqual(car.definition(clips: [:]).name, "car")
        let mix = try Scene.load(path: CLIRunner.packageRoot.appendingPathComponent("Demos/Scenes/mix.yaml").path)
        for s in mix.sounds { XCTAssertEqual(s.definition(clips: [:]).name, s.id) }
        XCTAssertFalse(mix.sounds.isEmpty)
    }

    /// A layered car: the global rpm ramps (set with ramp:) and crossfades its layers; a named
    /// play of the same sound with its own rpm (`of:`) keeps its own mix.
    func testLayeredCarFollowsTheGlobalAndItsOwnRpm() throws {
        let yaml = "duration: 4\n" + header + (try tones()) + """
            sounds:
              car:
                layers:
                  - { clip: t200, gain: { parameter: rpm, curve: [[800, 0], [4000, -30]] } }
                  - { clip: t3000, gain: { parameter: rpm, curve: [[800, -30], [4000, 0]], shape: sCurve } }
            events:
              - { at: 0, play: car, pan: -1 }
              - { at: 0, play: car, pan: 1, name: other }
              - { at: 0.5, set: { parameter: rpm, value: 800, of: other } }
              - { at: 1, set: { parameter: rpm, value: 4000, ramp: 1 } }
            """
        let audio = try SceneFixtures.render(yaml: yaml, in: tmp)
        func levels(_ channel: Int, _ from: Double, _ to: Double) -> (low: Double, high: Double) {
            var mono = audio
            mono.samples = stride(from: channel, to: audio.samples.count, by: 2).map { audio.samples[$0] }
            mono.channels = 1
            return (band(mono, 200, from, to), band(mono, 3000, from, to))
        }
        let before = levels(0, 0.6, 0.9), after = levels(0, 2.5, 3.5)
        XCTAssertGreaterThan(before.low - before.high, 25, "idle at 800 rpm: \(before)")
        XCTAssertGreaterThan(after.high - after.low, 25, "high at 4000 rpm: \(after)")
        XCTAssertEqual(after.high, before.low, accuracy: 1, "the high layer at 0 dB is as loud as the idle one was")
        let other = levels(1, 2.5, 3.5)
        XCTAssertGreaterThan(other.low - other.high, 25, "the named play keeps its own 800 rpm: \(other)")
    }

    /// A bus curve and a parameter set `of:` an emitter (before it starts).
    func testBusCurveAndEmitterParameter() throws {
        let yaml = "duration: 3\n" + header + (try tones()) + """
            buses:
              cars: { gain: { parameter: rpm, curve: [[0, 0], [8000, -20]] } }
            sounds:
              hum: { clips: [t1000], loop: true, bus: cars }
            emitters:
              e1: { clip: hum, position: [0, 0, -1], start: 1 }
            events:
              - { at: 0.5, set: { parameter: rpm, value: 0, of: e1 } }
              - { at: 2, set: { parameter: rpm, value: 8000, ramp: 0 }, of: e1 }
            """
        let audio = try SceneFixtures.render(yaml: yaml, in: tmp)
        let a = audio.rms(1.3, 1.9), b = audio.rms(2.3, 2.9)
        XCTAssertGreaterThan(a, 0.01, "heard at rpm 0")
        XCTAssertEqual(Level.dB(b / a), -20, accuracy: 0.5, "the bus curve at 8000 rpm of the emitter")
    }

    /// Bad parameters, curves, layers and set events are refused with their key.
    func testProblemsNameTheirKey() throws {
        let clips = try tones()
        let cases: [(String, String)] = [
            ("sounds:\n  s: { clips: [t200], gain: { parameter: rmp, curve: [[0, 0]] } }\n", "did you mean 'rpm'"),
            ("sounds:\n  s: { clips: [t200], gain: { parameter: rpm, curve: [[10, 0], [5, -3]] } }\n", "increasing order"),
            ("sounds:\n  s: { clips: [t200], pitch: { parameter: rpm, curve: [[0, 0]] } }\n", "pitch factor"),
            ("sounds:\n  s: { clips: [t200], gain: { parameter: rpm, curve: [[0, 0]], shape: cubic } }\n", "shape"),
            ("sounds:\n  s: { layers: [ { clip: nope } ] }\n", "no clip named"),
            ("sounds:\n  s: { clips: [t200], layers: [ { clip: t200 } ] }\n", "not both"),
            ("sounds:\n  s: { layers: [ { clip: t200 } ], select: shuffle }\n", "layered"),
            ("events:\n  - { at: 0, set: { parameter: rpm, value: 9000 } }\n", "range"),
            ("events:\n  - { at: 0, set: { parameter: speed, value: 1 } }\n", "no parameter named"),
            ("events:\n  - { at: 0, set: { parameter: rpm, value: 1, of: car9 } }\n", "no emitter or named play"),
            ("events:\n  - { at: 0, set: { parameter: rpm, value: 1 }, gain: 2 }\n", "does not apply"),
            ("parameters2: 1\n", "unknown key"),
        ]
        for (body, expected) in cases {
            let yaml = "duration: 1\n" + header + clips + body
            let path = try SceneFixtures.write(yaml, in: tmp)
            switch Scene.check(path: path) {
            case .success: XCTFail("accepted: \(body)")
            case .failure(let p): XCTAssertTrue(p.description.contains(expected), "\(body) → \(p.description)")
            }
        }
        let bad = "duration: 1\nparameters:\n  rpm: { range: [10, 0] }\n  x: { range: [0, 1], default: 2 }\n"
        guard case .failure(let p) = Scene.check(yaml: bad, path: "bad.yaml") else { return XCTFail("accepted") }
        XCTAssertTrue(p.description.contains("parameters.rpm.range"), p.description)
        XCTAssertTrue(p.description.contains("parameters.x.default"), p.description)
    }
}

extension SceneParameterTests {
    /// The plot draws a lane per parameter: the global value and a named play's own, paced by
    /// the seek and the ramp.
    func testPlotHasALanePerParameter() throws {
        let yaml = "duration: 4\n" + header + "  intensity: { range: [0, 1] }\n" + (try tones()) + """
            sounds:
              hum: { clips: [t1000], loop: true, gain: { parameter: intensity, curve: [[0, -20], [1, 0]] } }
            events:
              - { at: 0, play: hum, name: h }
              - { at: 1, set: { parameter: rpm, value: 4800 } }
              - { at: 2, set: { parameter: intensity, value: 1, ramp: 1, of: h } }
            """
        let path = try SceneFixtures.write(yaml, in: tmp)
        let scene = try Scene.load(path: path)
        XCTAssertEqual(scene.parameters.map(\.id), ["rpm", "intensity"])
        let result = try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("p.wav").path, format: .f32)
        let svg = LevelPlot.svg(levels: result.levels, events: result.events, title: scene.name, timeline: result.timeline, scene: scene)
        XCTAssertTrue(svg.contains("parameter rpm"))
        XCTAssertTrue(svg.contains("parameter intensity"))
        XCTAssertTrue(svg.contains("data-series=\"of h\""))
        // The rpm lane: 800 until 1 s, then 4000/s to 4800 by 2 s (values per column, sampled).
        let v = LevelPlot.values(scene.parameters[0], [(1, 4800, nil)], columns: 400, total: 4)
        XCTAssertEqual(v[50]!, 800)                    // 0.505 s
        XCTAssertEqual(v[150]!, 800 + 4000 * 0.505, accuracy: 1)
        XCTAssertEqual(v[250]!, 4800)
    }
}

