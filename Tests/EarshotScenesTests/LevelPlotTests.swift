import Earshot
import EarshotScenes
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import EarshotTestSupport
import XCTest

/// The `--plot` SVG: well-formed XML, one trace per channel, events marked.
final class LevelPlotTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// Counts elements and collects texts while parsing.
    private final class Collector: NSObject, XMLParserDelegate {
        var counts: [String: Int] = [:]
        var classes: [String: Int] = [:]
        var texts: [String] = []
        var polylinePoints: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            counts[name, default: 0] += 1
            if let c = attributes["class"] { classes[c, default: 0] += 1 }
            if attributes["class"] == "channel" {
                polylinePoints.append(attributes["points"]?.split(separator: " ").count ?? 0)
            }
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { texts.append(string) }
    }

    private func parse(_ data: Data) throws -> Collector {
        let parser = XMLParser(data: data)
        let collector = Collector()
        parser.delegate = collector
        XCTAssertTrue(parser.parse(), "not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        return collector
    }

    func testRenderPlotIsWellFormedSVGWithOneTracePerChannelAndTheEventsMarked() throws {
        let wav = tmp.appendingPathComponent("d.wav").path, svg = tmp.appendingPathComponent("d.svg").path
        let r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/ducking.yaml", "-o", wav, "--plot", svg, "--duration", "5.5"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("wrote \(wav)"), r.stderr)
        XCTAssertFalse(r.stderr.contains("\r"), "no progress bar when stderr is not a terminal")
        let c = try parse(try Data(contentsOf: URL(fileURLWithPath: svg)))
        XCTAssertEqual(c.counts["svg"], 1)
        XCTAssertEqual(c.classes["channel"], 2, "one trace per channel")
        XCTAssertEqual(c.polylinePoints, [275, 275], "5.5 s in 20 ms windows")
        let text = c.texts.joined()
        XCTAssertTrue(text.contains("hint begin"))
        XCTAssertTrue(text.contains("hint end"))
        // The lanes (loudness momentary and short-term, voices real and virtual, five buses) and
        // the map (listener and emitter paths).
        XCTAssertEqual(c.classes["lane"], 3)
        XCTAssertEqual(c.classes["lane-series"], 9)
        XCTAssertEqual(c.classes["map"], 1)
        XCTAssertGreaterThan(c.classes["map-path"] ?? 0, 0)
        XCTAssertEqual(c.classes["facing"], 11)
    }

    func testTitlesAndIdsAreEscapedAndMonoHasOneTrace() throws {
        var trace = LevelTrace(sampleRate: 1000, channels: 1)
        let block = [Float](repeating: 0.5, count: 100)
        block.withUnsafeBufferPointer { trace.add($0) }
        trace.finish()
        XCTAssertEqual(trace.rms[0].count, 5)
        XCTAssertEqual(trace.dBFS(channel: 0)[0], -6.02, accuracy: 0.01)
        let events = [SceneEvent(time: 0.05, action: .play(ScenePlay(id: "a<&>\"'b"))),
                      SceneEvent(time: 0.02, action: .interruption(began: true, shouldResume: false))]
        let svg = LevelPlot.svg(levels: trace, events: events, title: "Tom & Jerry <\u{1}>")
        let c = try parse(Data(svg.utf8))
        XCTAssertEqual(c.classes["channel"], 1)
        XCTAssertTrue(c.texts.joined().contains("Tom & Jerry"))
        XCTAssertTrue(c.texts.joined().contains("a<&>\"'b"))
        XCTAssertTrue(c.texts.joined().contains("interruption began"))
    }

    /// A one-hour scene's plot: levels of 180,000 windows per channel, 100,000 one-shots, the
    /// lanes and the map — under 2 MB and well-formed.
    func testAnHourLongPlotStaysUnderTwoMegabytes() throws {
        var trace = LevelTrace(sampleRate: 1_000, channels: 2)
        var block = [Float](repeating: 0, count: 2_000)
        for second in 0..<3_600 {
            for i in 0..<1_000 {
                let phase = Double(second * 1_000 + i) * 0.05
                let loudness = Float(1 + second % 7) / 8
                let v = Float(0.3 * sin(phase)) * loudness
                block[2 * i] = v
                block[2 * i + 1] = -v
            }
            block.withUnsafeBufferPointer { trace.add($0) }
        }
        trace.finish()
        XCTAssertEqual(trace.rms[0].count, 180_000)
        var timeline = SceneTimeline(duration: 3_600)
        for frame in 0..<(3_600 * 60) {
            timeline.record(time: Double(frame) / 60, realVoices: frame % 40, virtualVoices: frame % 300,
                            busGains: [("sfx", 1), ("music", frame % 600 < 300 ? 1 : 0.25)])
        }
        var events: [SceneEvent] = []
        for i in 0..<100_000 {
            events.append(SceneEvent(time: Double(i) * 0.036, action: .play(ScenePlay(id: "step"))))
        }
        for i in 0..<200 { events.append(SceneEvent(time: Double(i) * 18, action: .hint(begins: i % 2 == 0))) }
        let yaml = """
            duration: 3600
            clips:
              beep: \(SceneFixtures.beep)
            listener: { path: { circle: { radius: 3, period: 600 } } }
            emitters:
              car: { clip: beep, loop: true, path: { waypoints: [[0, -50, 0, -5], [3600, 50, 0, -5]] } }
            """
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
        let svg = LevelPlot.svg(levels: trace, events: events, title: "an hour", timeline: timeline, scene: scene)
        XCTAssertLessThan(svg.utf8.count, 2_000_000, "\(svg.utf8.count) bytes")
        let c = try parse(Data(svg.utf8))
        XCTAssertEqual(c.counts["polygon"], 2, "a min/max band per channel")
        XCTAssertLessThanOrEqual(c.counts["text"] ?? 0, 200, "labels are capped")
    }
}
