import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotMeasure
import EarshotTestSupport
import FoundationXML
import Foundation
import XCTest

/// The rooms keys of scenes (`rooms:`, `portals:`, the `portal:` event): parsed, checked with
/// FILE:LINE:COLUMN as the engine checks a geometry, and heard in the rendered
/// Demos/Scenes/house.yaml (the kitchen door closing takes the radio down to its wall's murmur).
final class SceneRoomsTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    func testHouseIsParsed() throws {
        let scene = try Scene.load(path: SceneFixtures.path("house.yaml"))
        let g = scene.geometry
        XCTAssertEqual(g.rooms.map(\.id), ["living", "kitchen", "corridor", "bedroom"])
        XCTAssertEqual(g.rooms[1].walls, .wood)
        XCTAssertEqual(g.rooms[3].walls, Walls(loss: 25, hf: 0.2))
        XCTAssertEqual(g.rooms[3].center, Vector3(8, 1.5, 10.5))
        XCTAssertEqual(g.rooms[0].reverb, try ReverbProperties.preset(named: "livingroom"))
        XCTAssertEqual(g.portals.map(\.id), ["kitchen_door", "living_arch", "bedroom_door", "front_door"])
        XCTAssertNil(g.portals[3].roomB, "the outside")
        XCTAssertEqual(g.portals[3].openness, 0)
        XCTAssertEqual(g.portals[0].width, 1)
        XCTAssertEqual(g.portals[0].height, 2)
        XCTAssertTrue(scene.events.contains { if case .portal("kitchen_door", 0, 0.5) = $0.action { true } else { false } })
        XCTAssertEqual(scene.warnings().filter { $0.key.hasPrefix("rooms") }, [])
        XCTAssertNoThrow(try g.validated())
    }

    func testBadRoomsGiveFileLineKey() throws {
        let rooms = """
            rooms:
              a: { box: { min: [0, 0, 0], max: [5, 3, 5] } }
              b: { box: { min: [5, 0, 0], max: [10, 3, 5] } }

            """
        let cases: [(String, Int, String, String)] = [
            (rooms + "portals:\n  d: { between: [a, b], center: [5, 1, 40], size: [1, 2], normal: [1, 0, 0] }\n", 5, "portals",
             "does not touch the surface of room"),
            ("rooms:\n  a: { box: { min: [0, 0, 0], max: [5, 3, 5] } }\n  b: { box: { min: [4, 0, 0], max: [10, 3, 5] } }\n", 2, "rooms",
             "overlap with equal priority"),
            (rooms + "portals:\n  d: { between: [a, c], center: [5, 1, 2], size: [1, 2], normal: [1, 0, 0] }\n", 5, "portals",
             "does not have"),
            ("rooms:\n  a: { box: { min: [0, 0, 0], max: [5, 3, 5] }, walls: { material: stone } }\n", 2, "rooms.a.walls.material",
             "concrete"),
            ("rooms:\n  a: { box: { min: [0, 0, 0], max: [5, 3, 5] }, walls: { loss: 200 } }\n", 2, "rooms.a.walls.loss", "out of range"),
            ("rooms:\n  a: { box: { size: [1, 1, 1], min: [0, 0, 0], max: [1, 1, 1] } }\n", 2, "rooms.a.box", "{ min, max }"),
            ("rooms:\n  a: { box: { min: [5, 0, 0], max: [0, 3, 5] } }\n", 2, "rooms.a.box", "more than 0"),
            (rooms + "portals:\n  d: { between: [a], center: [5, 1, 2], size: [1, 2], normal: [1, 0, 0] }\n", 5, "portals.d.between",
             "roomA, roomB"),
            (rooms + "portals:\n  d: { between: [a, b], center: [5, 1, 2], size: [1, 2], normal: [0, 0, 0] }\n", 5, "portals.d.normal",
             "cannot be [0, 0, 0]"),
            (rooms + "portals:\n  d: { between: [a, b], center: [5, 1, 2], size: [1, 2], normal: [1, 0, 0], open: 2 }\n", 5,
             "portals.d.open", "out of range"),
            (rooms + "portals:\n  d: { between: [a, b], center: [5, 1, 2], size: [1, 2], normal: [1, 0, 0] }\nevents:\n  - { at: 1, portal: door, open: 0 }\n",
             7, "events[0].portal", "no portal"),
            (rooms + "portals:\n  d: { between: [a, b], center: [5, 1, 2], size: [1, 2], normal: [1, 0, 0] }\nevents:\n  - { at: 1, portal: d }\n",
             7, "events[0].open", "required"),
        ]
        for (i, (body, line, key, fragment)) in cases.enumerated() {
            let path = try SceneFixtures.write("duration: 2\n" + body, name: "bad\(i).yaml", in: tmp)
            guard case .failure(let problems) = Scene.check(path: path),
                  case .invalid(let file, let l, _, let k, let reason)? = problems.first else {
                XCTFail("case \(i) was accepted or gave no scene error")
                continue
            }
            XCTAssertEqual(file, path)
            XCTAssertEqual(l, line + 1, "case \(i): \(problems)")
            XCTAssertEqual(k, key, "case \(i): \(problems)")
            XCTAssertTrue(reason.contains(fragment), "case \(i): \(reason)")
        }
        // A room no portal reaches is allowed, with a warning on its line.
        let lonely = try SceneFixtures.write("duration: 2\n" + rooms, name: "lonely.yaml", in: tmp)
        let warnings = try Scene.load(path: lonely).warnings().filter { $0.key.hasPrefix("rooms") }
        XCTAssertEqual(warnings.map(\.key), ["rooms.a", "rooms.b"])
        XCTAssertEqual(warnings.first?.line, 3)
    }

    /// house.yaml: the radio in the kitchen, heard through its door; the door shuts at 3 s (over
    /// 0.5 s) and opens at 6 s (over 1 s).
    func testHouseDoorClosesAndOpens() throws {
        let (_, audio) = try SceneFixtures.render("house.yaml", duration: 7.6, into: tmp)
        let open = Level.dB(audio.rms(1.0, 2.8)), shut = Level.dB(audio.rms(3.8, 5.8)), again = Level.dB(audio.rms(7.1, 7.6))
        print("SceneRoomsTests: radio through the open door \(open) dB, door shut \(shut) dB, open again \(again) dB")
        XCTAssertLessThan(shut, open - 10, "only the wall is left")
        XCTAssertGreaterThan(shut, -90, "the wall still lets a murmur through")
        XCTAssertEqual(again, open, accuracy: 2, "the door open again")
    }

    /// The plot's map draws the rooms, the portals (the front door shut: red) and the radio's way
    /// through the kitchen door at three moments.
    func testHousePlotDrawsRoomsPortalsAndWays() throws {
        let wav = tmp.appendingPathComponent("h.wav").path, svg = tmp.appendingPathComponent("h.svg").path
        let r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/house.yaml", "-o", wav, "--plot", svg, "--duration", "1", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertEqual(text.components(separatedBy: "class=\"room\"").count - 1, 4)
        XCTAssertEqual(text.components(separatedBy: "class=\"portal\"").count - 1, 4)
        XCTAssertEqual(text.components(separatedBy: "stroke=\"#c0392b\"").count - 1, 1, "the front door, shut")
        XCTAssertEqual(text.components(separatedBy: "class=\"room-path\"").count - 1, 3, "the radio's way at three moments")
        XCTAssertTrue(XMLParser(data: Data(text.utf8)).parse(), "well-formed")
        // The way itself: the radio, the kitchen door's opening, the listener.
        let scene = try Scene.load(path: SceneFixtures.path("house.yaml"))
        let way = scene.geometry.route(from: Vector3(9, 1, 4), to: Vector3(2, 1.7, 3))
        XCTAssertEqual(way.count, 3)
        XCTAssertEqual(way[1].x, 6, accuracy: 0.001, "on the kitchen door's plane")
    }
}
