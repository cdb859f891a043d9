import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// Events at a named voice's markers (`{ at: { marker: line1.hit }, play: boom }`,
/// EarshotScenes/Runtime/SceneRuntime+Markers.swift): on the marker's exact frame offline, on every pass
/// of a loop, a `delay:` later, after an offset; a sound's markers as the engine reports them;
/// `validate` knows the clips' markers. Measured on the output of a 12 kHz sine, whose samples at
/// 48 kHz run 0, +a, 0, −a from its first frame: a start one frame off breaks the pattern.
final class SceneMarkerTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// A scene with clip `boom` (0.1 s of a 12 kHz sine) and clip `line` (0.25 s of silence with
    /// cue points `hit` at 0.1 s and `tail` at 0.2 s, written by sox then marked).
    private func scene(_ body: String) throws -> Scene {
        let boom = tmp.appendingPathComponent("boom.wav").path
        try SoxTone.write(to: boom, frequency: 12_000, seconds: 0.1)   // 4,800 frames
        let line = tmp.appendingPathComponent("line.wav").path
        try SoxTone.write(to: line, frequency: 1_000, amplitude: 0, seconds: 0.25)
        try CueWAV.addCues([("hit", 4_800), ("tail", 9_600)], to: line)
        let yaml = "duration: 2\nclips:\n  boom: \(boom)\n  line: \(line)\n" + body
        return try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
    }

    private func render(_ s: Scene) throws -> (RenderedAudio, [SceneEvent]) {
        let out = tmp.appendingPathComponent("markers.wav").path
        let result = try SceneRenderer(scene: s).render(to: out, format: .f32)
        return (try RenderedAudio(path: out), result.events)
    }

    func testAClipsMarkerStartsAnEventOnItsFrameEveryPass() throws {
        let s = try scene("""
        events:
          - { at: 0.5, play: line, name: line1, loops: 1 }
          - { at: { marker: line1.hit }, play: boom }
          - { at: { marker: line1.tail }, delay: 0.5, play: boom }
        """)
        XCTAssertEqual(s.followUps.map(\.after), [SceneAfter(voice: "line1", marker: "hit"),
                                                  SceneAfter(voice: "line1", delay: 0.5, marker: "tail")])
        let (audio, events) = try render(s)
        // hit at 0.5 + 0.1 and 0.5 + 0.25 + 0.1; tail + 0.5 at 0.5 + 0.2 + 0.5 and 0.5 + 0.45 + 0.5.
        let starts = [28_800, 40_800, 57_600, 69_600]
        XCTAssertEqual(events.map { Int(($0.time * 48_000).rounded()) }, [24_000] + starts)
        let a = audio.samples[(28_800 + 1) * audio.channels]
        XCTAssertGreaterThan(a, 0.1)
        XCTAssertTrue(audio.isSilent(0..<28_800))
        for start in starts {
            XCTAssertTrue(audio.isTone(start..<start + 4_800, from: start, amplitude: a), "a boom from frame \(start)")
        }
        XCTAssertTrue(audio.isSilent(33_600..<40_800))
        XCTAssertTrue(audio.isSilent(74_400..<96_000))
    }

    func testAnOffsetPastAMarkerSkipsItOnTheFirstPassAndAPitchScalesTheTimes() throws {
        let s = try scene("""
        events:
          - { at: 0.5, play: line, name: line1, offset: 0.15, loops: 1, pitch: 2 }
          - { at: { marker: line1.hit }, play: boom }
        """)
        let (_, events) = try render(s)
        // The first pass begins 0.15 s in (past hit); the second pass's hit is (0.1 + 0.1) / 2 s on.
        XCTAssertEqual(events.map { Int(($0.time * 48_000).rounded()) }, [24_000, 28_800])
    }

    func testASoundsMarkersAreFollowedAsTheEngineReportsThem() throws {
        let s = try scene("""
        sounds:
          s: { clips: [line] }
        events:
          - { at: 0.5, play: s, name: line1 }
          - { at: { marker: line1.hit }, play: boom }
        """)
        let (audio, events) = try render(s)
        let boom = try XCTUnwrap(events.last?.time)
        let start = Int((boom * 48_000).rounded())
        // The engine reports the marker with the render that plays it: the boom comes at most one
        // 800-frame game frame after the marker's frame (28,800).
        XCTAssertTrue((28_800...29_600).contains(start), "boom at \(start)")
        XCTAssertTrue(audio.isSilent(0..<start))
        let a = audio.samples[(start + 1) * audio.channels]
        XCTAssertTrue(audio.isTone(start..<start + 4_800, from: start, amplitude: a))
    }

    func testMarkersAreValidated() throws {
        let cases: [(String, String)] = [
            ("  - { at: 0.5, play: line, name: line1 }\n  - { at: { marker: line1.hti }, play: boom }\n",
             "clip line has no marker \"hti\" (did you mean 'hit'?)"),
            ("  - { at: 0.5, play: boom, name: b }\n  - { at: { marker: b.hit }, play: boom }\n",
             "clip boom has no marker \"hit\" (it has no markers)"),
            ("  - { at: 0.5, play: line, name: line1 }\n  - { at: { marker: lnie1.hit }, play: boom }\n",
             "no play named \"lnie1\" (did you mean 'line1'?)"),
            ("  - { at: 0.5, play: line, name: line1 }\n  - { at: { marker: hit }, play: boom }\n", "expected NAME.MARKER"),
            ("  - { at: 0.5, play: line, name: line1 }\n  - { at: { markr: line1.hit }, play: boom }\n", "events[1].at.marker: required key is missing"),
            ("  - { at: 0.5, play: line, name: line1 }\n  - { at: { marker: line1.hit }, play: boom, every: 1 }\n", "not one after: a voice or on its marker"),
        ]
        for (events, expected) in cases {
            XCTAssertThrowsError(try scene("events:\n" + events), events) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(events)\n→ \(error)")
            }
        }
    }

    func testInfoAndValidateKnowTheMarkers() throws {
        let s = try scene("""
        events:
          - { at: 0.5, play: line, name: line1 }
          - { at: { marker: line1.hit }, play: boom }
        """)
        let info = try CLIRunner.run("earshot", ["info", s.file])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("line markers: hit at 0.1 s, tail at 0.2 s"), info.stdout)
        XCTAssertTrue(info.stdout.contains("1 at their markers"), info.stdout)
        let bad = try SceneFixtures.write(String(decoding: try Data(contentsOf: URL(fileURLWithPath: s.file)), as: UTF8.self)
            .replacingOccurrences(of: "line1.hit", with: "line1.hat"), in: tmp)
        let validate = try CLIRunner.run("earshot", ["validate", bad])
        XCTAssertEqual(validate.status, 1)
        XCTAssertTrue(validate.stderr.contains("clip line has no marker \"hat\""), validate.stderr)
    }
}
