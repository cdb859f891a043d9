@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// A live redefinition of a switch sound's own gain and pitch (`AudioEngine.redefine(_:as:)`)
/// reaching the voices of its cases — which carry their case sound's key, not the switch's —
/// measured on the loopback output, for a following and a non-following switch.
final class SwitchRedefineTests: XCTestCase {
    private func left(_ x: [Float]) -> [Float] { stride(from: 0, to: x.count, by: 2).map { x[$0] } }

    /// A looping 1 s sine (a whole number of periods: a seamless loop).
    private func tone(_ e: AudioEngine, _ hz: Double, _ name: String) throws -> Sound {
        let pcm = PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16((0..<48_000).map {
            Int16((0.3 * sin(2 * .pi * hz * Double($0) / 48_000) * 32767).rounded())
        }))
        return try e.makeSound(SoundDefinition(clips: [try e.loadClip(pcm, name: name)], loop: true, name: name))
    }

    /// The amplitude of `hz` over 0.2 s rendered after 0.05 s settling (a change lands at once;
    /// the settling covers a game frame and any fade).
    private func level(_ e: AudioEngine, _ hz: Double) throws -> Double {
        try TestSignals.renderFrames(e, seconds: 0.05)
        return ToneMeasure.amplitude(left(try TestSignals.renderFrames(e, seconds: 0.2))[...], hz)
    }

    private func frequency(_ e: AudioEngine) throws -> Double {
        try TestSignals.renderFrames(e, seconds: 0.05)
        return ToneMeasure.frequency(left(try TestSignals.renderFrames(e, seconds: 0.2)), sampleRate: 48_000)
    }

    private func makeSwitch(_ e: AudioEngine, follow: Bool) throws -> Sound {
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood"]))
        let gravel = try tone(e, 500, "gravel"), wood = try tone(e, 1_500, "wood")
        try e.setParameter("surface", "gravel")
        return try e.makeSound(SoundDefinition(switch: SoundSwitch(
            parameter: "surface", cases: ["gravel": gravel, "wood": wood], follow: follow, fade: 0.05), name: "rolling"))
    }

    /// Plays the switch, measures its 500 Hz case, redefines the switch at gain × 0.5 and checks
    /// the playing case took it (−6.02 dB); returns the new handle, its definition, the voice
    /// and the level before.
    private func playAndHalve(_ e: AudioEngine, follow: Bool) throws -> (Sound, SoundDefinition, Voice, Double) {
        let sw = try makeSwitch(e, follow: follow)
        let v = try e.play(sw)
        let full = try level(e, 500)
        XCTAssertGreaterThan(full, 0.05)
        var d = sw.definition
        d.gain = 0.5
        let tuned = try e.redefine(sw, as: d)
        XCTAssertEqual(Level.dB(try level(e, 500), over: full), -6.02, accuracy: 0.2, "follow: \(follow): the playing case at the new gain")
        return (tuned, d, v, full)
    }

    /// A non-following switch's playing loop: gain × 0.5 → −6.02 dB, pitch × 1.5 → 750 Hz, at
    /// once; its instance limit and its voice's stop still work.
    func testANonFollowingSwitchsCaseTakesItsNewGainAndPitch() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        var (sw, d, v, full) = try playAndHalve(e, follow: false)
        d.pitch = 1.5
        sw = try e.redefine(sw, as: d)
        XCTAssertEqual(try frequency(e) / 750, 1, accuracy: 0.005, "the playing case at the new pitch")
        XCTAssertEqual(Level.dB(ToneMeasure.amplitude(left(try TestSignals.renderFrames(e, seconds: 0.2))[...], 750),
                                over: full), -6.02, accuracy: 0.2, "the gain kept")
        // A second play starts at the new gain and pitch too; a limit of 2 refuses a third.
        d.limit = .init(count: 2, steal: .refuse)
        sw = try e.redefine(sw, as: d)
        let w = try e.play(sw)
        XCTAssertTrue(w.isPlaying)
        XCTAssertFalse(try e.play(sw).isPlaying, "the limit counts the cases playing")
        v.stop()
        w.stop()
        try TestSignals.renderFrames(e, seconds: 0.05)
        XCTAssertEqual(e.activeVoiceCount, 0)
    }

    /// A following switch's playing loop: gain × 0.5 → −6.02 dB; the case its label change
    /// brings plays at the new level; a handle gain set after is a factor on it; pitch × 1.5.
    func testAFollowingSwitchsCasesTakeItsNewGainAndPitch() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        var (sw, d, v, full) = try playAndHalve(e, follow: true)
        try e.setParameter("surface", "wood")
        _ = try level(e, 1_500)   // the cross-fade
        XCTAssertEqual(Level.dB(try level(e, 1_500), over: full), -6.02, accuracy: 0.2, "the next case at the new gain")
        v.gain = 0.5
        XCTAssertEqual(Level.dB(try level(e, 1_500), over: full), -12.04, accuracy: 0.2, "a handle gain keeps the change")
        d.pitch = 1.5
        sw = try e.redefine(sw, as: d)
        XCTAssertEqual(try frequency(e) / 2_250, 1, accuracy: 0.005, "the playing case at the new pitch")
        try e.setParameter("surface", "gravel")
        _ = try level(e, 750)
        XCTAssertEqual(try frequency(e) / 750, 1, accuracy: 0.005, "the next case at the new pitch")
        XCTAssertEqual(Level.dB(try level(e, 750), over: full), -12.04, accuracy: 0.2)
        v.stop()
        try TestSignals.renderFrames(e, seconds: 0.1)
        XCTAssertEqual(e.activeVoiceCount, 0, "stopping the handle stops the case playing")
    }

    /// A switch's cases count as its voices: `instanceCount` without a limit, and a limit of 1
    /// (refuse) across a following switch's label change, when the case playing is another
    /// voice than the one the play started; `stopAllVoices` stops every case.
    func testASwitchsCountAndLimitSeeItsCases() throws {
        for follow in [false, true] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let sw = try makeSwitch(e, follow: follow)
            var d = sw.definition
            d.limit = .init(count: 1, steal: .refuse)
            d.name = "limited"
            let limited = try e.makeSound(d)
            _ = try e.play(sw)
            _ = try e.play(limited)
            try TestSignals.renderFrames(e, seconds: 0.05)
            XCTAssertEqual(e.instanceCount(of: sw), 1, "follow: \(follow)")
            XCTAssertEqual(e.instanceCount(of: limited), 1, "follow: \(follow)")
            XCTAssertFalse(try e.play(limited).isPlaying, "follow: \(follow): at its limit")
            try e.setParameter("surface", "wood")
            try TestSignals.renderFrames(e, seconds: 0.2)   // past the cross-fade
            XCTAssertEqual(e.instanceCount(of: sw), 1, "follow: \(follow)")
            XCTAssertEqual(e.instanceCount(of: limited), 1, "follow: \(follow)")
            XCTAssertFalse(try e.play(limited).isPlaying, "follow: \(follow): still at its limit after the label change")
            XCTAssertEqual(e.activeVoiceCount, 2)
            e.stopAllVoices()
            try TestSignals.renderFrames(e, seconds: 0.05)
            XCTAssertEqual(e.activeVoiceCount, 0, "follow: \(follow)")
        }
    }

    /// A switch whose case is a looping timeline (500 Hz at 0 s, 1,500 Hz at 0.02 s): both parts
    /// take the switch's gain × 0.5, and a handle gain set after keeps it (−12.04 dB).
    func testASwitchsTimelineCaseTakesItsNewGainInEveryPart() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood"]))
        let low = try tone(e, 500, "low").definition.clips[0], high = try tone(e, 1_500, "high").definition.clips[0]
        let engine = try e.makeSound(SoundDefinition(layers: [SoundLayer(clip: low), SoundLayer(clip: high, timing: .init(delay: 0.02))]))
        var sw = try e.makeSound(SoundDefinition(switch: SoundSwitch(parameter: "surface", cases: ["gravel": engine])))
        try e.setParameter("surface", "gravel")
        let v = try e.play(sw)
        let full = (try level(e, 500), try level(e, 1_500))
        XCTAssertGreaterThan(min(full.0, full.1), 0.05)
        var d = sw.definition
        d.gain = 0.5
        sw = try e.redefine(sw, as: d)
        XCTAssertEqual(Level.dB(try level(e, 500), over: full.0), -6.02, accuracy: 0.2, "the first part")
        XCTAssertEqual(Level.dB(try level(e, 1_500), over: full.1), -6.02, accuracy: 0.2, "the later part")
        v.gain = 0.5
        XCTAssertEqual(Level.dB(try level(e, 500), over: full.0), -12.04, accuracy: 0.2, "a handle gain keeps the change")
        XCTAssertEqual(Level.dB(try level(e, 1_500), over: full.1), -12.04, accuracy: 0.2)
    }
}
