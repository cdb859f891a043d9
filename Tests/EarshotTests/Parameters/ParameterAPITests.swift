@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Game parameters (issue 28): definitions, errors, clamping, seek in playback time, curves.
final class ParameterAPITests: XCTestCase {
    private func rpm(_ e: AudioEngine, seek: Double = 4000) throws {
        try e.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 800, seek: seek))
    }

    /// Unknown names and bad values are typed errors naming the nearest parameter; values out of
    /// range are clamped; nothing traps, after shutdown too.
    func testErrorsAndClamping() throws {
        let e = try TestSignals.loopbackEngine()
        try rpm(e, seek: 0)
        XCTAssertThrowsError(try e.setParameter("rmp", 1)) { XCTAssertEqual($0 as? EarshotError, .unknownParameter(name: "rmp", nearest: "rpm")) }
        XCTAssertThrowsError(try e.parameter("speed")) { XCTAssertEqual($0 as? EarshotError, .unknownParameter(name: "speed", nearest: nil)) }
        XCTAssertThrowsError(try e.setParameter("rpm", .nan))
        XCTAssertThrowsError(try e.setParameter("rpm", 1, ramp: -1))
        XCTAssertThrowsError(try e.defineParameter(ParameterDefinition(name: "x", range: 0...1, defaultValue: 2)))
        XCTAssertThrowsError(try e.defineParameter(ParameterDefinition(name: "", range: 0...1)))
        XCTAssertThrowsError(try e.defineParameter(ParameterDefinition(name: "y", range: 0...Double.infinity)))
        try e.setParameter("rpm", 9000)
        XCTAssertEqual(try e.parameter("rpm"), 8000, "clamped to the range")
        try e.setParameter("rpm", -5)
        XCTAssertEqual(try e.parameter("rpm"), 0)
        // A curve on an undefined parameter is refused when the sound is made.
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.1, seconds: 1), name: "tone")
        var d = SoundDefinition(clips: [tone], loop: true)
        d.curves = [ParameterCurve(parameter: "speed", property: .gain, points: [.init(0, 0)])]
        XCTAssertThrowsError(try e.makeSound(d)) { XCTAssertEqual($0 as? EarshotError, .unknownParameter(name: "speed", nearest: nil)) }
        d.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(10, 0), .init(5, -3)])]
        XCTAssertThrowsError(try e.makeSound(d), "points out of order")
        d.curves = [ParameterCurve(parameter: "rpm", property: .pitch, points: [.init(0, 0)])]
        XCTAssertThrowsError(try e.makeSound(d), "a pitch factor of 0")
        let v = try e.play(tone, options: PlayOptions(loop: true))
        try v.setParameter("rpm", 100)
        XCTAssertEqual(try v.parameter("rpm"), 100)
        XCTAssertThrowsError(try v.setParameter("rpn", 1))
        let other = try TestSignals.loopbackEngine()
        defer { other.shutdown() }
        try rpm(other)
        XCTAssertThrowsError(try other.setParameter("rpm", 1, of: v)) { XCTAssertEqual($0 as? EarshotError, .wrongEngine) }
        e.shutdown()
        XCTAssertThrowsError(try e.setParameter("rpm", 1)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try v.setParameter("rpm", 1))
        XCTAssertEqual(e.parameterDefinitions, [])
    }

    /// The curve shapes between points and outside them.
    func testCurveShapes() {
        let pts: [ParameterCurve.Point] = [.init(0, -40), .init(2000, 0), .init(4000, -40)]
        let lin = ParameterCurve(parameter: "rpm", property: .gain, points: pts)
        XCTAssertEqual(lin.value(at: -5), -40)
        XCTAssertEqual(lin.value(at: 1000), -20)
        XCTAssertEqual(lin.value(at: 2000), 0)
        XCTAssertEqual(lin.value(at: 3000), -20)
        XCTAssertEqual(lin.value(at: 9000), -40)
        let s = ParameterCurve(parameter: "rpm", property: .gain, points: pts, shape: .sCurve)
        XCTAssertEqual(s.value(at: 1000), -20, accuracy: 1e-9)
        XCTAssertEqual(s.value(at: 500), -40 + 40 * (0.0625 * 2.5), accuracy: 1e-9)   // 3t² − 2t³ at t = ¼
        let x = ParameterCurve(parameter: "rpm", property: .gain, points: pts, shape: .exponential)
        XCTAssertLessThan(x.value(at: 1000), -30, "slow at first")
        XCTAssertEqual(x.value(at: 2000), 0)
    }

    /// `seek: 4000` takes 1.00 ± 0.02 s from 800 to 4800: read back, and heard through a gain
    /// curve linear in dB on the loopback output (10 ms game frames); frozen while paused.
    func testSeekTakesOneSecondInPlaybackTime() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try rpm(e)
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.25, seconds: 2), name: "tone")
        var d = SoundDefinition(clips: [tone], loop: true)
        d.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(800, -30), .init(4800, 0)])]
        let sound = try e.makeSound(d)
        _ = try e.play(sound)
        var levels: [Double] = []
        func frames(_ n: Int) throws {
            for _ in 0..<n {
                e.update()
                let out = try e.render(frames: 480)
                levels.append(Level.dB(Level.rms(MusicRender.left(out), 0..<480)))
            }
        }
        try frames(10)
        let before = levels.last!
        try e.setParameter("rpm", 4800)
        let start = levels.count
        try frames(50)
        XCTAssertEqual(try e.parameter("rpm"), 800 + 4000 * 0.5, accuracy: 1, "half way after 0.5 s")
        // Paused: the engine held, the value stands still.
        try e.pauseAll(except: [])
        for _ in 0..<30 { e.update(); _ = try e.render(frames: 480) }
        XCTAssertEqual(try e.parameter("rpm"), 2800, accuracy: 1, "frozen while paused")
        e.resumeAll()
        try frames(60)
        XCTAssertEqual(try e.parameter("rpm"), 4800)
        // Heard: the first 10 ms block at full level (within 0.25 dB), counted without the pause.
        let top = levels.last!
        XCTAssertEqual(top - before, 30, accuracy: 0.5, "the curve's 30 dB: \(before) → \(top)")
        guard let reached = levels[start...].firstIndex(where: { $0 >= top - 0.25 }) else { return XCTFail("never reached") }
        // The block that reaches it ends (reached − start + 1) × 10 ms of playback after the set
        // (30 dB per second: the last 0.25 dB is the last block's).
        let seconds = Double(reached - start + 1) * 0.01
        XCTAssertEqual(seconds, 1.0, accuracy: 0.02, "800 → 4800 at 4000/s took \(seconds) s")
    }

    /// A game that makes and removes sounds with curves (plain and layered) does not grow the
    /// engine's compiled curve sets (issue 35: one was left behind per cycle): flat over 1,000
    /// cycles. A voice the removed sound started plays on under its curves until it ends — its
    /// set is not handed to a new sound meanwhile.
    func testCurveSetsStayFlatOverMakeRemoveCycles() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try rpm(e, seek: 0)
        let tone = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.25, seconds: 1), name: "tone")
        let quiet = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, -30)])]
        func setCount() -> Int { e.withAL { e.core.parameters.sets.count } }
        // A voice of a removed sound keeps its −30 dB while new sounds take sets.
        var d = SoundDefinition(clips: [tone], loop: true)
        d.curves = quiet
        let old = try e.makeSound(d)
        _ = try e.play(old)
        e.update()
        let reference = Level.rms(MusicRender.left(try e.render(frames: 4800)), 0..<4800)
        e.removeSound(old)
        var loud = SoundDefinition(clips: [tone], loop: true)
        loud.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, 0)])]
        let new = try e.makeSound(loud)
        try e.play(new).stop()
        try e.setParameter("rpm", 1000)   // every voice evaluates again
        for _ in 0..<3 { e.update(); _ = try e.render(frames: 480) }
        let after = Level.rms(MusicRender.left(try e.render(frames: 4800)), 0..<4800)
        XCTAssertEqual(Level.dB(after) - Level.dB(reference), 0, accuracy: 0.1, "the removed sound's voice keeps its curve")
        e.stopAllVoices()
        e.removeSound(new)
        e.update()
        // Cycles: a plain sound with a curve, a layered one with a curve per layer.
        let layered = SoundDefinition(layers: [SoundLayer(clip: tone, curves: quiet), SoundLayer(clip: tone, curves: quiet)])
        func cycle() throws {
            for definition in [d, layered] {
                let sound = try e.makeSound(definition)
                let voice = try e.play(sound)
                e.update()
                e.removeSound(sound)
                voice.stop()
                _ = try e.render(frames: 64)   // the stop reaches the source; the voice ends
                e.update()
            }
        }
        for _ in 0..<10 { try cycle() }
        let settled = setCount()
        for _ in 0..<990 { try cycle() }
        XCTAssertEqual(setCount(), settled, "compiled curve sets after 1,000 make/remove cycles")
        // A cycle's 3 sets, the first section's 2, and a few whose layers end a frame later.
        XCTAssertLessThanOrEqual(settled, 10)
    }
}
