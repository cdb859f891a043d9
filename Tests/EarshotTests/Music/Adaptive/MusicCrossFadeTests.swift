@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Issue 36 item 3 and issue 35 item 10: a rule fades the new state in as well as the old one out
/// (`fade` both sides by default, `fadeIn` apart), and a fade asked for in the frame of a change
/// (or of any scheduled start) begins with the first sample instead of being lost. Measured on
/// the loopback output: two states of equal level (500 Hz, 700 Hz), 50 ms windows.
final class MusicCrossFadeTests: XCTestCase {
    static let window = 2_400   // 50 ms

    private var fixtures: MusicFixtures!
    private var a: String!
    private var b: String!

    override func setUpWithError() throws {
        fixtures = try MusicFixtures()
        a = try fixtures.sineWAV("a.wav", frequency: 500, amplitude: 0.4, seconds: 6)
        b = try fixtures.sineWAV("b.wav", frequency: 700, amplitude: 0.4, seconds: 6)
    }

    override func tearDown() { fixtures = nil }

    /// dB of each 50 ms window of the left channel after a change to `b` asked for at 0.5 s.
    private func windows(_ rule: MusicTransition, layered: Bool = false, sameFrame: ((MusicSet) throws -> Void)? = nil) throws -> [Double] {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let bContent: MusicState.Content = layered ? .layers([.init(name: "x", segment: .init(path: b))]) : .track(.init(path: b))
        let set = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
            .init(name: "a", content: .track(.init(path: a))), .init(name: "b", content: bContent)], transitions: [rule]))
        try set.play(state: "a")
        var out = MusicRender.left(try MusicRender.render(engine, seconds: 0.5))
        _ = try set.setState("b")
        try sameFrame?(set)
        out += MusicRender.left(try MusicRender.render(engine, seconds: 2.5))
        return stride(from: 0, to: out.count - Self.window, by: Self.window).map { i in
            Level.dB(power: Level.meanSquare(out[i..<(i + Self.window)]))
        }
    }

    /// `fadeIn` follows `fade` until it is set — also when the rule is built field by field.
    func testFadeInFollowsTheFadeUntilSet() {
        var rule = MusicTransition()
        rule.fade = 1.5
        XCTAssertEqual(rule.fadeIn, 1.5)
        XCTAssertEqual(rule, MusicTransition(fade: 1.5, fadeIn: 1.5))
        rule.fadeIn = 0
        rule.fade = 2
        XCTAssertEqual(rule.fadeIn, 0)
        XCTAssertNotEqual(rule, MusicTransition(fade: 2))
    }

    func testATwoSidedEqualPowerCrossFadeHasNoBump() throws {
        let w = try windows(MusicTransition(to: "b", at: .immediate, fade: 1.5))
        let before = w[8]   // 0.40–0.45 s
        let after = w[10...].max() ?? 0
        print("MusicCrossFadeTests: equal power: \(before) dB before, \(w[10...].min() ?? 0)…\(after) dB in the fade, \(w[w.count - 1]) dB after")
        XCTAssertLessThanOrEqual(after, before + 1, "no 50 ms window more than 1 dB above the level before")
        XCTAssertGreaterThan(w[10...].min() ?? -200, before - 1, "and no dip either (equal power)")
        XCTAssertEqual(w[w.count - 1], before, accuracy: 0.5, "b at full level after the fade")
    }

    func testALinearCrossFadeDipsAndAOneSidedFadeBumpsAsBefore() throws {
        let linear = try windows(MusicTransition(to: "b", at: .immediate, fade: 1.5, curve: .linear))
        // Linear both ways: −6 dB each at the middle, −3 dB summed in power.
        XCTAssertEqual(linear[10...].min() ?? 0, linear[8] - 3, accuracy: 0.7)
        XCTAssertLessThanOrEqual(linear[10...].max() ?? 0, linear[8] + 1)
        // The old behaviour, now asked for explicitly: b at full level at once, a fading out.
        let oneSided = try windows(MusicTransition(to: "b", at: .immediate, fade: 1.5, fadeIn: 0))
        print("MusicCrossFadeTests: linear: \(linear[10...].min() ?? 0) dB at most below \(linear[8]); one-sided: \(oneSided[11]) dB after \(oneSided[8])")
        XCTAssertGreaterThan(oneSided[11], oneSided[8] + 2, "a one-sided fade has the bump the two-sided one avoids")
    }

    func testAFadeAskedForInTheFrameOfAChangeIsKept() throws {
        // No fade in the rule; the stem of the new state is faded from full to half over 1 s in
        // the same frame as the change: it starts at full and reaches half 1 s after its start.
        let w = try windows(MusicTransition(to: "b", at: .immediate), layered: true) { set in
            try set.setLayerGain(0.5, layer: "x", fade: 1)
        }
        print("MusicCrossFadeTests: stem at \(w[11]) dB after its start, \(w[w.count - 1]) dB at the end")
        XCTAssertGreaterThan(w[11], w[w.count - 1] + 4, "the fade starts with the stem's first sample")
        XCTAssertEqual(w[w.count - 1], w[8] - 6.02, accuracy: 0.5, "and ends at half")
    }

    func testAFadeAskedForBeforeAScheduledStartRunsFromThatStart() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: a)
        track.volume = 0
        try track.play(at: engine.audioTime + 0.5)
        track.fade(to: 1, duration: 1)
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 2))
        func rms(_ from: Double) -> Double {
            let i = Int(from * 48_000)
            return Level.rms(stream: out[i..<(i + Self.window)])
        }
        print("MusicCrossFadeTests: scheduled start: rms \(rms(0.5)) at 0.5 s, \(rms(0.975)) at 1 s, \(rms(1.7)) at 1.7 s")
        XCTAssertLessThan(rms(0.5), 0.05 * rms(1.7), "silent at its start: the fade had not run before it")
        XCTAssertEqual(rms(0.975), 0.5 * rms(1.7), accuracy: 0.05 * rms(1.7), "halfway 0.5 s in")
    }
}
