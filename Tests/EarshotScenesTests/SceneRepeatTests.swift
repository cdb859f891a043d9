import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// `every:` with `count:` or `until:`, and `jitter:` drawn from the scene's `seed:`.
final class SceneRepeatTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func scene(_ events: String, seed: Int? = nil) throws -> Scene {
        let yaml = "duration: 3\n" + (seed.map { "seed: \($0)\n" } ?? "") + "clips:\n  beep: \(SceneFixtures.beep)\nevents:\n" + events
        return try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
    }

    private func render(_ s: Scene) throws -> [Float] {
        let out = tmp.appendingPathComponent("repeat.wav").path
        _ = try SceneRenderer(scene: s).render(to: out, format: .f32)
        return try RenderedAudio(path: out).samples
    }

    func testEveryWithCountOrUntilPlaysOnTheGrid() throws {
        for events in ["  - { at: 0.5, play: beep, every: 0.5, count: 4 }\n", "  - { at: 0.5, play: beep, every: 0.5, until: 2.2 }\n"] {
            let s = try scene(events)
            XCTAssertEqual(s.events.map(\.time), [0.5, 1.0, 1.5, 2.0], events)
            // Heard: an onset at each.
            let out = tmp.appendingPathComponent("grid.wav").path
            _ = try SceneRenderer(scene: s).render(to: out, format: .f32)
            let audio = try RenderedAudio(path: out)
            for t in [0.5, 1.0, 1.5, 2.0] {
                let onset = Double(audio.onset(after: t - 0.1, threshold: 0.01) ?? 0) / 48_000
                XCTAssertEqual(onset, t, accuracy: 0.005, "\(events): onset near \(t)")
            }
        }
    }

    func testJitterComesFromTheSeed() throws {
        let events = "  - { at: 0.2, play: beep, every: 0.25, count: 10, jitter: 0.05 }\n"
        let a = try scene(events, seed: 7), b = try scene(events, seed: 7), c = try scene(events, seed: 8)
        XCTAssertEqual(a.events.map(\.time), b.events.map(\.time))
        XCTAssertNotEqual(a.events.map(\.time), c.events.map(\.time))
        XCTAssertEqual(a.events.first?.time, 0.2, "the first stays where it is")
        for (i, t) in a.events.map(\.time).enumerated() {
            XCTAssertEqual(t, 0.2 + Double(i) * 0.25, accuracy: 0.05 + 1e-9)
        }
        XCTAssertEqual(try render(a), try render(b), "the same seed renders bit-identically")
    }

    func testTwoEventsWithTheSameRepeatGetIndependentJitter() throws {
        // Issue 24 item 7: the per-event seed was `seed + index × increment`, which is SplitMix64's
        // own step: event 1's offsets were event 0's shifted by one.
        let events = "  - { at: 0, play: beep, every: 0.1, count: 20, jitter: 0.05 }\n"
            + "  - { at: 0, play: beep, every: 0.1, count: 20, jitter: 0.05 }\n"
        let s = try scene(events, seed: 3)
        func offsets(_ line: Int) -> [Double] {
            s.events.filter { $0.line == line }.map(\.time).sorted().enumerated().map { $0.element - Double($0.offset) * 0.1 }
        }
        let lines = Array(Set(s.events.map(\.line))).sorted()
        XCTAssertEqual(lines.count, 2)
        let a = Array(offsets(lines[0]).dropFirst()), b = Array(offsets(lines[1]).dropFirst())
        XCTAssertEqual(a.count, 19)
        XCTAssertEqual(b.count, 19)
        XCTAssertNotEqual(a, b)
        // Not a shift of one another by any lag of 0…3.
        for lag in 0...3 {
            let shifted = zip(a.dropFirst(lag), b).filter { abs($0 - $1) < 1e-9 }.count
            let shiftedBack = zip(b.dropFirst(lag), a).filter { abs($0 - $1) < 1e-9 }.count
            XCTAssertLessThan(max(shifted, shiftedBack), 3, "lag \(lag): \(a) vs \(b)")
        }
    }

    func testRepeatsCountAgainstTheEventLimit() throws {
        // A million repeats plus one more event: over the limit, refused (not a million and one).
        let yaml = "duration: 2000\nclips:\n  beep: \(SceneFixtures.beep)\nevents:\n"
            + "  - { at: 0, play: beep, every: 0.001, count: 1000000 }\n  - { at: 0, play: beep }\n"
        XCTAssertThrowsError(try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))) { error in
            XCTAssertTrue("\(error)".contains("1000001 events with their repeats; a scene may have at most 1000000"), "\(error)")
        }
    }

    func testRepeatKeysAreValidated() throws {
        for (events, words) in [("  - { at: 0, play: beep, count: 3 }\n", "every: seconds, which is missing"),
                                ("  - { at: 0, play: beep, every: 1, count: 2, until: 2 }\n", "either count or until"),
                                ("  - { at: 0, play: beep, every: 1, jitter: 0.8 }\n", "half of every"),
                                ("  - { at: 0, hint: begin, every: 1 }\n", "unknown key 'every'")] {
            XCTAssertThrowsError(try scene(events)) { error in
                XCTAssertTrue("\(error)".contains(words), "\(error)")
            }
        }
    }
}
