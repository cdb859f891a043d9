import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotTestSupport
import XCTest

/// Follow-ups in time linear in their number (issue 35.15): a clip with a cue on every frame,
/// looping, passed `validate` in 0.17 s and then rendered for hours (every follower scanned every
/// marker of every pass, and each was inserted after a linear scan); 40,000 `after:` on one play
/// took 25 s. Now markers are found by name, passes stop at the scene's end, placed follow-ups
/// go into a heap, and `validate` refuses a scene that would schedule more than
/// `SceneLimits.maxScheduledFollowUps`. The sizes here are ones where the old code took minutes
/// in a debug build; the bounds are far above what the linear code takes (well under a second
/// each), so a regression fails them and a busy machine does not.
final class SceneFollowUpScaleTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// A 4,096-frame clip (sox) with a cue on every frame, named by `name(frame)`; and `boom`.
    private func clips(_ name: (Int) -> String) throws -> (dense: String, boom: String) {
        let dense = tmp.appendingPathComponent("dense.wav").path
        try SoxTone.write(to: dense, frequency: 1_000, seconds: 4_096.0 / 48_000)
        try CueWAV.addCues((0..<4_096).map { (name($0), $0) }, to: dense)
        let boom = tmp.appendingPathComponent("boom.wav").path
        try SoxTone.write(to: boom, frequency: 12_000, seconds: 0.01)
        return (dense, boom)
    }

    private func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = Date()
        let value = try body()
        return (value, Date().timeIntervalSince(start))
    }

    /// The scene: a cue on every frame and `loops: 1000` is refused by validate, naming
    /// the limit; with `loops: 200` (822,896 runs at most) it validates, and render places only
    /// the passes before the scene's end.
    func testACueOnEveryFrameLoopingIsRefusedOrRenderedInBoundedWork() throws {
        let (dense, boom) = try clips { _ in "tick" }
        func yaml(loops: Int) -> String {
            "duration: 0.05\nclips:\n  dense: \(dense)\n  boom: \(boom)\nevents:\n"
                + "  - { at: 0, play: dense, name: v, loops: \(loops) }\n  - { at: { marker: v.tick }, play: boom, gain: 0.01 }\n"
        }
        let refused = Scene.check(yaml: yaml(loops: 1_000), path: tmp.appendingPathComponent("a.yaml").path)
        guard case .failure(let problems) = refused else { return XCTFail("validated") }
        XCTAssertTrue(problems.problems.contains { "\($0)".contains("maxScheduledFollowUps") }, "\(problems.problems)")
        XCTAssertEqual(SceneLimits.maxScheduledFollowUps, 1_000_000)

        let scene = try Scene.load(path: try SceneFixtures.write(yaml(loops: 200), in: tmp))
        let (result, seconds) = try timed { try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("o.wav").path, format: .f32) }
        // Every frame before 0.05 s (2,400 frames) is a cue: 2,400 followers, and the play.
        XCTAssertEqual(result.events.count, 1 + 2_400)
        XCTAssertLessThan(seconds, 60, "bounded work: 2,401 placements, not 4,096 × 201")
    }

    /// 4,096 differently named cues and a follower on each, `loops: 80`: before, every follower
    /// scanned every marker of every pass (4,096 × 4,096 × 81 = 1.4 billion steps, 65 s in release).
    func testManyFollowersOfManyMarkersAreFoundByName() throws {
        let (dense, boom) = try clips { "m\($0)" }
        var yaml = "duration: 0.02\nclips:\n  dense: \(dense)\n  boom: \(boom)\nevents:\n  - { at: 0, play: dense, name: v, loops: 80 }\n"
        for i in 0..<4_096 { yaml += "  - { at: { marker: v.m\(i) }, play: boom, gain: 0.01 }\n" }
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
        let (result, seconds) = try timed { try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("o.wav").path, format: .f32) }
        XCTAssertEqual(result.events.count, 1 + 960)   // frames 0…959 (before 0.02 s) pass their cue once
        XCTAssertLessThan(seconds, 60)
    }

    /// 40,000 `after:` on one play: validate and render in linear time (25 s before, in release);
    /// a chain of 20,000 written last-first validates without one pass per link.
    func testFortyThousandAfterOnOnePlay() throws {
        let (_, boom) = try clips { _ in "tick" }
        var yaml = "duration: 0.5\nclips:\n  boom: \(boom)\nevents:\n  - { at: 0, play: boom, name: a }\n"
        for _ in 0..<40_000 { yaml += "  - { after: a, play: boom, gain: 0.001 }\n" }
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
        XCTAssertEqual(scene.followUps.count, 40_000)
        let (result, seconds) = try timed { try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("o.wav").path, format: .f32) }
        XCTAssertEqual(result.events.count, 40_001)
        XCTAssertLessThan(seconds, 60)

        var chain = "duration: 0.5\nclips:\n  boom: \(boom)\nevents:\n"
        for i in stride(from: 20_000, to: 0, by: -1) { chain += "  - { after: c\(i - 1), play: boom, name: c\(i) }\n" }
        chain += "  - { at: 0, play: boom, name: c0 }\n"
        let (checked, checkSeconds) = timed { Scene.check(yaml: chain, path: tmp.appendingPathComponent("c.yaml").path) }
        guard case .success(let s) = checked else { return XCTFail("\(checked)") }
        XCTAssertEqual(s.followUps.count, 20_000)
        XCTAssertLessThan(checkSeconds, 60)
    }

    /// The queue runs follow-ups by time, then in the order they were placed; removal keeps the order.
    func testFollowUpQueueOrder() {
        var q = FollowUpQueue()
        for (i, t) in [3.0, 1.0, 2.0, 1.0, 3.0, 0.5].enumerated() { q.place(i, at: t) }
        q.removeAll { $0.index == 2 }
        var order: [Int] = []
        while let e = q.popFirst() { order.append(e.index) }
        XCTAssertEqual(order, [5, 1, 3, 0, 4])
    }
}
