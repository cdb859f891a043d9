@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Switch sounds measured on the loopback output (issue 41): the labelled case every time, per
/// emitter and globally, and a following loop cross-faded within its fade.
final class SwitchSoundTests: XCTestCase {
    private func left(_ x: [Float]) -> [Float] { stride(from: 0, to: x.count, by: 2).map { x[$0] } }

    private func pcm(_ frames: Int, _ value: (Int) -> Double) -> PCMAudio {
        PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16((0..<frames).map { Int16((value($0) * 32767).rounded()) }))
    }

    private func amplitude(_ x: ArraySlice<Float>, _ hz: Double) -> Double { ToneMeasure.amplitude(x, hz) }

    private func surface(_ e: AudioEngine) throws {
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood", "metal"]))
    }

    /// A following switch (fade 0.1 s) on two looping tones: 500 Hz on gravel, 1,500 Hz on wood.
    private func followingSwitch(_ e: AudioEngine) throws -> Sound {
        let tone = { (hz: Double, name: String) throws -> Sound in
            try e.makeSound(SoundDefinition(clips: [try e.loadClip(self.pcm(48_000) { 0.3 * sin(2 * .pi * hz * Double($0) / 48_000) },
                                                               name: name)], loop: true))
        }
        let gravel = try tone(500, "gravel"), wood = try tone(1_500, "wood")
        return try e.makeSound(SoundDefinition(switch: SoundSwitch(
            parameter: "surface", cases: ["gravel": gravel, "wood": wood], follow: true, fade: 0.1)))
    }

    /// 100 plays with the label set at random (globally, or on the emitter the play follows):
    /// each plays the labelled case — told apart by its level (blocks at 0.1, 0.2 and 0.4) — and
    /// a label without a case plays the default.
    func testASwitchPicksTheLabelledCaseEveryTime() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try surface(e)
        let levels = [0.1, 0.2, 0.4]
        let steps = try levels.enumerated().map { k, v in
            try e.makeSound(SoundDefinition(clips: [try e.loadClip(pcm(480) { _ in v }, name: "step\(k)")], name: "step\(k)"))
        }
        let sw = SoundSwitch(parameter: "surface", cases: ["gravel": steps[0], "wood": steps[1]], defaultCase: steps[2])
        let step = try e.makeSound(SoundDefinition(switch: sw, name: "footstep"))
        let player = try e.makeEmitter(SpatialProperties(position: Vector3(0, 0, -1)))
        // The gain of a centred play (the pan law): measured on the first case played directly.
        try e.play(steps[0])
        let g = Double(left(try e.render(frames: 960)).map { abs($0) }.max() ?? 0) / levels[0]
        XCTAssertGreaterThan(g, 0.3)
        var rng = SplitMix64(seed: 41)
        let labels = ["gravel", "wood", "metal"]
        var onEmitter = 0
        for n in 0..<100 {
            let label = labels[Int(rng.next() % 3)]
            let viaEmitter = n % 4 == 3
            var options = SoundPlayOptions()
            if viaEmitter {
                try e.setParameter("surface", labels[(labels.firstIndex(of: label)! + 1) % 3])   // the global differs
                try player.setParameter("surface", label)
                options = SoundPlayOptions(emitter: player)
                onEmitter += 1
            } else {
                try e.setParameter("surface", label)
            }
            let v = try e.play(step, options: options)
            XCTAssertEqual(v.status, .real)
            let x = left(try e.render(frames: 960))
            let peak = Double(x.map { abs($0) }.max() ?? 0) / g
            let heard = levels.indices.min { abs(log(peak / levels[$0])) < abs(log(peak / levels[$1])) }!
            XCTAssertEqual(heard, labels.firstIndex(of: label)!, "play \(n): \(label) (peak \(peak))")
            e.update()
        }
        XCTAssertEqual(onEmitter, 25)
        XCTAssertThrowsError(try e.setParameter("surface", "sand")) { XCTAssertTrue("\($0)".contains("gravel, wood, metal")) }
        let bad = SoundSwitch(parameter: "surface", cases: ["sand": steps[0]])
        XCTAssertThrowsError(try e.makeSound(SoundDefinition(switch: bad))) { XCTAssertTrue("\($0)".contains("sand")) }
    }

    /// A following switch on two looping tones (500 Hz on gravel, 1,500 Hz on wood): when the
    /// label changes, the old case is gone and the new one at its level by the end of the
    /// 0.1 s fade (plus the game frame that notices the change); half-way through, both sound.
    func testAFollowingLoopCrossFadesWithinItsFade() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try surface(e)
        let rolling = try followingSwitch(e)
        try e.setParameter("surface", "gravel")
        let v = try e.play(rolling)
        var x = left(try TestSignals.renderFrames(e, seconds: 0.3))
        let full = amplitude(x[4_800..<14_400], 500)
        XCTAssertGreaterThan(full, 0.1)
        XCTAssertLessThan(amplitude(x[4_800..<14_400], 1_500) / full, 0.001)
        let change = x.count
        try e.setParameter("surface", "wood")
        x += left(try TestSignals.renderFrames(e, seconds: 0.4))
        let frame = 800
        let after = (change + 4_800 + frame)..<(change + 4_800 + frame + 9_600)
        XCTAssertLessThan(Level.dB(amplitude(x[after], 500) / full), -60, "the old case is gone after the fade")
        XCTAssertEqual(Level.dB(amplitude(x[after], 1_500) / full), 0, accuracy: 0.5, "the new case at its level")
        let middle = (change + 2_400 - 480)..<(change + 2_400 + 480)
        XCTAssertGreaterThan(amplitude(x[middle], 500) / full, 0.2, "half-way: the old case still sounds")
        XCTAssertGreaterThan(amplitude(x[middle], 1_500) / full, 0.2, "half-way: the new case sounds")
        XCTAssertTrue(v.isPlaying, "the game's voice carries on across the change")
        // A label flipped every frame keeps only what plays (bounded, whatever the game does).
        for k in 0..<60 {
            try e.setParameter("surface", k % 2 == 0 ? "gravel" : "wood")
            try TestSignals.renderFrames(e, seconds: 1.0 / 60)
        }
        XCTAssertTrue(v.isPlaying)
        let parts = e.withAL { e.core.timelines.entries.map(\.parts.count) }
        XCTAssertEqual(parts.count, 1)
        XCTAssertLessThanOrEqual(parts.first ?? 0, 9, "ended cases are forgotten")
        v.stop()
        try TestSignals.renderFrames(e, seconds: 0.05)
        XCTAssertEqual(e.activeVoiceCount, 0, "stopping the handle stops the case playing")
    }

    /// A following switch played with a delay: the delay holds its first case only; a case taken
    /// on a label change starts at once (before, each next case waited the play's delay again).
    func testAFollowingSwitchPlayedWithADelayChangesCaseAtOnce() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try surface(e)
        let rolling = try followingSwitch(e)
        try e.setParameter("surface", "gravel")
        var delayed = SoundPlayOptions()
        delayed.delay = 0.25
        _ = try e.play(rolling, options: delayed)
        var x = left(try TestSignals.renderFrames(e, seconds: 0.5))
        XCTAssertLessThan(amplitude(x[0..<9_600], 500), 0.001, "the delay holds the first case")
        let full = amplitude(x[14_400..<24_000], 500)
        XCTAssertGreaterThan(full, 0.1)
        let change = x.count
        try e.setParameter("surface", "wood")
        x += left(try TestSignals.renderFrames(e, seconds: 0.4))
        let after = (change + 4_800 + 800)..<(change + 4_800 + 800 + 9_600)
        XCTAssertEqual(Level.dB(amplitude(x[after], 1_500) / full), 0, accuracy: 0.5,
                       "the new case at its level within the fade, not the play's delay later")
        XCTAssertLessThan(Level.dB(amplitude(x[after], 500) / full), -60)
    }
}
