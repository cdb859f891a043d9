@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Curves on the other properties (low-pass, reverb send, priority), on buses and emitters, and
/// with the game's own gain, measured on the loopback output (issue 28).
final class CurvePropertyTests: XCTestCase {
    private func amplitude(_ x: [Float], _ hz: Double) -> Double {
        var s = 0.0, c = 0.0
        for (k, v) in x.enumerated() {
            let w = 2 * Double.pi * hz * Double(k) / 48_000
            s += Double(v) * sin(w); c += Double(v) * cos(w)
        }
        return 2 * (s * s + c * c).squareRoot() / Double(x.count)
    }


    private func engine() throws -> AudioEngine {
        let e = try TestSignals.loopbackEngine()
        try e.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 0))
        return e
    }

    private func level(_ e: AudioEngine, _ hz: Double, right: Bool = false) throws -> Double {
        try TestSignals.renderFrames(e, seconds: 0.1)
        let out = try TestSignals.renderFrames(e, seconds: 0.1)
        let ch = stride(from: right ? 1 : 0, to: out.count, by: 2).map { out[$0] }
        return Level.dB(amplitude(ch, hz))
    }

    /// A low-pass curve takes the highs of a voice and leaves its lows; back open, both return.
    func testLowPassCurve() throws {
        let e = try engine()
        defer { e.shutdown() }
        let lo = try e.loadClip(TestSignals.sine(frequency: 200, amplitude: 0.2), name: "lo")
        let hi = try e.loadClip(TestSignals.sine(frequency: 9600, amplitude: 0.2), name: "hi")
        let muffle = ParameterCurve(parameter: "rpm", property: .lowPass, points: [.init(0, 1), .init(8000, 0.05)])
        let sound = try e.makeSound(SoundDefinition(layers: [SoundLayer(clip: lo), SoundLayer(clip: hi)], curves: [muffle]))
        _ = try e.play(sound, options: SoundPlayOptions(position: Vector3(0, 0, -1)))
        let open = (try level(e, 200), try level(e, 9600))
        try e.setParameter("rpm", 8000)
        let shut = (try level(e, 200), try level(e, 9600))
        XCTAssertEqual(shut.0, open.0, accuracy: 1, "the lows stay: \(open) → \(shut)")
        XCTAssertLessThan(shut.1 - open.1, -12, "the highs go: \(open) → \(shut)")
        try e.setParameter("rpm", 0)
        let again = (try level(e, 200), try level(e, 9600))
        XCTAssertEqual(again.1, open.1, accuracy: 0.5, "open again")
    }

    /// A bus curve shapes every voice on the bus, one already playing included; several gain
    /// curves add in dB (sound −6 and bus −10 → −16).
    func testBusCurveAddsToTheSoundsCurve() throws {
        let e = try engine()
        defer { e.shutdown() }
        let car = Bus("cars")
        try e.addBus(car)
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.2), name: "tone")
        let plain = try e.play(tone, options: PlayOptions(loop: true, bus: car))
        let before = try level(e, 500)
        try e.setCurves([ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, 0), .init(8000, -20)])], for: car)
        try e.setParameter("rpm", 4000)
        XCTAssertEqual(try level(e, 500) - before, -10, accuracy: 0.3, "a playing voice on the bus follows its curve")
        plain.stop()
        var d = SoundDefinition(clips: [tone], bus: car, loop: true)
        d.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, -12), .init(8000, 0)])]
        _ = try e.play(try e.makeSound(d))
        XCTAssertEqual(try level(e, 500) - before, -16, accuracy: 0.3, "−6 dB (sound) + −10 dB (bus)")
        try e.setCurves([], for: car)
        XCTAssertEqual(try level(e, 500) - before, -6, accuracy: 0.3, "the bus's curves removed")
        XCTAssertThrowsError(try e.setCurves([ParameterCurve(parameter: "speed", property: .gain, points: [.init(0, 0)])], for: car))
        XCTAssertThrowsError(try e.setCurves([], for: Bus("nope")))
    }

    /// An emitter's own value reaches its voices only; a voice's own value beats its emitter's.
    func testEmitterValues() throws {
        let e = try engine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.2), name: "tone")
        var d = SoundDefinition(clips: [tone], loop: true)
        d.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, 0), .init(8000, -40)])]
        let sound = try e.makeSound(d)
        let left = try e.makeEmitter(SpatialProperties(position: Vector3(-1, 0, 0)))
        let right = try e.makeEmitter(SpatialProperties(position: Vector3(1, 0, 0)))
        _ = try e.play(sound, options: SoundPlayOptions(emitter: left))
        let r = try e.play(sound, options: SoundPlayOptions(emitter: right))
        let l0 = try level(e, 500), r0 = try level(e, 500, right: true)
        try left.setParameter("rpm", 4000)
        XCTAssertEqual(try level(e, 500) - l0, -20, accuracy: 0.3, "the left emitter's voice follows its rpm")
        XCTAssertEqual(try level(e, 500, right: true) - r0, 0, accuracy: 0.3, "the right one does not")
        try r.setParameter("rpm", 8000)
        try e.setParameter("rpm", 2000, of: right)
        XCTAssertEqual(try level(e, 500, right: true) - r0, -40, accuracy: 0.5, "its own rpm beats its emitter's")
    }

    /// The game's own gain on a voice under a curve multiplies the curve's, and a priority curve
    /// moves the voice's priority.
    func testOwnGainAndPriority() throws {
        let e = try engine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.2), name: "tone")
        var d = SoundDefinition(clips: [tone], priority: 100, loop: true)
        d.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, 0), .init(8000, -20)]),
                    ParameterCurve(parameter: "rpm", property: .priority, points: [.init(0, 0), .init(8000, -100)])]
        let v = try e.play(try e.makeSound(d))
        let l0 = try level(e, 500)
        try e.setParameter("rpm", 8000)
        XCTAssertEqual(try level(e, 500) - l0, -20, accuracy: 0.3)
        v.gain = 0.5
        XCTAssertEqual(try level(e, 500) - l0, -26.02, accuracy: 0.3, "−6 dB of its own on the curve's −20 dB")
        XCTAssertEqual(e.read(v) { $0.priority }, 0)
        try e.setParameter("rpm", 4000)
        XCTAssertEqual(try level(e, 500) - l0, -16.02, accuracy: 0.3)
        XCTAssertEqual(e.read(v) { $0.priority }, 50, "100 − 50")
    }
}

