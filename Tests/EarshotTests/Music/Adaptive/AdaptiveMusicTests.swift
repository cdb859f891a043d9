@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Music sets measured on the loopback output (issue 29): a change lands on the frame of the
/// playing segment's bar or beat, the old state falls by the fade's curve, a stinger starts on the
/// next beat, a second request replaces a pending one, and a bridge plays between. Each state is a
/// sox tone of its own frequency, so the output tells them apart.
final class AdaptiveMusicTests: XCTestCase {
    static let rate = 48_000
    let tempo = Tempo(bpm: 120, beatsPerBar: 4)

    /// explore 500 Hz, combat 1 kHz, victory 1.5 kHz (8 s each: four bars at 120 bpm), a 2 kHz
    /// stinger of 0.3 s and a 0.5 s bridge at 3 kHz.
    struct Files {
        let fixtures: MusicFixtures
        let explore, combat, victory, stinger, bridge: String
        init() throws {
            fixtures = try MusicFixtures()
            explore = try fixtures.sineWAV("explore.wav", frequency: 500, seconds: 8)
            combat = try fixtures.sineWAV("combat.wav", frequency: 1_000, seconds: 8)
            victory = try fixtures.sineWAV("victory.wav", frequency: 1_500, seconds: 8)
            stinger = try fixtures.sineWAV("stinger.wav", frequency: 2_000, seconds: 0.3)
            bridge = try fixtures.sineWAV("bridge.wav", frequency: 3_000, seconds: 0.5)
        }
    }

    func definition(_ f: Files, _ rules: [MusicTransition]) -> MusicSetDefinition {
        MusicSetDefinition(name: "level", states: [
            .init(name: "explore", content: .track(.init(path: f.explore, tempo: tempo))),
            .init(name: "combat", content: .track(.init(path: f.combat, tempo: tempo))),
            .init(name: "victory", content: .track(.init(path: f.victory, tempo: tempo))),
        ], transitions: rules, stingers: ["hit": .init(path: f.stinger)], bridges: ["bridge": .init(path: f.bridge)])
    }

    /// What a file sounds like played alone from t = 0 (the left channel), `seconds` of it.
    func reference(_ path: String, seconds: Double) throws -> [Float] {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        try engine.loadMusic(path: path).play()
        return MusicRender.left(try MusicRender.render(engine, seconds: seconds))
    }

    /// The amplitude of the `frequency` component of `x[range]`: a least-squares fit of a sine
    /// and a cosine of that frequency (exact for any window, whole periods or not).
    static func amplitude(_ x: [Float], _ frequency: Double, _ range: Range<Int>) -> Double {
        var ss = 0.0, cc = 0.0, sc = 0.0, xs = 0.0, xc = 0.0
        for i in range {
            let w = 2 * Double.pi * frequency * Double(i) / Double(rate)
            let s = sin(w), c = cos(w), v = Double(x[i])
            ss += s * s; cc += c * c; sc += s * c; xs += v * s; xc += v * c
        }
        let det = ss * cc - sc * sc
        guard det > 1e-12 else { return 0 }
        let a = (xs * cc - xc * sc) / det, b = (xc * ss - xs * sc) / det
        return (a * a + b * b).squareRoot()
    }

    /// Renders `seconds` from t = 0 with `explore` playing, asking for `state` at `askAt`.
    func change(to state: String, rule: MusicTransition, askAt: Double, seconds: Double, block: Int = 480,
                _ f: Files) throws -> (out: [Float], begins: Double, set: MusicSet, engine: AudioEngine) {
        let engine = try TestSignals.loopbackEngine()
        addTeardownBlock { engine.shutdown() }
        let set = try engine.makeMusicSet(definition(f, [rule]))
        try set.play(state: "explore", at: 0)
        var out = try MusicRender.render(engine, seconds: askAt, block: block)
        let begins = try set.setState(state)
        XCTAssertEqual(set.pendingState?.state, state)
        out += try MusicRender.render(engine, frames: Int(seconds * 48_000) - out.count / 2, block: block)
        return (MusicRender.left(out), begins, set, engine)
    }

