import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotMeasure
import EarshotTestSupport
import XCTest

/// The environment keys of scenes (`zones:`, emitters' `occlusion:` …): parsed, validated with
/// FILE:LINE:COLUMN, and heard in the rendered Demos/Scenes/rooms.yaml.
final class SceneEnvironmentTests: XCTestCase {
    private var tmp: URL!
    private var beep: String { SceneFixtures.beep }

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func write(_ yaml: String, name: String = "scene.yaml") throws -> String {
        try SceneFixtures.write(yaml, name: name, in: tmp)
    }

    func testZonesAndEmitterEnvironmentsAreParsed() throws {
        let path = try write("""
            duration: 2
            clips: { b: \(beep) }
            zones:
              cell: { reverb: stoneroom, box: { center: [0, 1.5, 0], size: [4, 3, 4] }, fade: 1 }
              hall: { reverb: { preset: hangar, decayTime: 6, gain: 0.5 }, sphere: { center: [0, 0, -40], radius: 25 }, gain: 0.8 }
              plain: { reverb: { decayTime: 2 }, sphere: { radius: 3 } }
            emitters:
              e: { clip: b, position: [1, 0, 0], occlusion: 0.7, obstruction: 0.2, airAbsorption: 1.5, sends: 0.5 }
            """)
        let scene = try Scene.load(path: path)
        XCTAssertEqual(scene.zones.map(\.name), ["cell", "hall", "plain"])
        XCTAssertEqual(scene.zones[0].shape, .box(center: Vector3(0, 1.5, 0), size: Vector3(4, 3, 4)))
        XCTAssertEqual(scene.zones[0].fade, 1)
        XCTAssertEqual(scene.zones[0].reverb, try ReverbProperties.preset(named: "stoneroom"))
        var hall = try ReverbProperties.preset(named: "hangar")
        hall.decayTime = 6
        hall.gain = 0.5
        XCTAssertEqual(scene.zones[1].reverb, hall)
        XCTAssertEqual(scene.zones[1].shape, .sphere(center: Vector3(0, 0, -40), radius: 25))
        XCTAssertEqual(scene.zones[1].gain, 0.8)
        XCTAssertEqual(scene.zones[1].fade, 2, "default fade")
        XCTAssertEqual(scene.zones[2].reverb.decayTime, 2)
        XCTAssertEqual(scene.zones[2].reverb.density, try ReverbProperties.preset(named: "generic").density)
        XCTAssertEqual(scene.emitters[0].environment,
                       EnvironmentProperties(occlusion: 0.7, obstruction: 0.2, airAbsorption: 1.5, sendGain: 0.5))
    }

    func testBadZonesGiveFileLineKeyAndNearMatches() throws {
        let cases: [(String, Int, String, String)] = [
            ("duration: 2\nzones:\n  h: { reverb: hangr, sphere: { radius: 3 } }\n", 3, "zones.h.reverb",
             "no reverb preset named \"hangr\" (did you mean 'hangar'?)"),
            ("duration: 2\nzones:\n  h: { reverb: { preset: castle_smalroom }, sphere: { radius: 3 } }\n", 3, "zones.h.reverb.preset",
             "did you mean 'castle_smallroom'"),
            ("duration: 2\nzones:\n  h: { reverb: room }\n", 3, "zones.h.sphere", "give sphere: { center, radius } or box: { center, size }"),
            ("duration: 2\nzones:\n  h: { reverb: room, sphere: { radius: 3 }, box: { size: [1, 1, 1] } }\n", 3, "zones.h.box", "not both"),
            ("duration: 2\nzones:\n  h: { reverb: room, box: { size: [1, 0, 1] } }\n", 3, "zones.h.box.size", "more than 0"),
            ("duration: 2\nzones:\n  h: { reverb: room, sphere: { radius: 0 } }\n", 3, "zones.h.sphere.radius", "out of range"),
            ("duration: 2\nzones:\n  h: { reverb: { decayTime: 50 }, sphere: { radius: 3 } }\n", 3, "zones.h.reverb.decayTime", "0.1…20"),
            ("duration: 2\nzones:\n  h: { reverb: room, sphere: { radius: 3 }, fade: -1 }\n", 3, "zones.h.fade", "out of range"),
            ("duration: 2\nclips: { b: \(beep) }\nemitters:\n  e: { clip: b, position: [0, 0, 0], occlusion: 2 }\n", 4, "emitters.e.occlusion",
             "out of range"),
        ]
        for (i, (yaml, line, key, fragment)) in cases.enumerated() {
            let path = try write(yaml, name: "bad\(i).yaml")
            guard case .failure(let problems) = Scene.check(path: path),
                  case .invalid(let file, let l, _, let k, let reason)? = problems.first else {
                XCTFail("case \(i) was accepted or gave no scene error")
                continue
            }
            XCTAssertEqual(file, path)
            XCTAssertEqual(l, line, "case \(i): \(problems)")
            XCTAssertEqual(k, key, "case \(i): \(problems)")
            XCTAssertTrue(reason.contains(fragment), "case \(i): \(reason)")
        }
    }