extension CurvePropertyTests {
    /// A reverb-send curve scales a positioned voice's sends: in a hangar, the tail after a
    /// burst is 12 dB lower at a send level of 0.25 than at 1, the direct sound the same.
    func testReverbSendCurve() throws {
        let hangar = try ReverbZone(name: "hangar", shape: .box(center: Vector3(0, 5, 0), size: Vector3(40, 10, 40)),
                                    reverb: ReverbProperties.preset(named: "hangar"), fade: 2)
        func tail(rpm: Double) throws -> (direct: Double, tail: Double) {
            let e = try engine()
            defer { e.shutdown() }
            try e.setReverbZones([hangar])
            var noise = SplitMix64(seed: 3)
            let burst = (0..<4_800).map { _ in Int16((Double.random(in: -0.3...0.3, using: &noise) * 32767).rounded()) }
            let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(burst)), name: "burst")
            var d = SoundDefinition(clips: [clip])
            d.curves = [ParameterCurve(parameter: "rpm", property: .reverbSend, points: [.init(0, 1), .init(8000, 0.25)])]
            try e.setParameter("rpm", rpm)
            try TestSignals.renderFrames(e, seconds: 0.2)
            _ = try e.play(try e.makeSound(d), options: SoundPlayOptions(position: Vector3(0, 0, -2)))
            let out = MusicRender.left(try TestSignals.renderFrames(e, seconds: 1.0))
            return (Level.dB(Level.rms(out, 0..<4_000)), Level.dB(Level.rms(out, 19_200..<out.count)))
        }
        let full = try tail(rpm: 0), quarter = try tail(rpm: 8000)
        XCTAssertEqual(quarter.tail - full.tail, -12.04, accuracy: 1, "the sends at 0.25: \(full) → \(quarter)")
        XCTAssertEqual(quarter.direct, full.direct, accuracy: 1, "the direct sound unchanged")
    }
}

extension CurvePropertyTests {
    /// New curves for a playing sound (a designer's live edit): the voice is 12 dB down within one
    /// frame of the next update, the same voice playing on (its time runs on); a layer's curve too.
    func testCurvesChangedWhilePlaying() throws {
        let e = try engine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.2), name: "tone")
        let plain = try e.makeSound(SoundDefinition(clips: [tone], loop: true))
        let v = try e.play(plain)
        let before = try level(e, 500)
        let time = v.time ?? -1
        try e.setCurves([ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, -12)])], for: plain)
        e.update()
        _ = try e.render(frames: 800)   // the game frame of the update: OpenAL ramps the gain over its mix
        let out = MusicRender.left(try e.render(frames: 800))
        XCTAssertEqual(Level.dB(amplitude(out, 500)) - before, -12, accuracy: 0.3, "down by the end of the update's frame")
        XCTAssertEqual(v.status, .real)
        XCTAssertEqual(v.time ?? -1, time + 1_600.0 / 48_000, accuracy: 1e-4, "the same voice, its time running on")

        let hi = try e.loadClip(TestSignals.sine(frequency: 2_000, amplitude: 0.2), name: "hi")
        let pair = try e.makeSound(SoundDefinition(layers: [SoundLayer(clip: tone), SoundLayer(clip: hi)]))
        v.stop()
        _ = try e.play(pair)
        let a = (try level(e, 500), try level(e, 2_000))
        try e.setCurves([], layers: [[], [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, -20)])]], for: pair)
        let b = (try level(e, 500), try level(e, 2_000))
        XCTAssertEqual(b.0 - a.0, 0, accuracy: 0.3, "the first layer as it was")
        XCTAssertEqual(b.1 - a.1, -20, accuracy: 0.3, "the second layer's new curve")
        XCTAssertThrowsError(try e.setCurves([], layers: [[]], for: pair), "one list per layer")
        e.removeSound(plain)
        XCTAssertThrowsError(try e.setCurves([], for: plain)) { XCTAssertEqual($0 as? EarshotError, .soundRemoved) }
    }
}
