import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// Events that run `after:` a named voice ends (EarshotScenes/Runtime/SceneRuntime+After.swift): on the
/// frame after a clip's last one, a `delay:` later exactly, also in chains; a sound's end is
/// followed when the engine reports it. Measured on the output of a 12 kHz sine, whose samples at
/// 48 kHz run 0, +a, 0, −a from its first frame: a start one frame off breaks the pattern.
final class SceneAfterTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func scene(_ body: String) throws -> Scene {
        let tone = tmp.appendingPathComponent("quarter.wav").path
        try SoxTone.write(to: tone, frequency: 12_000, seconds: 0.25)   // 12,000 frames
        let yaml = "duration: 2\nclips:\n  a: \(tone)\n" + body
        return try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
    }

    private func render(_ s: Scene) throws -> (RenderedAudio, [SceneEvent]) {
        let out = tmp.appendingPathComponent("after.wav").path
        let result = try SceneRenderer(scene: s).render(to: out, format: .f32)
        return (try RenderedAudio(path: out), result.events)
    }

    func testAChainOfClipsPlaysFrameAfterFrame() throws {
        let s = try scene("""
        events:
          - { at: 0.5, play: a, name: line1 }
          - { after: line1, play: a, name: line2 }
          - { after: line2, delay: 0.25, play: a }
        """)
        XCTAssertEqual(s.events.count, 1)
        XCTAssertEqual(s.followUps.map(\.after), [SceneAfter(voice: "line1"), SceneAfter(voice: "line2", delay: 0.25)])
        let (audio, events) = try render(s)
        let a = audio.samples[24_001 * audio.channels]
        XCTAssertGreaterThan(a, 0.1)
        XCTAssertTrue(audio.isSilent(0..<24_000))
        XCTAssertTrue(audio.isTone(24_000..<48_000, from: 24_000, amplitude: a), "line1, then line2 on the very next frame")
        XCTAssertTrue(audio.isSilent(48_000..<60_000), "the delay")
        XCTAssertTrue(audio.isTone(60_000..<72_000, from: 60_000, amplitude: a), "0.25 s after line2's end")
        XCTAssertTrue(audio.isSilent(72_000..<96_000))
        XCTAssertEqual(events.map(\.time), [0.5, 0.75, 1.25], "the render reports when each ran")
        XCTAssertFalse(s.warnings().contains { $0.message.contains("never") }, "a clip played only after a voice is used: \(s.warnings())")
    }

    func testASoundIsFollowedWhenItsEndIsReported() throws {
        let s = try scene("""
        sounds:
          s: { clips: [a] }
        events:
          - { at: 0.5, play: s, name: line1 }
          - { after: line1, play: a }
        """)
        let (audio, events) = try render(s)
        let a = audio.samples[24_001 * audio.channels]
        XCTAssertTrue(audio.isTone(24_000..<36_000, from: 24_000, amplitude: a))
        let reply = try XCTUnwrap(events.last?.time)
        let start = Int((reply * 48_000).rounded())
        XCTAssertTrue((36_000...36_800).contains(start), "within one 800-frame game frame of the end: \(start)")
        XCTAssertTrue(audio.isSilent(36_000..<start))
        XCTAssertTrue(audio.isTone(start..<start + 12_000, from: start, amplitude: a))
    }

    func testAfterIsValidated() throws {
        let cases: [(String, String)] = [
            ("  - { at: 0.5, play: a, name: line1 }\n  - { after: lnie1, play: a }\n", "no play named \"lnie1\" (did you mean 'line1'?)"),
            ("  - { after: x, play: a, name: y }\n  - { after: y, play: a, name: x }\n", "cycle"),
            ("  - { at: 0.5, after: x, play: a }\n", "give either at: or after:, not both"),
            ("  - { play: a }\n", "required key is missing (at: seconds or { marker: NAME.MARKER }, or after: the name of a play)"),
            ("  - { at: 0.5, delay: 1, play: a }\n", "delay: applies to after: and at: { marker: } only"),
            ("  - { at: 0.5, play: a, name: n }\n  - { at: 1, play: a, name: n }\n", "the name \"n\" is taken by events[0]"),
            ("  - { at: 0.5, play: a, name: n, every: 0.5 }\n", "a named play cannot repeat"),
            ("  - { at: 0.5, play: a, name: n }\n  - { after: n, play: a, every: 0.5 }\n", "not one after: a voice"),
        ]
        for (events, expected) in cases {
            XCTAssertThrowsError(try scene("events:\n" + events), events) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(events)\n→ \(error)")
            }
        }
    }
}
