@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The own levels a timeline or following switch keeps for its parts (``TimelineTable/Entry/gains``),
/// measured on the loopback output: a case under curves, a tail after a live redefinition, a
/// following switch's later case redefined.
final class PartLevelTests: XCTestCase, HandleLevelChecking {
    /// The 500 Hz level of the next 0.2 s (its last 0.1 s).
    private func level(_ e: AudioEngine, _ hz: Double = 500) throws -> Double {
        dB(left(try TestSignals.renderFrames(e, seconds: 0.2)), 4_800..<9_600, hz)
    }

    /// A following switch whose case is under a −10 dB gain curve, played at gain 0 and raised to
    /// 1: heard at −10 dB, and so is its next case with the gain set again (the curve applied
    /// twice: −20); played at 1, its ``Voice/gain`` read and set back after the curve moved to
    /// 0 dB changes nothing (it went back to −10).
    func testAFollowingSwitchsCaseUnderCurvesIsHeardWithItsCurveOnce() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood"]))
        try e.defineParameter(ParameterDefinition(name: "speed", range: 0...1))
        try e.setParameter("surface", "gravel")
        try e.setParameter("speed", 0)
        let clip = try tone(e, 500, "hum")
        let plain = try e.makeSound(SoundDefinition(clips: [clip], loop: true))
        var d = SoundDefinition(clips: [clip], loop: true)
        d.curves = [ParameterCurve(parameter: "speed", property: .gain, points: [.init(0, -10), .init(1, 0)])]
        let hum = try e.makeSound(d)
        d.clips = [try tone(e, 1_500, "whirr")]
        let whirr = try e.makeSound(d)
        d.curves = []
        let plainWhirr = try e.makeSound(d)
        let rolling = try e.makeSound(SoundDefinition(switch: SoundSwitch(
            parameter: "surface", cases: ["gravel": hum, "wood": whirr], follow: true, fade: 0.05)))
        let p = try play(e, plain, gain: 1)
        let ref = try level(e)
        try drain(e, p)
        let q = try play(e, plainWhirr, gain: 1)
        let ref2 = try level(e, 1_500)
        try drain(e, q)
        let v = try play(e, rolling, gain: 0)
        try TestSignals.renderFrames(e, seconds: 0.05)
        v.gain = 1
        let raised = try level(e) - ref
        try e.setParameter("surface", "wood")
        try TestSignals.renderFrames(e, seconds: 0.1)
        v.gain = 1   // set again: the next case's part level × 1
        let next = try level(e, 1_500) - ref2
        try e.setParameter("surface", "gravel")
        try drain(e, v)
        let w = try play(e, rolling, gain: 1)
        try TestSignals.renderFrames(e, seconds: 0.05)
        try e.setParameter("speed", 1)
        let moved = try level(e) - ref
        w.gain = try XCTUnwrap(w.gain)
        let setBack = try level(e) - ref
        try drain(e, w)
        print("following switch under a −10 dB curve (dB re plain): from 0 raised to 1 \(raised), next case \(next); curve at 0 dB \(moved), gain read and set back \(setBack)")
        XCTAssertEqual(raised, -10, accuracy: 0.2, "the curve once")
        XCTAssertEqual(next, -10, accuracy: 0.2, "the next case: the curve once")
        XCTAssertEqual(moved, 0, accuracy: 0.2)
        XCTAssertEqual(setBack, 0, accuracy: 0.2, "set back: unchanged")
    }

    /// A timeline sound (a sustain loop at 500 Hz, a tail at 1,500 Hz) redefined with its gain
    /// × 0.5 while sustaining: the tail started on release is at −6.02 dB of an unredefined run's
    /// (it started at the old sound gain: 0 dB).
    func testATailAfterARedefinitionTakesTheNewSoundGain() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        var d = SoundDefinition(layers: [
            SoundLayer(clip: try tone(e, 500, "loop", frames: 4_800), timing: .init(sustain: true)),
            SoundLayer(clip: try tone(e, 1_500, "tail"), timing: .init(tail: true)),
        ], loop: false)
        let motor = try e.makeSound(d)
        func tail(redefine: Bool) throws -> Double {
            let v = try e.play(motor)
            try TestSignals.renderFrames(e, seconds: 0.05)
            if redefine {
                d.gain = 0.5
                _ = try e.redefine(motor, as: d)
            }
            try TestSignals.renderFrames(e, seconds: 0.1)
            v.release()
            let y = left(try TestSignals.renderFrames(e, seconds: 0.4))
            try drain(e, v)
            return dB(y, 9_600..<19_200, 1_500)
        }
        let ref = try tail(redefine: false)
        let redefined = try tail(redefine: true) - ref
        print("tail after the sound's gain × 0.5 while sustaining: \(redefined) dB re unredefined")
        XCTAssertEqual(redefined, Level.dB(0.5), accuracy: 0.2, "the tail at the new sound gain")
    }

    /// A following switch (gravel 500 Hz, wood 1,500 Hz): after a change to wood, wood's sound
    /// redefined with gain × 0.5 is at −6.02 dB, and a handle gain of 1 then keeps it (it went
    /// back to 0), as does a change back and forth; gravel redefined while it fades out leaves
    /// wood's level alone under a later handle gain (it took gravel's −6 dB).
    func testRedefiningALaterCaseOfAFollowingSwitchKeepsItsLevel() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood"]))
        var g = SoundDefinition(clips: [try tone(e, 500, "gravel")], loop: true)
        var w = SoundDefinition(clips: [try tone(e, 1_500, "wood")], loop: true)
        let gravel = try e.makeSound(g), wood = try e.makeSound(w)
        let rolling = try e.makeSound(SoundDefinition(switch: SoundSwitch(
            parameter: "surface", cases: ["gravel": gravel, "wood": wood], follow: true, fade: 0.05)))
        try e.setParameter("surface", "gravel")
        let v = try e.play(rolling)
        try TestSignals.renderFrames(e, seconds: 0.1)
        try e.setParameter("surface", "wood")
        let ref = try level(e, 1_500)
        w.gain = 0.5
        _ = try e.redefine(wood, as: w)
        let redefined = try level(e, 1_500) - ref
        v.gain = 1
        let kept = try level(e, 1_500) - ref
        try e.setParameter("surface", "gravel")
        try TestSignals.renderFrames(e, seconds: 0.1)
        try e.setParameter("surface", "wood")
        let back = try level(e, 1_500) - ref
        try drain(e, v)
        try e.setParameter("surface", "gravel")
        let u = try e.play(rolling)
        try TestSignals.renderFrames(e, seconds: 0.1)
        try e.setParameter("surface", "wood")
        try TestSignals.renderFrames(e, seconds: 0.01)   // gravel fading out
        g.gain = 0.5
        _ = try e.redefine(gravel, as: g)
        let alone = try level(e, 1_500)
        u.gain = 1
        let other = try level(e, 1_500) - alone
        try drain(e, u)
        print("following switch, later case wood redefined × 0.5 (dB re before): \(redefined), handle gain 1 \(kept), changed back and forth \(back); gravel redefined while fading, wood under handle gain 1: \(other)")
        let h = Level.dB(0.5)
        XCTAssertEqual(redefined, h, accuracy: 0.2)
        XCTAssertEqual(kept, h, accuracy: 0.2, "a handle gain keeps the redefined case's level")
        XCTAssertEqual(back, h, accuracy: 0.2, "the case played again at its new gain, once")
        XCTAssertEqual(other, 0, accuracy: 0.2, "another case's redefinition leaves wood alone")
    }
}
