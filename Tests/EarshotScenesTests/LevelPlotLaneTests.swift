import EarshotScenes
import EarshotTestSupport
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// The plot's legend, labels, lanes and clock (issue 35, item 7), read back from the SVG that
/// `earshot render --plot` writes.
final class LevelPlotLaneTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    struct Element {
        var name: String
        var attributes: [String: String]
        var text = ""
        func number(_ key: String) -> Double { Double(attributes[key] ?? "") ?? .nan }
    }

    /// Every element with its attributes and text.
    private final class Collector: NSObject, XMLParserDelegate {
        var elements: [Element] = []
        var open: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            elements.append(Element(name: name, attributes: attributes))
            open.append(elements.count - 1)
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) { open.removeLast() }
        func parser(_ parser: XMLParser, foundCharacters string: String) { if let i = open.last { elements[i].text += string } }
    }

    private func elements(_ path: String) throws -> [Element] {
        let parser = XMLParser(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        let c = Collector()
        parser.delegate = c
        XCTAssertTrue(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        return c.elements
    }

    /// Seven buses of its own (eleven with the built-in ones), ten parameters, a snapshot, a
    /// stinger, a hint and 1,500 one-shots in 6 s.
    private func scene() throws -> String {
        let assets = CLIRunner.packageRoot.appendingPathComponent("Assets").path
        var yaml = "duration: 6\nparameters:\n"
        for i in 0..<10 { yaml += "  p\(i): { range: [0, 100], default: 10 }\n" }
        yaml += "clips:\n  beep: \(SceneFixtures.beep)\nbuses:\n"
        for b in ["ambience", "vehicles", "footsteps", "weapons", "dialogue", "crowd", "effects"] { yaml += "  \(b): { gain: -3 }\n" }
        yaml += """
            sounds:
              s: { clips: [beep], bus: ambience }
            snapshots:
              pause: { buses: { sfx: { gain: -12 } } }
            music:
              level:
                bpm: 120
                states: { a: { file: \(assets)/Music/theme.ogg } }
                stingers: { hit: { file: \(assets)/Sounds/coin.wav } }
            listener: { position: [0, 0, 0] }
            emitters:
              car: { clip: beep, loop: true, gain: 0.1, path: { waypoints: [[0, -10, 0, -5], [6, 10, 0, -5]] } }
            events:
              - { at: 0, music: level, state: a }
              - { at: 0.5, hint: begin }
              - { at: 1, snapshot: pause, action: begin, fade: 0.2 }
              - { at: 2.5, music: level, stinger: hit }
              - { at: 3, snapshot: pause, action: end }
              - { at: 1, set: { parameter: p0, value: 90, ramp: 2 } }

            """
        for i in 0..<1_500 { yaml += "  - { at: \(String(format: "%.3f", Double(i) * 0.004)), play: s, gain: 0.02 }\n" }
        return try SceneFixtures.write(yaml, name: "lanes.yaml", in: tmp)
    }

    func testEveryBusSnapshotStingerAndParameterIsShownAndEventsKeepOffTheLevels() throws {
        let svg = tmp.appendingPathComponent("whole.svg").path
        let r = try CLIRunner.run("earshot", ["render", try scene(), "-o", tmp.appendingPathComponent("whole.wav").path, "--plot", svg])
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = try elements(svg)
        let width = try XCTUnwrap(all.first { $0.name == "svg" }).number("width")
        // Every bus in the legend, each starting inside the plot with room for its name.
        let legend = all.filter { $0.attributes["class"] == "legend" }.map(\.text)
        let buses = ["sfx", "music", "ui", "voice", "ambience", "vehicles", "footsteps", "weapons", "dialogue", "crowd", "effects"]
        for b in buses { XCTAssertTrue(legend.contains("■ \(b)"), "\(b) in the legend: \(legend)") }
        for e in all where e.attributes["class"] == "legend" {
            XCTAssertLessThanOrEqual(e.number("x") + 7 * Double(e.text.count), width, "\(e.text) is cut at the edge")
        }
        // Snapshots and stingers labelled.
        let texts = all.filter { $0.name == "text" }.map(\.text)
        for label in ["snapshot pause begin", "snapshot pause end", "music level stinger hit"] {
            XCTAssertTrue(texts.contains(label), "\(label) labelled: \(texts.filter { $0.contains("snapshot") || $0.contains("stinger") })")
        }
        // Parameter lanes: the documented eight, and the two more said.
        let lanes = texts.filter { $0.hasPrefix("parameter p") }
        XCTAssertEqual(lanes.count, LevelPlot.maxParameterLanes)
        XCTAssertTrue(texts.contains("+2 more parameters not drawn (at most 8 lanes)"), "\(texts.filter { $0.hasPrefix("+") })")
        // 1,500 one-shots: marked in the event lane, none across the levels (y 40…360); the hint
        // still crosses them.
        let levelsTop = 40.0, levelsBottom = 360.0
        // (Vertical lines over the levels but the grid's and the music state change's.)
        let crossing = all.filter { e in
            guard e.name == "line", let stroke = e.attributes["stroke"], !["#ddd", "#7570b3"].contains(stroke) else { return false }
            return min(e.number("y1"), e.number("y2")) < levelsBottom && max(e.number("y1"), e.number("y2")) > levelsTop
                && e.number("x1") == e.number("x2")
        }
        XCTAssertEqual(crossing.map { $0.attributes["class"] ?? "" }, ["session-event"], "only the hint crosses the levels")
        let marks = all.filter { $0.attributes["class"] == "event-mark" }
        XCTAssertGreaterThan(marks.count, 100)
        XCTAssertLessThanOrEqual(marks.count, 4 * 940, "at most one mark per column and kind")
        print("LevelPlotLaneTests: \(marks.count) event marks for 1,506 events; \(legend.count) legend entries; \(lanes.count) parameter lanes")
    }

    /// `--from 2 --to 5`: the axis reads 2…5 s, events sit at their scene times, the parameter
    /// lanes show the values the scene has then, and the map is drawn.
    func testASectionKeepsTheScenesClockTheParameterLanesAndTheMap() throws {
        let svg = tmp.appendingPathComponent("section.svg").path
        let r = try CLIRunner.run("earshot", ["render", try scene(), "-o", tmp.appendingPathComponent("section.wav").path,
                                              "--plot", svg, "--from", "2", "--to", "5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let all = try elements(svg)
        let axis = all.filter { $0.attributes["class"] == "time-label" && $0.number("y") < 420 }.map(\.text)
        XCTAssertEqual(axis, ["2", "3", "4", "5"])
        // The snapshot's end at scene time 3: a third of the way across (x = 60 + 920 / 3).
        let end = try XCTUnwrap(all.first { $0.name == "text" && $0.text == "snapshot pause end" })
        XCTAssertEqual(end.number("x") - 3, 60 + 920.0 / 3, accuracy: 1)
        XCTAssertEqual(all.filter { $0.name == "text" && $0.text.hasPrefix("parameter p") }.count, LevelPlot.maxParameterLanes)
        XCTAssertEqual(all.filter { $0.attributes["class"] == "map" }.count, 1)
        XCTAssertTrue(all.contains { $0.name == "text" && $0.text.contains("2–5 s") }, "the map says which stretch it shows")
        // p0 ramps 10 → 90 from 1 s to 3 s: at the section's start (2 s) it is 50, not the default.
        let p0 = try XCTUnwrap(all.first { $0.attributes["data-series"] == "global" && $0.attributes["class"] == "lane-series" })
        let first = try XCTUnwrap(p0.attributes["points"]?.split(separator: " ").first?.split(separator: ",").last.flatMap { Double($0) })
        let laneTitle = try XCTUnwrap(all.first { $0.name == "text" && $0.text == "parameter p0" })
        // The lane's plot spans 90 px under its title's row (y − 18 + 30 … + 120): 50 of 0…100 is its middle.
        XCTAssertEqual(first, laneTitle.number("y") - 18 + 30 + 45, accuracy: 2)
    }
}
