import Earshot
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
}
