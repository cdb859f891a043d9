import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotTestSupport
import XCTest

/// `AudioEngine.redefine(_:as:)` and `redefine(_:)` under what banks reload: curves added to and
/// changed on playing voices, the layers of a layered sound, measured on the loopback output.
final class SoundRedefineTests: XCTestCase {
    static let frame = 800

    /// Renders `frames` game frames (update + render each) and returns the output.
    func frames(_ engine: AudioEngine, _ count: Int) throws -> [Float] {
        var out: [Float] = []
        for _ in 0..<count {
            engine.update(deltaTime: Double(Self.frame) / 48_000)
            out += try engine.render(frames: Self.frame)
        }
        return out
    }

    /// The amplitude of `frequency` in channel 0 (a Goertzel over the whole buffer).
    func amplitude(_ x: [Float], _ frequency: Double) -> Double {
        let n = x.count / 2
        let w = 2 * Double.pi * frequency / 48_000
        var re = 0.0, im = 0.0
        for i in 0..<n { re += Double(x[i * 2]) * cos(w * Double(i)); im += Double(x[i * 2]) * sin(w * Double(i)) }
        return 2 * (re * re + im * im).squareRoot() / Double(n)
    }

    func testCurvesReachVoicesThatPlayAlready() throws {
        let f = try BankFixture("curves")
        defer { f.remove() }
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        try engine.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 2000))
        let tone = try engine.loadClip(path: f.path("audio/a440.wav"))
        let hum = try engine.makeSound(SoundDefinition(clips: [tone], loop: true))
        _ = try engine.play(hum)
        let before = Level.rms(try frames(engine, 3), from: Self.frame)
        // A gain curve added by an edit: −12 dB at rpm 2000 — on the voice that plays.
        var d = hum.definition
        d.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, 0), .init(2000, -12), .init(4000, 0)])]
        let tuned = try engine.redefine(hum, as: d)
        let after = Level.rms(try frames(engine, 3), from: Self.frame)
        XCTAssertEqual(Level.dB(after, over: before), -12, accuracy: 0.5)
        // The curve edited again: −6 dB there; and the parameter still drives it.
        d.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, 0), .init(2000, -6), .init(4000, 0)])]
        _ = try engine.redefine(tuned, as: d)
        XCTAssertEqual(Level.dB(Level.rms(try frames(engine, 3), from: Self.frame), over: before), -6, accuracy: 0.5)
        try engine.setParameter("rpm", 4000)
        XCTAssertEqual(Level.dB(Level.rms(try frames(engine, 3), from: Self.frame), over: before), 0, accuracy: 0.5)
        // A curve naming an undefined parameter is refused, nothing changed.
        d.curves = [ParameterCurve(parameter: "rmp", property: .gain, points: [.init(0, -40)])]
        XCTAssertThrowsError(try engine.redefine(tuned, as: d)) { error in
            guard case .unknownParameter(let name, let nearest)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertEqual(name, "rmp")
            XCTAssertEqual(nearest, "rpm")
        }
        XCTAssertEqual(Level.dB(Level.rms(try frames(engine, 3), from: Self.frame), over: before), 0, accuracy: 0.5)
    }

    func testEachLayerTakesItsNewGain() throws {
        let f = try BankFixture("layers")
        defer { f.remove() }
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let low = try engine.loadClip(path: f.path("audio/a440.wav"))
        try SoxTone.write(to: f.path("audio/a1200.wav"), frequency: 1200, amplitude: 0.5, seconds: 0.25)
        let high = try engine.loadClip(path: f.path("audio/a1200.wav"))
        let engineSound = try engine.makeSound(SoundDefinition(layers: [SoundLayer(clip: low), SoundLayer(clip: high)]))
        _ = try engine.play(engineSound)
        let before = try frames(engine, 6)
        var d = engineSound.definition
        d.layers[1].gain = 0.25   // the high layer −12 dB; the low one as it was
        _ = try engine.redefine(engineSound, as: d)
        _ = try frames(engine, 1)
        let after = try frames(engine, 6)
        XCTAssertEqual(Level.dB(amplitude(after, 1200), over: amplitude(before, 1200)), -12, accuracy: 0.5)
        XCTAssertEqual(Level.dB(amplitude(after, 440), over: amplitude(before, 440)), 0, accuracy: 0.5)
        // The two layers are still the ones that started: both still sounding.
        XCTAssertEqual(engine.activeVoiceCount, 2)
    }

    /// The designer's case (issue 35): a car whose idle layer falls to −40 dB at 3000 rpm gets a
    /// −12 dB gain edit at 3000 rpm; back at 800 rpm the idle layer is 12 dB under where it was,
    /// not 12 + 40 (the edit scaled a pool gain that held the curve's value, measured −48.9).
    func testGainEditUnderCurvesScalesOnlyTheOwnGain() throws {
        let f = try BankFixture("gain-under-curves")
        defer { f.remove() }
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        try engine.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 800))
        let idleClip = try engine.loadClip(path: f.path("audio/a440.wav"))
        try SoxTone.write(to: f.path("audio/a1200.wav"), frequency: 1200, amplitude: 0.5, seconds: 0.25)
        let highClip = try engine.loadClip(path: f.path("audio/a1200.wav"))
        let idle = SoundLayer(clip: idleClip, curves: [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(800, 0), .init(3000, -40)])])
        let high = SoundLayer(clip: highClip, curves: [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(800, -20), .init(3000, 0)])])
        let car = try engine.makeSound(SoundDefinition(layers: [idle, high]))
        _ = try engine.play(car)
        _ = try frames(engine, 2)
        let at800 = try frames(engine, 6)
        try engine.setParameter("rpm", 3000)
        _ = try frames(engine, 2)
        let at3000 = try frames(engine, 6)
        XCTAssertEqual(Level.dB(amplitude(at3000, 440), over: amplitude(at800, 440)), -40, accuracy: 0.5, "the idle curve")
        var d = car.definition
        d.gain = 0.25   // −12 dB, edited at 3000 rpm
        let edited = try engine.redefine(car, as: d)
        _ = try frames(engine, 1)
        let edited3000 = try frames(engine, 6)
        XCTAssertEqual(Level.dB(amplitude(edited3000, 1200), over: amplitude(at3000, 1200)), -12, accuracy: 0.5)
        XCTAssertEqual(Level.dB(amplitude(edited3000, 440), over: amplitude(at3000, 440)), -12, accuracy: 0.5)
        try engine.setParameter("rpm", 800)
        _ = try frames(engine, 2)
        let edited800 = try frames(engine, 6)
        XCTAssertEqual(Level.dB(amplitude(edited800, 440), over: amplitude(at800, 440)), -12, accuracy: 0.5, "the idle layer")
        XCTAssertEqual(Level.dB(amplitude(edited800, 1200), over: amplitude(at800, 1200)), -12, accuracy: 0.5, "the high layer")
        // The edit undone at 3000 rpm, then the game's own gain on the voice: each layer where it was.
        try engine.setParameter("rpm", 3000)
        _ = try frames(engine, 1)
        d.gain = 1
        _ = try engine.redefine(edited, as: d)
        try engine.setParameter("rpm", 800)
        _ = try frames(engine, 2)
        let undone = try frames(engine, 6)
        XCTAssertEqual(Level.dB(amplitude(undone, 440), over: amplitude(at800, 440)), 0, accuracy: 0.5)
        XCTAssertEqual(Level.dB(amplitude(undone, 1200), over: amplitude(at800, 1200)), 0, accuracy: 0.5)
        XCTAssertEqual(engine.activeVoiceCount, 2, "the layers that started still play")
    }

    /// A pitch edit on looping voices — one plain, one under a curve — keeps ``Voice/time`` across
    /// the loops it already went round: the time played counts at the old pitch, the rest at the new.
    func testPitchEditKeepsVoiceTimeAcrossLoops() throws {
        let f = try BankFixture("pitch-time")
        defer { f.remove() }
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        try engine.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000, defaultValue: 800))
        let tone = try engine.loadClip(path: f.path("audio/a440.wav"))   // 0.25 s
        let plain = try engine.makeSound(SoundDefinition(clips: [tone], loop: true))
        var curvedDefinition = SoundDefinition(clips: [tone], loop: true)
        curvedDefinition.curves = [ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, -6)])]
        let curved = try engine.makeSound(curvedDefinition)
        let voices = [try engine.play(plain), try engine.play(curved)]
        _ = try frames(engine, 39)   // 0.65 s: two loops round
        let frame = 1.0 / 48_000
        for v in voices { XCTAssertEqual(try XCTUnwrap(v.time), 0.65, accuracy: 2 * frame) }
        for sound in [plain, curved] {
            var d = sound.definition
            d.pitch = 2
            _ = try engine.redefine(sound, as: d)
        }
        for v in voices { XCTAssertEqual(try XCTUnwrap(v.time), 0.65, accuracy: 2 * frame, "the loops played stay counted") }
        _ = try frames(engine, 6)   // 0.1 s at pitch 2
        for v in voices { XCTAssertEqual(try XCTUnwrap(v.time), 0.85, accuracy: 2 * frame) }
    }

    /// A bank saved with a switch's `gain:` changed reaches its playing cases, following or not:
    /// each loop −6 dB within a frame, no restart.
    func testASavedSwitchGainReachesItsPlayingCases() throws {
        let f = try BankFixture("switch")
        defer { f.remove() }
        func bank(_ gain: String) -> String {
            """
            clips: { tone: audio/a440.wav, k1: audio/k1.wav }
            parameters: { surface: { labels: [gravel, wood] } }
            sounds:
              hum: { clips: [tone], loop: true }
              whine: { clips: [k1], loop: true }
              rolling: { switch: { parameter: surface, cases: { gravel: hum } }, gain: \(gain) }
              sliding: { switch: { parameter: surface, cases: { gravel: whine }, follow: true }, gain: \(gain) }
            """
        }
        let path = try f.write("game.yaml", bank("0"))
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let b = try SoundBank(path: path, engine: engine)
        defer { b.unload() }
        try engine.setParameter("surface", "gravel")
        XCTAssertEqual(try b.play("rolling")?.isPlaying, true)
        XCTAssertEqual(try b.play("sliding")?.isPlaying, true)
        let before = try frames(engine, 6)
        try f.write("game.yaml", bank("-6"))
        _ = try b.reload()
        _ = try frames(engine, 1)
        let after = try frames(engine, 6)
        XCTAssertEqual(Level.dB(amplitude(after, 440), over: amplitude(before, 440)), -6, accuracy: 0.2, "the non-following switch's case")
        XCTAssertEqual(Level.dB(amplitude(after, 1000), over: amplitude(before, 1000)), -6, accuracy: 0.2, "the following switch's case")
    }
}
