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
        var texts: [String] = []
        var polylinePoints: [Int] = []
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            counts[name, default: 0] += 1
            if name == "polyline" || name == "path" {
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
        XCTAssertEqual((c.counts["polyline"] ?? 0) + (c.counts["path"] ?? 0), 2, "one trace per channel")
        XCTAssertEqual(c.polylinePoints, [275, 275], "5.5 s in 20 ms windows")
        let text = c.texts.joined()
        XCTAssertTrue(text.contains("hint begin"))
        XCTAssertTrue(text.contains("hint end"))
    }

    func testTitlesAndIdsAreEscapedAndMonoHasOneTrace() throws {
        var trace = LevelTrace(sampleRate: 1000, channels: 1)
        let block = [Float](repeating: 0.5, count: 100)
        block.withUnsafeBufferPointer { trace.add($0) }
        trace.finish()
        XCTAssertEqual(trace.rms[0].count, 5)
        XCTAssertEqual(trace.dBFS(channel: 0)[0], -6.02, accuracy: 0.01)
        let events = [SceneEvent(time: 0.05, action: .play(clip: "a<&>\"'b", position: nil, pan: 0, gain: 1, pitch: 1, priority: 0)),
                      SceneEvent(time: 0.02, action: .interruption(began: true, shouldResume: false))]
        let svg = LevelPlot.svg(levels: trace, events: events, title: "Tom & Jerry <\u{1}>")
        let c = try parse(Data(svg.utf8))
        XCTAssertEqual(c.counts["polyline"], 1)
        XCTAssertTrue(c.texts.joined().contains("Tom & Jerry"))
        XCTAssertTrue(c.texts.joined().contains("a<&>\"'b"))
        XCTAssertTrue(c.texts.joined().contains("interruption began"))
    }
}
