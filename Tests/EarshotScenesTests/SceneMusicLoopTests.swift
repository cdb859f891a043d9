import Earshot
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 36 item 4: `loop: { start, end }` on music tracks and set segments — an intro plays
/// once, then a region inside the file loops, seams on the frame. The file: 0.5 s of 300 Hz
/// (the intro), 0.5 s of 1 kHz (the loop: 500 whole periods), 0.2 s of 2 kHz (an outro the loop
/// never reaches). Rendered through scenes; the seams' sample steps measured against the 1 kHz
/// signal's own.
final class SceneMusicLoopTests: XCTestCase {
    private var tmp: URL!
    private var song: String!

    override func setUpWithError() throws {
        tmp = try SceneFixtures.temporaryFolder()
        song = tmp.appendingPathComponent("song.wav").path
        let samples = (0..<57_600).map { i -> Float in
            let (f, from) = i < 24_000 ? (300.0, 0) : i < 48_000 ? (1_000.0, 24_000) : (2_000.0, 48_000)
            return Float(0.5 * sin(2 * Double.pi * f * Double(i - from) / 48_000))
        }
        let writer = try AudioFileWriter(path: song, sampleRate: 48_000, channels: 1, format: .f32)
        try writer.write(samples)
        try writer.close()
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func render(_ yaml: String, seconds: Double = 3) throws -> RenderedAudio {
        let scene = try Scene.load(path: try SceneFixtures.write("duration: \(seconds)\n" + yaml, in: tmp))
        let out = tmp.appendingPathComponent("out.wav").path
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        return try RenderedAudio(path: out)
    }

    /// Largest |x[i] − x[i−1]| of channel 0 over `from..<to` seconds.
    private func maxStep(_ a: RenderedAudio, _ from: Double, _ to: Double) -> Double {
        var m = 0.0
        for i in max(1, a.frame(from))..<a.frame(to) {
            m = max(m, abs(Double(a.samples[i * a.channels]) - Double(a.samples[(i - 1) * a.channels])))
        }
        return m
    }

    /// The intro once, then the loop: no 300 Hz or 2 kHz after 0.5 s, 1 kHz throughout, and no
    /// seam steps larger than the 1 kHz sine's own.
    private func checkIntroThenLoop(_ a: RenderedAudio, _ what: String) {
        let intro = a.power(at: [300], 0.1, 0.4), loop = a.power(at: [1_000], 0.6, 0.9)
        XCTAssertGreaterThan(intro, 1e-3, "\(what): the intro plays")
        for t in stride(from: 0.55, to: 2.9, by: 0.25) {
            XCTAssertLessThan(a.power(at: [300], t, t + 0.1), intro * 1e-4, "\(what): the intro once only (at \(t) s)")
            XCTAssertLessThan(a.power(at: [2_000], t, t + 0.1), loop * 1e-4, "\(what): the loop never reaches the outro (at \(t) s)")
            XCTAssertEqual(a.power(at: [1_000], t, t + 0.1), loop, accuracy: loop * 0.02, "\(what): the loop plays on (at \(t) s)")
        }
        let own = maxStep(a, 0.6, 0.9)
        let seams = maxStep(a, 0.55, 2.9)   // the seams at 1.0, 1.5, 2.0, 2.5 s
        print("SceneMusicLoopTests (\(what)): largest step \(seams) across the seams, \(own) within the loop")
        XCTAssertLessThanOrEqual(seams, own * 1.001, "\(what): frame-exact seams")
    }

    func testATracksLoopRegionInSecondsAndCues() throws {
        checkIntroThenLoop(try render("""
            music:
              song: { file: \(song!), loop: { start: 0.5, end: 1.0 } }
            events:
              - { at: 0, music: song, action: play }
            """), "track, seconds")
        checkIntroThenLoop(try render("""
            music:
              song: { file: \(song!), cues: { body: 0.5, outro: 1.0 }, loop: { start: body, end: outro } }
            events:
              - { at: 0, music: song, action: play }
            """), "track, cues")
    }

    func testASetSegmentsLoopRegionAndEntries() throws {
        checkIntroThenLoop(try render("""
            music:
              level:
                states:
                  a: { file: \(song!), cues: { body: 0.5, outro: 1.0 }, loop: { start: body, end: outro } }
            events:
              - { at: 0, music: level, state: a }
            """), "set segment")
        // A later segment's entry is where it starts; a looping segment with an entry and no
        // loop: loops from the entry (the 300 Hz before it is never heard).
        let intro = tmp.appendingPathComponent("intro.wav").path
        try SoxTone.write(to: intro, frequency: 3_000, amplitude: 0.3, seconds: 0.3)
        let a = try render("""
            music:
              level:
                states:
                  a: { segments: [ { file: \(intro) }, { file: \(song!), cues: { body: 0.5 }, entry: body } ] }
            events:
              - { at: 0, music: level, state: a }
            """)
        XCTAssertGreaterThan(a.power(at: [3_000], 0.05, 0.25), 1e-3, "the first segment")
        for t in stride(from: 0.35, to: 2.9, by: 0.25) {
            XCTAssertLessThan(a.power(at: [300], t, t + 0.1), 1e-7, "the second segment starts at its entry, and loops back to it (at \(t) s)")
        }
        XCTAssertGreaterThan(a.power(at: [1_000], 0.35, 0.65), 1e-3)
        // An entry on the file's end (found by the scene fuzzer): it loops the whole file, as before.
        let end = try render("""
            music:
              level:
                states:
                  a: { file: \(song!), cues: { last: 1.2 }, entry: last }
            events:
              - { at: 0, music: level, state: a }
            """, seconds: 0.5)
        XCTAssertGreaterThan(end.power(at: [300], 0.1, 0.4), 1e-3, "from the end straight into the loop from 0")
    }

    func testLoopProblemsAreNamedWhereTheyAre() throws {
        func problems(_ yaml: String) throws -> String {
            let path = try SceneFixtures.write("duration: 1\n" + yaml, in: tmp)
            guard case .failure(let p) = Scene.check(path: path) else { XCTFail("accepted: \(yaml)"); return "" }
            return p.description
        }
        XCTAssertTrue(try problems("music:\n  s: { file: \(song!), loop: { start: 0.9, end: 0.4 } }\n").contains("music.s.loop.end"))
        XCTAssertTrue(try problems("music:\n  s: { file: \(song!), loop: { start: 2.5 } }\n").contains("music.s.loop.start"))
        XCTAssertTrue(try problems("music:\n  s: { file: \(song!), loop: { start: 0.5, end: 0.500001 } }\n").contains("by a frame at least"))
        XCTAssertTrue(try problems("music:\n  s: { file: \(song!), loop: { start: drop } }\n").contains("no cue \"drop\""))
        XCTAssertTrue(try problems("music:\n  s: { file: \(song!), loops: 0, loop: { start: 0.5 } }\n").contains("music.s.loops"))
        let stinger = try problems("""
            music:
              m:
                states: { a: { file: \(song!) } }
                stingers: { hit: { file: \(song!), loop: { start: 0.5 } } }
            """)
        XCTAssertTrue(stinger.contains("only a looping segment"), stinger)
    }
}