    func testNextBarBeginsOnTheBarLineToTheFrame() throws {
        let f = try Files()
        let explore = try reference(f.explore, seconds: 4.1)
        let combat = try reference(f.combat, seconds: 0.2)
        for block in [480, 37] {
            let r = try change(to: "combat", rule: .init(from: "explore", to: "combat", at: .nextBar), askAt: 2.7,
                               seconds: 4.2, block: block, f)
            XCTAssertEqual(r.begins, 4.0, accuracy: 1e-9, "the next bar line after 2.7 s at 120 bpm")
            let bar = 192_000
            // Explore up to the frame before 4.000 s, combat's own samples from it on.
            for i in (bar - 4_800)..<bar { XCTAssertEqual(r.out[i], explore[i], accuracy: 1e-6, "explore at frame \(i) (\(block))") }
            for i in 0..<4_800 { XCTAssertEqual(r.out[bar + i], combat[i], accuracy: 1e-6, "combat's frame \(i) at \(bar + i) (\(block))") }
            XCTAssertEqual(r.set.currentState, "combat")
        }
    }

    func testNextBeatBeginsOnTheBeat() throws {
        let f = try Files()
        let combat = try reference(f.combat, seconds: 0.2)
        let r = try change(to: "combat", rule: .init(to: "combat", at: .nextBeat), askAt: 2.7, seconds: 3.2, f)
        XCTAssertEqual(r.begins, 3.0, accuracy: 1e-9)
        for i in 0..<4_800 { XCTAssertEqual(r.out[144_000 + i], combat[i], accuracy: 1e-6, "combat's frame \(i)") }
        // Nothing of combat before 3.000 s: the 1 kHz component is absent in the last 10 ms before it.
        XCTAssertLessThan(Self.amplitude(r.out, 1_000, 143_520..<144_000), 1e-4)
    }

    func testEqualPowerFadeIsThreeDecibelsDownAtItsMiddle() throws {
        let f = try Files()
        // Out only (fadeIn 0): the old state's curve alone; both sides: MusicCrossFadeTests.
        let r = try change(to: "combat", rule: .init(to: "combat", at: .nextBar, fade: 0.5, fadeIn: 0, curve: .equalPower),
                           askAt: 2.7, seconds: 4.8, f)
        let before = Self.amplitude(r.out, 500, 187_200..<187_680)        // 3.90 s
        let middle = Self.amplitude(r.out, 500, 204_000..<204_480)        // 4.25 s
        let after = Self.amplitude(r.out, 500, 220_800..<221_280)         // 4.60 s
        let drop = Level.dB(middle / before)
        print("equal-power fade: explore \(String(format: "%.2f", drop)) dB at the middle")
        XCTAssertEqual(drop, -3.01, accuracy: 0.5)
        XCTAssertLessThan(after / before, 1e-3, "gone after the fade")
        // Combat is at full level from the bar line on (no fade-in asked).
        XCTAssertEqual(Self.amplitude(r.out, 1_000, 192_480..<192_960) / before, 1, accuracy: 0.02)
        XCTAssertEqual(r.set.tracks.filter(\.isPlaying).count, 1, "explore stopped after its fade")
    }

    func testStingerStartsOnTheNextBeat() throws {
        let f = try Files()
        let stinger = try reference(f.stinger, seconds: 0.2)
        func run(_ withStinger: Bool) throws -> ([Float], Double?) {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            let set = try engine.makeMusicSet(definition(f, []))
            try set.play(state: "explore", at: 0)
            var out = try MusicRender.render(engine, seconds: 5.1)
            let at = withStinger ? try set.playStinger("hit") : nil
            out += try MusicRender.render(engine, seconds: 0.6)
            return (MusicRender.left(out), at)
        }
        let (plain, _) = try run(false)
        let (with, at) = try run(true)
        XCTAssertEqual(at ?? 0, 5.5, accuracy: 1e-9)
        let diff = zip(with, plain).map { $0 - $1 }
        XCTAssertLessThan(diff[0..<264_000].map(abs).max() ?? 1, 1e-6, "nothing before 5.5 s")
        for i in 0..<4_800 { XCTAssertEqual(diff[264_000 + i], stinger[i], accuracy: 1e-5, "the stinger's frame \(i)") }
    }

