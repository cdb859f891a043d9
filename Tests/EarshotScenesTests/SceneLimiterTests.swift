import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// A scripter learns when a scene's mix reaches the output limiter (issue 25): `validate` warns
/// when the gains can reach it, `render` says how long it worked and how deep, the plot marks
/// where — and a scene that stays under full scale hears none of it.
final class SceneLimiterTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// Three voices of a −6 dBFS tone at gain 16, from 1 s to 2 s; before and after, one quiet voice.
    private func loudScene() throws -> String {
        let tone = tmp.appendingPathComponent("tone.wav").path
        try SoxTone.write(to: tone, frequency: 1_000, amplitude: 0.5, seconds: 1)
        return try SceneFixtures.write("""
            name: loud
            duration: 3
            clips: { tone: \(tone) }
            events:
              - { at: 0, play: tone, pan: 0, gain: 0.3 }
              - { at: 1, play: tone, pan: -0.5, gain: 16 }
              - { at: 1, play: tone, pan: 0, gain: 16 }
              - { at: 1.2, play: tone, pan: 0.5, gain: 16 }
            """, name: "loud.yaml", in: tmp)
    }

    func testValidateWarnsWhenGainsCanReachTheLimiter() throws {
        let scene = try Scene.load(path: try loudScene())
        let warnings = scene.warnings().filter { $0.key == "mix" }
        XCTAssertEqual(warnings.count, 1, scene.warnings().map(\.description).joined(separator: "\n"))
        let text = warnings.first?.description ?? ""
        XCTAssertTrue(text.contains("at 1.20 s, 3 voices and tracks can reach +"), text)
        XCTAssertTrue(text.contains("output limiter"), text)
        // The CLI prints it; --strict refuses the scene for it.
        let r = try CLIRunner.run("earshot", ["validate", try loudScene(), "--strict"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("mix: at 1.20 s"), r.stderr)
        // The same tone at gain 0.3 alone stays quiet: no warning.
        let quiet = try SceneFixtures.write("""
            duration: 2
            clips: { tone: \(tmp.appendingPathComponent("tone.wav").path) }
            events: [ { at: 0, play: tone, gain: 0.3 }, { at: 0.5, play: tone, gain: 0.3 } ]
            """, name: "quiet.yaml", in: tmp)
        XCTAssertEqual(try Scene.load(path: quiet).warnings(), [])
    }

    func testRenderReportsAndPlotsWhereTheLimiterWorked() throws {
        let path = try loudScene()
        let out = tmp.appendingPathComponent("loud.wav").path, svg = tmp.appendingPathComponent("loud.svg").path
        let r = try CLIRunner.run("earshot", ["render", path, "-o", out, "--plot", svg, "--format", "f32"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = r.stderr.split(separator: "\n").first { $0.contains("output limiter worked") }.map(String.init) ?? ""
        XCTAssertTrue(line.hasPrefix("earshot: the output limiter worked for 1."), r.stderr)   // 1 s and its release
        XCTAssertTrue(line.contains("dB of gain reduction"), line)
        // What it wrote: never over the ceiling, and no limiting before the loud voices came in.
        let audio = try RenderedAudio(path: out)
        XCTAssertLessThanOrEqual(audio.samples.map(abs).max() ?? 2, OutputLimiter.ceiling)
        XCTAssertLessThan(audio.samples[0..<(2 * 47_000)].map(abs).max() ?? 1, 0.2)
        // The plot marks the limited stretch: from 1 s, as one band of the levels panel.
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(text.contains("<g class=\"limiter\""), "limiter marks drawn")
        XCTAssertTrue(text.contains("<title>limiter: 1"), "the band starts at 1 s")
        // In Swift: the result carries the same.
        let result = try SceneRenderer(scene: Scene.load(path: path)).render(to: tmp.appendingPathComponent("again.wav").path)
        XCTAssertGreaterThan(result.limitedSeconds, 1.0)
        XCTAssertLessThan(result.limitedSeconds, 1.8)
        XCTAssertLessThan(result.deepestLimiterReduction, -15)
        XCTAssertGreaterThan(result.timeline.limitedFrames[result.timeline.column(1.5)], 0)
        XCTAssertEqual(result.timeline.limitedFrames[result.timeline.column(0.5)], 0)
    }

    func testQuietSceneSaysNothingAndDrawsNoMarks() throws {
        let out = tmp.appendingPathComponent("corridor.wav").path, svg = tmp.appendingPathComponent("corridor.svg").path
        let r = try CLIRunner.run("earshot", ["render", SceneFixtures.path("corridor.yaml"), "-o", out, "--plot", svg])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("limiter"), r.stderr)
        XCTAssertFalse(try String(contentsOfFile: svg, encoding: .utf8).contains("class=\"limiter\""))
    }
}