    /// rooms.yaml: a footstep in the small room rings briefly, one in the hangar rings long;
    /// the same scene without its zones is dry.
    func testRoomsSceneRingsLikeItsRooms() throws {
        let (_, wet) = try SceneFixtures.render("rooms.yaml", duration: 6, into: tmp)
        let text = try String(contentsOfFile: SceneFixtures.path("rooms.yaml"), encoding: .utf8)
        let dryText = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("zones:") && !$0.hasPrefix("  room:") && !$0.hasPrefix("  hangar:") }
            .joined(separator: "\n")
            .replacingOccurrences(of: "../../Assets", with: CLIRunner.packageRoot.appendingPathComponent("Assets").path)
        let dryPath = try write(dryText, name: "rooms-dry.yaml")
        let dryOut = tmp.appendingPathComponent("dry.wav").path
        _ = try SceneRenderer(scene: Scene.load(path: dryPath)).render(to: dryOut, format: .f32, duration: 6)
        let dry = try RenderedAudio(path: dryOut)
        // Steps at 0.2 s (in the room) and 4.0 s (in the hangar); tails 0.4–0.8 s after each.
        let roomStep = wet.rms(0.2, 0.35), roomTail = wet.rms(0.6, 0.9)
        let hangarStep = wet.rms(4.0, 4.15), hangarTail = wet.rms(4.4, 4.8)
        print("SceneEnvironmentTests: room step \(Level.dB(roomStep)) tail \(Level.dB(roomTail)); hangar step \(Level.dB(hangarStep)) tail \(Level.dB(hangarTail)); dry tails \(Level.dB(dry.rms(0.6, 0.9))) \(Level.dB(dry.rms(4.4, 4.8))) dB")
        XCTAssertLessThan(Level.dB(dry.rms(0.6, 0.9)), -90, "dry: the step is over")
        XCTAssertLessThan(Level.dB(dry.rms(4.4, 4.8)), -90)
        XCTAssertGreaterThan(Level.dB(roomTail), -80, "the room rings")
        XCTAssertGreaterThan(Level.dB(hangarTail / hangarStep), Level.dB(roomTail / roomStep) + 6, "the hangar rings far longer than the room")
    }

    /// Without auxiliary sends (OpenAL Soft told `sends = 0` through `ALSOFT_CONF`, read only at
    /// its start, hence a child process) the scene still renders, dry: no error, no tail.
    func testWithoutSendsTheSceneRendersDry() throws {
        let conf = tmp.appendingPathComponent("alsoft.conf").path
        try "[general]\nsends = 0\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let out = tmp.appendingPathComponent("nosends.wav").path
        let r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/rooms.yaml", "-o", out, "--format", "f32", "--duration", "2", "--quiet"],
                                  environment: ["ALSOFT_CONF": conf])
        XCTAssertEqual(r.status, 0, r.stderr)
        let audio = try RenderedAudio(path: out)
        XCTAssertGreaterThan(Level.dB(audio.rms(0.2, 0.35)), -40, "the step is heard")
        XCTAssertLessThan(Level.dB(audio.rms(0.6, 0.85)), -90, "and nothing rings: no sends, no reverb")
    }

}
