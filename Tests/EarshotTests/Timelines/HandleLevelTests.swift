@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// A handle's gain reaching all of what it plays, measured on the loopback output: a timeline's
/// tail started on release, a following switch and a switch over a timeline played at gain 0 and
/// raised, a live redefinition of a timeline sound, and ``Voice/gain`` read under curves.
final class HandleLevelTests: XCTestCase, HandleLevelChecking {
    /// A sustain loop (500 Hz) and its tail (1,500 Hz): after `voice.gain = 0.5` the tail started
    /// on release is at −6 dB as the loop is, whether the play was at gain 1 or at 0 (the tail
    /// was at 0 dB, and silent after a play at 0); a play at −6 dB has both there; a pitch set on
    /// the handle reaches the tail.
    func testATailStartsAtTheHandlesGainAndPitch() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let motor = try e.makeSound(SoundDefinition(layers: [
            SoundLayer(clip: try tone(e, 500, "loop", frames: 4_800), timing: .init(sustain: true)),
            SoundLayer(clip: try tone(e, 1_500, "tail"), timing: .init(tail: true)),
        ], loop: false))
        func levels(play gain: Float, gain set: Float?, pitch: Float? = nil) throws -> (loop: Double, tail: Double, hz: Double) {
            let v = try play(e, motor, gain: gain)
            try TestSignals.renderFrames(e, seconds: 0.05)
            if let set { v.gain = set }
            if let pitch { v.pitch = pitch }
            let x = left(try TestSignals.renderFrames(e, seconds: 0.3))
            v.release()
            let y = left(try TestSignals.renderFrames(e, seconds: 0.5))
            try drain(e, v)
            return (dB(x, 4_800..<14_400, 500), dB(y, 9_600..<19_200, 1_500 * Double(pitch ?? 1)),
                    ToneMeasure.frequency(Array(y[9_600..<19_200]), sampleRate: 48_000))
        }
        let ref = try levels(play: 1, gain: nil)
        let set = try levels(play: 1, gain: 0.5)
        let played = try levels(play: 0.5, gain: nil)
        let raised = try levels(play: 0, gain: 0.5)
        let pitched = try levels(play: 1, gain: nil, pitch: 1.5)
        print("tail vs loop (dB re a play at 1): set 0.5 \(set.tail - ref.tail) / \(set.loop - ref.loop); played at 0.5 \(played.tail - ref.tail) / \(played.loop - ref.loop); from 0 raised to 0.5 \(raised.tail - ref.tail) / \(raised.loop - ref.loop); pitch 1.5: tail \(pitched.hz) Hz (was \(ref.hz))")
        let half = Level.dB(0.5)
        XCTAssertEqual(set.loop - ref.loop, half, accuracy: 0.2)
        XCTAssertEqual(set.tail - ref.tail, half, accuracy: 0.2, "the tail at the handle's gain")
        XCTAssertEqual(played.tail - ref.tail, half, accuracy: 0.2)
        XCTAssertEqual(raised.loop - ref.loop, half, accuracy: 0.2)
        XCTAssertEqual(raised.tail - ref.tail, half, accuracy: 0.2, "a play at 0 raised: its tail is heard")
        XCTAssertEqual(pitched.hz / ref.hz, 1.5, accuracy: 0.0075, "the tail at the handle's pitch")
    }

    /// A following switch (gain 0.7, cases at 0.5 and 0.25) played at gain 0 and raised to 1 is
    /// heard as a play at 1 — and so is the next case after the label changes; a switch (gain
    /// 0.5) over a timeline sound (gain 0.8, parts at 0.5 and 1) the same.
    func testSwitchesPlayedAtGainZeroRaisedAreHeardAsAPlayAtThatGain() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood"]))
        let gravel = try e.makeSound(SoundDefinition(clips: [try tone(e, 500, "gravel")], gain: 0.5, loop: true))
        let wood = try e.makeSound(SoundDefinition(clips: [try tone(e, 1_500, "wood")], gain: 0.25, loop: true))
        let rolling = try e.makeSound(SoundDefinition(switch: SoundSwitch(
            parameter: "surface", cases: ["gravel": gravel, "wood": wood], follow: true, fade: 0.05), gain: 0.7))
        let door = try e.makeSound(SoundDefinition(layers: [
            SoundLayer(clip: try tone(e, 500, "a"), gain: 0.5),
            SoundLayer(clip: try tone(e, 1_500, "b"), timing: .init(delay: 0.01)),
        ], loop: true, gain: 0.8))
        let over = try e.makeSound(SoundDefinition(switch: SoundSwitch(parameter: "surface", cases: ["gravel": door]), gain: 0.5))
        // (500 Hz, 1,500 Hz) after 0.1 s, then after a change to wood.
        func levels(_ s: Sound, gain: Float, raise: Bool, change: Bool) throws -> [Double] {
            try e.setParameter("surface", "gravel")
            let v = try play(e, s, gain: gain)
            let silent = left(try TestSignals.renderFrames(e, seconds: 0.1))
            if raise {
                XCTAssertLessThan(Level.rms(silent, 0..<silent.count), 1e-6, "silent at gain 0")
                v.gain = 1
            }
            let x = left(try TestSignals.renderFrames(e, seconds: 0.3))
            var out = [dB(x, 4_800..<14_400, 500), dB(x, 4_800..<14_400, 1_500)]
            if change {
                try e.setParameter("surface", "wood")
                let y = left(try TestSignals.renderFrames(e, seconds: 0.3))
                out.append(dB(y, 4_800..<14_400, 1_500))
            }
            try drain(e, v)
            return out
        }
        let follow1 = try levels(rolling, gain: 1, raise: false, change: true)
        let follow0 = try levels(rolling, gain: 0, raise: true, change: true)
        let over1 = try levels(over, gain: 1, raise: false, change: false)
        let over0 = try levels(over, gain: 0, raise: true, change: false)
        print("following switch from 0 raised to 1 (dB re a play at 1): gravel \(follow0[0] - follow1[0]), wood after the change \(follow0[2] - follow1[2]); switch over a timeline: parts \(over0[0] - over1[0]), \(over0[1] - over1[1])")
        XCTAssertEqual(follow0[0], follow1[0], accuracy: 0.2, "a following switch raised from 0")
        XCTAssertEqual(follow0[2], follow1[2], accuracy: 0.2, "its next case at the handle's gain")
        XCTAssertEqual(over0[0], over1[0], accuracy: 0.2, "a switch over a timeline raised from 0: its gain kept")
        XCTAssertEqual(over0[1], over1[1], accuracy: 0.2)
        XCTAssertEqual(over1[0] - over1[1], Level.dB(0.5), accuracy: 0.2, "the parts' levels")
    }

    /// A live redefinition of a timeline sound (two looping parts, 500 and 1,500 Hz): the sound's
    /// gain × 0.5 moves both parts −6 dB (not only the handle's), the second layer's × 0.5 that
    /// part −6 dB more, and a gain set on the handle later scales the new levels.
    func testRedefiningATimelineSoundMovesEveryPartAndAHandleGainKeepsIt() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        var d = SoundDefinition(layers: [
            SoundLayer(clip: try tone(e, 500, "a")),
            SoundLayer(clip: try tone(e, 1_500, "b"), timing: .init(delay: 0.01)),
        ], loop: true)
        let s = try e.makeSound(d)
        let v = try e.play(s)
        func levels() throws -> [Double] {
            let x = left(try TestSignals.renderFrames(e, seconds: 0.2))
            return [dB(x, 2_400..<9_600, 500), dB(x, 2_400..<9_600, 1_500)]
        }
        let before = try levels()
        d.gain = 0.5
        _ = try e.redefine(s, as: d)
        let sound = try levels()
        d.layers[1].gain = 0.5
        _ = try e.redefine(s, as: d)
        let layer = try levels()
        v.gain = 1
        let kept = try levels()
        v.gain = 0.5
        let halved = try levels()
        let r = [sound, layer, kept, halved].map { zip($0, before).map { $0 - $1 } }
        print("redefined timeline (dB re before, parts 500 / 1,500 Hz): sound × 0.5 \(r[0]), layer × 0.5 \(r[1]), handle gain 1 \(r[2]), 0.5 \(r[3])")
        let h = Level.dB(0.5)
        for (n, want) in [[h, h], [h, 2 * h], [h, 2 * h], [2 * h, 3 * h]].enumerated() {
            XCTAssertEqual(r[n][0], want[0], accuracy: 0.2, "step \(n), first part")
            XCTAssertEqual(r[n][1], want[1], accuracy: 0.2, "step \(n), second part")
        }
        try drain(e, v)
    }

    /// ``Voice/gain`` and ``Voice/pitch`` read what the game set, not the curves' factors (a
    /// sound under a −6 dB gain curve): reading and setting back changes nothing; a timeline's
    /// handle reads its factor.
    func testVoiceGainReadsTheGamesValueWithoutCurves() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "speed", range: 0...1))
        var d = SoundDefinition(clips: [try tone(e, 500, "hum")], gain: 0.8, loop: true)
        d.curves = [ParameterCurve(parameter: "speed", property: .gain, points: [.init(0, -6), .init(1, -6)])]
        let hum = try e.makeSound(d)
        let v = try play(e, hum, gain: 0.5)
        let x = left(try TestSignals.renderFrames(e, seconds: 0.2))
        let read = try XCTUnwrap(v.gain)
        v.gain = read
        let y = left(try TestSignals.renderFrames(e, seconds: 0.2))
        print("under a −6 dB curve: Voice.gain reads \(read) (played at 0.5 × sound 0.8); set back: \(dB(y, 4_800..<9_600, 500) - dB(x, 4_800..<9_600, 500)) dB")
        XCTAssertEqual(read, 0.4, accuracy: 1e-6, "the play's gain × the sound's, without the curve")
        XCTAssertEqual(dB(y, 4_800..<9_600, 500), dB(x, 4_800..<9_600, 500), accuracy: 0.05, "set back: unchanged")
        v.gain = 0.2
        XCTAssertEqual(v.gain, 0.2, "what was set, at once")
        try TestSignals.renderFrames(e, seconds: 0.05)
        XCTAssertEqual(try XCTUnwrap(v.gain), 0.2, accuracy: 1e-6, "and after the curves ran")
        // Set to what the curve last wrote (its own −6 dB, as the curve computes it): heard.
        let z = left(try TestSignals.renderFrames(e, seconds: 0.1))
        v.gain = 0.2 * Float(pow(10, -6.0 / 20))
        let u = left(try TestSignals.renderFrames(e, seconds: 0.1))
        let halved = dB(u, 2_400..<4_800, 500) - dB(z, 2_400..<4_800, 500)
        print("a gain set equal to the value the curve wrote: \(halved) dB")
        XCTAssertEqual(halved, -6, accuracy: 0.2, "a set equal to the curve's last write is not lost")
        try drain(e, v)
        let t = try e.makeSound(SoundDefinition(layers: [
            SoundLayer(clip: try tone(e, 500, "a")), SoundLayer(clip: try tone(e, 1_500, "b"), timing: .init(delay: 0.01)),
        ], loop: true, gain: 0.5))
        let w = try play(e, t, gain: 0.5)
        XCTAssertEqual(w.gain, 1, "a timeline's handle: the factor on its parts")
        w.gain = 0.25
        XCTAssertEqual(w.gain, 0.25)
        try drain(e, w)
    }

    /// A timeline sound (parts at 500 and 1,500 Hz, own gain 1) under a −6 dB gain curve: its
    /// handle's gain set to the value the curve last wrote on a part (10^(−6/20)) steps both
    /// parts by −6 dB (it was lost: 0.0 dB, the pool's value equal to the curve's last write),
    /// and a gain set then rendered before the next update() is heard with the curve's factor.
    func testAHandleGainUnderCurvesIsTakenAtOnce() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "speed", range: 0...1))
        var d = SoundDefinition(layers: [
            SoundLayer(clip: try tone(e, 500, "a")), SoundLayer(clip: try tone(e, 1_500, "b"), timing: .init(delay: 0.01)),
        ], loop: true)
        d.curves = [ParameterCurve(parameter: "speed", property: .gain, points: [.init(0, -6), .init(1, -6)])]
        let w = try play(e, try e.makeSound(d), gain: 1)
        XCTAssertTrue(w.isHandleOverParts)
        let x = left(try TestSignals.renderFrames(e, seconds: 0.2))
        w.gain = Float(pow(10, -6.0 / 20))
        let y = left(try TestSignals.renderFrames(e, seconds: 0.2))
        let a = dB(y, 4_800..<9_600, 500) - dB(x, 4_800..<9_600, 500)
        let b = dB(y, 4_800..<9_600, 1_500) - dB(x, 4_800..<9_600, 1_500)
        w.gain = 0.25   // −6 dB below the last: rendered before any update
        let z = left(try e.render(frames: 4_800))
        let c = dB(z, 2_400..<4_800, 500) - dB(x, 4_800..<9_600, 500)
        print("timeline under a −6 dB curve, handle gain set to the curve's last write: \(a) / \(b) dB; set 0.25, rendered before update: \(c) dB")
        XCTAssertEqual(a, -6, accuracy: 0.2, "not lost on the first part")
        XCTAssertEqual(b, -6, accuracy: 0.2, "not lost on the second")
        XCTAssertEqual(c, Level.dB(0.25), accuracy: 0.2, "with the curve's factor at once")
        try drain(e, w)
    }
}