    func testSecondRequestReplacesThePendingOne() throws {
        let f = try Files()
        let victory = try reference(f.victory, seconds: 0.2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let set = try engine.makeMusicSet(definition(f, [.init(to: "combat", at: .nextBar), .init(to: "victory", at: .nextBeat)]))
        try set.play(state: "explore", at: 0)
        var out = try MusicRender.render(engine, seconds: 2.7)
        XCTAssertEqual(try set.setState("combat"), 4.0, accuracy: 1e-9)
        out += try MusicRender.render(engine, seconds: 0.5)
        XCTAssertEqual(try set.setState("victory"), 3.5, accuracy: 1e-9, "from explore, by victory's rule")
        out += try MusicRender.render(engine, seconds: 1.3)
        let left = MusicRender.left(out)
        XCTAssertLessThan(Self.amplitude(left, 1_000, 0..<216_000), 1e-4, "combat is never heard")
        for i in 0..<4_800 { XCTAssertEqual(left[168_000 + i], victory[i], accuracy: 1e-6, "victory's frame \(i)") }
        XCTAssertLessThan(Self.amplitude(left, 500, 168_480..<168_960), 1e-4, "explore stopped at 3.5 s")
        XCTAssertEqual(set.currentState, "victory")
        XCTAssertEqual(set.changes.map(\.state), ["explore", "victory"])
    }

    func testBridgePlaysBetweenTheStates() throws {
        let f = try Files()
        let bridge = try reference(f.bridge, seconds: 0.2)
        let combat = try reference(f.combat, seconds: 0.2)
        let r = try change(to: "combat", rule: .init(to: "combat", at: .nextBar, via: "bridge"), askAt: 2.7, seconds: 4.8, f)
        XCTAssertEqual(r.begins, 4.5, accuracy: 1e-9, "the bar line plus the 0.5 s bridge")
        for i in 0..<4_800 { XCTAssertEqual(r.out[192_000 + i], bridge[i], accuracy: 1e-6, "the bridge's frame \(i)") }
        for i in 0..<4_800 { XCTAssertEqual(r.out[216_000 + i], combat[i], accuracy: 1e-6, "combat's frame \(i)") }
    }

    func testBadDefinitionsAndNamesThrow() throws {
        let f = try Files()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        var d = definition(f, [.init(from: "explore", to: "nowhere")])
        XCTAssertThrowsError(try engine.makeMusicSet(d))
        d = definition(f, [.init(to: "combat", stinger: "nope")])
        XCTAssertThrowsError(try engine.makeMusicSet(d))
        d = definition(f, [.init(to: "combat", fade: .nan)])
        XCTAssertThrowsError(try engine.makeMusicSet(d))
        d = definition(f, [])
        d.states.append(.init(name: "explore", content: .track(.init(path: f.explore))))
        XCTAssertThrowsError(try engine.makeMusicSet(d), "two states named explore")
        d = definition(f, [])
        d.states[0].content = .track(.init(path: f.explore, entry: "nowhere"))
        XCTAssertThrowsError(try engine.makeMusicSet(d), "an entry naming no cue")
        let set = try engine.makeMusicSet(definition(f, []))
        XCTAssertThrowsError(try set.setState("nowhere"))
        XCTAssertThrowsError(try set.playStinger("nowhere"))
        XCTAssertThrowsError(try set.setLayerGain(1, layer: "drums"))
        engine.shutdown()
        XCTAssertThrowsError(try set.setState("combat")) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
    }
}

extension AdaptiveMusicTests {
    /// The music bus paused while a change is pending: the change is planned again from where
    /// explore is when the pause ends. Asked at 2.7 s for the bar at 4.0 s, paused from 3.0 to
    /// 4.0 s: explore's next bar line is then heard at 5.0 s, and combat begins there.
    func testABusPauseWhileAChangeIsPendingMovesItToTheBarHeardAfter() throws {
        let f = try Files()
        let combat = try reference(f.combat, seconds: 0.2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let set = try engine.makeMusicSet(definition(f, [.init(to: "combat", at: .nextBar)]))
        try set.play(state: "explore", at: 0)
        var out = try MusicRender.render(engine, seconds: 2.7)
        XCTAssertEqual(try set.setState("combat"), 4.0, accuracy: 1e-9)
        out += try MusicRender.render(engine, seconds: 0.3)
        try engine.setPaused(true, for: .music)
        out += try MusicRender.render(engine, seconds: 1.0)
        try engine.setPaused(false, for: .music)
        out += try MusicRender.render(engine, seconds: 1.2)
        let left = MusicRender.left(out)
        XCTAssertEqual(set.pendingState?.state, nil)
        XCTAssertEqual(set.changes.last?.audioTime ?? 0, 5.0, accuracy: 1e-9)
        XCTAssertLessThan(Self.amplitude(left, 1_000, 0..<240_000), 1e-4, "no combat before 5.0 s")
        XCTAssertGreaterThan(Self.amplitude(left, 500, 196_800..<197_280), 0.1, "explore again after the pause")
        for i in 0..<4_800 { XCTAssertEqual(left[240_000 + i], combat[i], accuracy: 1e-6, "combat's frame \(i)") }
    }

    /// A state of two segments: the intro plays once, the loop follows it gaplessly and loops;
    /// a nextBar change asked during the intro lands on the intro's bar.
    func testSegmentsPlayInOrderAndTheLastLoops() throws {
        let f = try Files()
        let intro = try f.fixtures.sineWAV("intro.wav", frequency: 2_500, seconds: 3)
        let loop = try reference(f.explore, seconds: 0.2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        var d = definition(f, [.init(to: "combat", at: .nextBar)])
        d.states[0].content = .segments([.init(path: intro, tempo: tempo), .init(path: f.explore, tempo: tempo)])
        let set = try engine.makeMusicSet(d)
        try set.play(state: "explore", at: 0)
        let left = MusicRender.left(try MusicRender.render(engine, seconds: 3.2))
        for i in 0..<4_800 { XCTAssertEqual(left[144_000 + i], loop[i], accuracy: 1e-6, "the loop's frame \(i) right after the 3 s intro") }
        XCTAssertLessThan(Self.amplitude(left, 2_500, 144_480..<144_960), 1e-4, "the intro is over")
        // A change asked in the loop now lands on the loop's grid: 3.2 s → its bar at 5.0 s.
        XCTAssertEqual(try set.setState("combat"), 5.0, accuracy: 1e-9)

        let engine2 = try TestSignals.loopbackEngine()
        defer { engine2.shutdown() }
        let set2 = try engine2.makeMusicSet(d)
        try set2.play(state: "explore", at: 0)
        _ = try MusicRender.render(engine2, seconds: 0.7)
        XCTAssertEqual(try set2.setState("combat"), 2.0, accuracy: 1e-9, "the intro's bar")
        let out = MusicRender.left(try MusicRender.render(engine2, seconds: 3.0))
        XCTAssertLessThan(Self.amplitude(out, 500, 0..<out.count - out.count % 480), 1e-4, "the loop never starts")
    }

    /// Cues listed on a segment: nextCue lands on the next one; the entry cue is where a state
    /// starts; an `end` change leaves at the exit cue.
    func testCuesEntryAndExit() throws {
        let f = try Files()
        let combat = try reference(f.combat, seconds: 2.2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        var d = definition(f, [.init(to: "combat", at: .nextCue), .init(to: "victory", at: .end)])
        d.states[0].content = .track(.init(path: f.explore, tempo: tempo, cues: ["drop": 1.25, "out": 3.0], exit: "out"))
        d.states[1].content = .track(.init(path: f.combat, tempo: tempo, cues: ["in": 2.0, "late": 6.5], entry: "in", exit: "late"))
        let set = try engine.makeMusicSet(d)
        try set.play(state: "explore", at: 0)
        var out = try MusicRender.render(engine, seconds: 1.0)
        XCTAssertEqual(try set.setState("combat"), 1.25, accuracy: 1e-9, "the drop cue")
        out += try MusicRender.render(engine, seconds: 0.5)
        let left = MusicRender.left(out)
        for i in 0..<4_800 { XCTAssertEqual(left[60_000 + i], combat[96_000 + i], accuracy: 1e-6, "combat from its entry cue at 2.0 s") }
        // Combat is at 2.25 s of its file at 1.5 s; its exit cue (6.5 s) is heard at 5.75 s.
        XCTAssertEqual(try set.setState("victory"), 5.75, accuracy: 1e-9)
    }
}

extension AdaptiveMusicTests {
    /// A stinger ducks nothing unless asked; with `duck: -6` the state falls 6 dB from the
    /// stinger's first sample and comes back once it has played.
    func testAStingerDucksOnlyWhenAsked() throws {
        let f = try Files()
        func run(duck: Float) throws -> [Float] {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            let set = try engine.makeMusicSet(definition(f, []))
            try set.play(state: "explore", at: 0)
            var out = try MusicRender.render(engine, seconds: 1.1)
            XCTAssertEqual(try set.playStinger("hit", at: .nextBeat, duck: duck), 1.5, accuracy: 1e-9)
            out += try MusicRender.render(engine, seconds: 1.5)
            return MusicRender.left(out)
        }
        let plain = try run(duck: 0), ducked = try run(duck: -6)
        let before = Self.amplitude(plain, 500, 67_200..<67_680)                          // 1.40 s
        XCTAssertEqual(Self.amplitude(plain, 500, 81_600..<82_080) / before, 1, accuracy: 1e-3, "no duck by default")
        let during = Level.dB(Self.amplitude(ducked, 500, 81_600..<82_080) / before)   // 1.70 s
        let after = Level.dB(Self.amplitude(ducked, 500, 120_000..<120_480) / before)  // 2.50 s
        print("stinger duck: \(String(format: "%.2f", during)) dB under the stinger, \(String(format: "%.2f", after)) dB after")
        XCTAssertEqual(during, -6, accuracy: 0.2)
        XCTAssertEqual(after, 0, accuracy: 0.05, "back once the 0.3 s stinger has played (+ the release)")
        XCTAssertThrowsError(try {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            try engine.makeMusicSet(definition(f, [])).playStinger("hit", duck: -61)
        }())
    }
}

extension AdaptiveMusicTests {
    /// A change asked for while the set is paused waits for resume(), and is planned then from
    /// where explore is: paused at 1.0 s for 2 s, asked at 2.0 s, resumed at 3.0 s (explore at
    /// 1.0 s of its file) — the next bar of explore (its 2.0 s) is heard at 4.0 s.
    func testAChangeAskedWhilePausedIsPlannedAtResume() throws {
        let f = try Files()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let set = try engine.makeMusicSet(definition(f, [.init(to: "combat", at: .nextBar)]))
        try set.play(state: "explore", at: 0)
        _ = try MusicRender.render(engine, seconds: 1.0)
        set.pause()
        _ = try MusicRender.render(engine, seconds: 1.0)
        XCTAssertEqual(try set.setState("combat"), 2.0, accuracy: 1e-9, "the time now: nothing is planned while paused")
        XCTAssertNil(set.pendingState)
        _ = try MusicRender.render(engine, seconds: 1.0)
        try set.resume()
        XCTAssertEqual(set.pendingState?.audioTime ?? 0, 4.0, accuracy: 1e-9)
        _ = try MusicRender.render(engine, seconds: 1.1)
        XCTAssertEqual(set.currentState, "combat")
    }
}

extension AdaptiveMusicTests {
    /// An interruption that ends without resuming keeps the set's tracks held, as it keeps every
    /// track: resume() on the set readies them, and they play — together — when the session
    /// resumes.
    func testResumeAfterAnInterruptionThatDidNotResume() throws {
        let f = try Files()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        var d = definition(f, [])
        d.states[1].content = .layers([.init(name: "x", segment: .init(path: f.combat)), .init(name: "y", segment: .init(path: f.victory))])
        let set = try engine.makeMusicSet(d)
        try set.play(state: "combat", at: 0)
        _ = try MusicRender.render(engine, seconds: 0.5)
        engine.session.beginInterruption()
        _ = try MusicRender.render(engine, seconds: 0.2)
        engine.session.endInterruption(shouldResume: false)
        _ = try MusicRender.render(engine, seconds: 0.2)
        XCTAssertEqual(set.tracks.filter(\.isPlaying).count, 0, "held: the session did not resume")
        try set.resume()
        _ = try MusicRender.render(engine, seconds: 0.1)
        XCTAssertEqual(set.tracks.filter(\.isPlaying).count, 0, "still held")
        engine.session.resume()
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 0.2))
        XCTAssertEqual(set.tracks.filter(\.isPlaying).count, 2)
        XCTAssertGreaterThan(Self.amplitude(out, 1_000, 4_800..<5_280), 0.1)
        XCTAssertGreaterThan(Self.amplitude(out, 1_500, 4_800..<5_280), 0.1)
    }
}
