import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotScenes
import Foundation
import XCTest

/// Distance settings per sound (issue 36.1, 36.2): a table of sounds with their own rolloffs,
/// maximum distances, models, curves and `beyondMax`, in one bank included by another with other
/// defaults and the buses the sounds use. Each sound is played at 1, 5, 10, 20 and 50 m by
/// position and on an emitter, rendered on the loopback device and measured against OpenAL's
/// formula with *that sound's* numbers.
final class BankDistanceTests: XCTestCase {
    /// An sfx.xml-like table: (id, rolloff, maxDistance, extra keys).
    static let table = """
        referenceDistance: 1
        rolloff: 0.1
        maxDistance: 300
        clips: { tone: audio/a440.wav }
        sounds:
          skid:      { clips: [tone], loop: true, bus: effects, rolloff: 0.5 }
          explosion: { clips: [tone], loop: true, bus: effects, rolloff: 0.05 }
          engine:    { clips: [tone], loop: true, bus: effects }
          horn:      { clips: [tone], loop: true, bus: effects, rolloff: 0.2, maxDistance: 15 }
          river:     { clips: [tone], loop: true, bus: effects, rolloff: 0.1, maxDistance: 20, beyondMax: silent }
          radio:     { clips: [tone], loop: true, bus: effects, rolloff: 0, maxDistance: 5, beyondMax: silent }
          gong:      { clips: [tone], loop: true, bus: effects, model: linearClamped, referenceDistance: 2, maxDistance: 40, rolloff: 1 }
          torch:     { clips: [tone], loop: true, bus: effects, curve: [[1, 0], [10, -12], [30, silent]] }
        """
    /// The including bank: other defaults (OpenAL's rolloff 1) and the bus the table's sounds use.
    static let game = """
        include: sfx.yaml
        rolloff: 1
        maxDistance: 1000
        buses: { effects: { gain: 0 } }
        """

    /// (rolloff, maxDistance, model, referenceDistance) of each table sound, as written above.
    static let numbers: [String: (rolloff: Float, max: Float, model: DistanceModel, ref: Float, silent: Bool)] = [
        "skid": (0.5, 300, .inverseClamped, 1, false), "explosion": (0.05, 300, .inverseClamped, 1, false),
        "engine": (0.1, 300, .inverseClamped, 1, false), "horn": (0.2, 15, .inverseClamped, 1, false),
        "river": (0.1, 20, .inverseClamped, 1, true), "radio": (0, 5, .inverseClamped, 1, true),
        "gong": (1, 40, .linearClamped, 2, false),
    ]

    /// OpenAL 1.1's formulas, written out here (not the engine's code) for the expectation.
    static func expected(_ id: String, at d: Float) -> Float {
        if id == "torch" {
            // The curve: 0 dB at 1 m, −12 dB at 10 m (linear in dB), then linear in amplitude to 0 at 30 m.
            if d <= 1 { return 1 }
            if d <= 10 { return powf(10, (-12 * (d - 1) / 9) / 20) }
            if d >= 30 { return 0 }
            return powf(10, -12.0 / 20) * (1 - (d - 10) / 20)
        }
        guard let n = numbers[id] else { return .nan }
        let c = min(max(d, n.ref), n.max)
        var g: Float
        switch n.model {
        case .linearClamped: g = max(0, 1 - n.rolloff * (c - n.ref) / (n.max - n.ref))
        default: g = n.ref / (n.ref + n.rolloff * (c - n.ref))
        }
        if n.silent, d > n.max { g *= max(0, 1 - (d - n.max) / (n.max * 0.1)) }
        return g
    }

    /// The right channel's RMS of a voice `play` starts at (d, 0, 0), after a few game frames.
    static func level(_ engine: AudioEngine, _ play: () throws -> Voice?) throws -> (rms: Double, status: VoiceStatus?) {
        let voice = try play()
        var out: [Float] = []
        for _ in 0..<4 {
            engine.update(deltaTime: 0.02)
            out = try engine.render(frames: 960)
        }
        let status = voice?.status
        voice?.stop()
        engine.update(deltaTime: 0.01)
        _ = try engine.render(frames: 960)
        return (Level.rms(out, channel: 1), status)
    }

    /// The two banks written and loaded into a loopback engine, and the reference level: the
    /// tone unattenuated, hard right at 1 m.
    static func loaded(_ name: String) throws -> (BankFixture, AudioEngine, SoundBank, Clip, Double) {
        let f = try BankFixture(name)
        try f.write("sfx.yaml", table)
        let path = try f.write("game.yaml", game)
        let engine = try BankFixture.engine()
        let bank = try SoundBank(path: path, engine: engine)
        let clip = try engine.loadClip(path: f.path("audio/a440.wav"))
        let reference = try level(engine) { try engine.play(clip, options: .init(loop: true, position: Vector3(1, 0, 0))) }.rms
        return (f, engine, bank, clip, reference)
    }

    func testEachIncludedSoundKeepsItsOwnDistanceSettingsByPositionAndOnAnEmitter() throws {
        let (f, engine, bank, clip, reference) = try Self.loaded("distance")
        defer { f.remove(); engine.shutdown() }
        _ = clip
        XCTAssertEqual(reference, 0.3535, accuracy: 0.01)
        var worst = 0.0
        for id in ["skid", "explosion", "engine", "horn", "river", "radio", "gong", "torch"] {
            for d: Float in [1, 5, 10, 20, 50] {
                let want = Self.expected(id, at: d)
                let byPosition = try Self.level(engine) { try bank.play(id, options: SoundPlayOptions(position: Vector3(d, 0, 0))) }
                let emitter = try engine.makeEmitter(SpatialProperties(position: Vector3(d, 0, 0)))
                let onEmitter = try Self.level(engine) { try bank.play(id, options: SoundPlayOptions(emitter: emitter)) }
                engine.removeEmitter(emitter)
                for (how, got) in [("position", byPosition), ("emitter", onEmitter)] {
                    if want == 0 {
                        // Past a silent maximum (or a curve's silence): ≤ −100 dB, and virtual.
                        XCTAssertLessThanOrEqual(Level.dB(max(got.rms, 1e-12) / reference), -100, "\(id) at \(d) m (\(how))")
                        XCTAssertEqual(got.status, .virtual, "\(id) at \(d) m (\(how)) should be virtual")
                    } else {
                        let error = abs(Level.dB(got.rms / reference) - Level.dB(Double(want)))
                        worst = max(worst, error)
                        XCTAssertLessThan(error, 0.1, "\(id) at \(d) m (\(how)): \(Level.dB(got.rms / reference)) dB, want \(Level.dB(Double(want))) dB")
                    }
                }
            }
        }
        print("BankDistanceTests: worst deviation from OpenAL's formula \(String(format: "%.4f", worst)) dB over 8 sounds × 5 distances × 2 placements")
        // The issue's two cases, in numbers: a skid −14.81 dB at 10 m (not the emitter default's
        // −20.00), an explosion −3.23 dB (not the includer's −20.00).
        XCTAssertEqual(Level.dB(Double(Self.expected("skid", at: 10))), -14.81, accuracy: 0.01)
        XCTAssertEqual(Level.dB(Double(Self.expected("explosion", at: 10))), -3.23, accuracy: 0.01)
    }

    /// A play's options over what an emitter sets explicitly over the sound over its bank's
    /// defaults over the engine's — measured at 10 m.
    func testPrecedencePlayOverEmitterOverSoundOverBank() throws {
        let (f, engine, bank, clip, reference) = try Self.loaded("precedence")
        defer { f.remove(); engine.shutdown() }
        let at = Vector3(10, 0, 0)
        // The bank's default (rolloff 0.1): −5.58 dB; the sound's own (skid, 0.5): −14.81 dB.
        XCTAssertEqual(Level.dB(try Self.level(engine) { try bank.play("engine", options: SoundPlayOptions(position: at)) }.rms, over: reference), -5.58, accuracy: 0.1)
        // An emitter that sets rolloff 2 explicitly overrides the sound: 1 / 19 → −25.58 dB.
        let loud = try engine.makeEmitter(SpatialProperties(position: at, rolloff: 2))
        XCTAssertEqual(Level.dB(try Self.level(engine) { try bank.play("skid", options: SoundPlayOptions(emitter: loud)) }.rms, over: reference), -25.58, accuracy: 0.1)
        // A play's own setting overrides the emitter's: rolloff 0 → 0 dB.
        var options = SoundPlayOptions(emitter: loud)
        options.distance = SpatialProperties(rolloff: 0)
        XCTAssertEqual(Level.dB(try Self.level(engine) { try bank.play("skid", options: options) }.rms, over: reference), 0, accuracy: 0.1)
        // A play's settings OpenAL must never see are refused, on an emitter too.
        options.distance = SpatialProperties(rolloff: -1)
        XCTAssertThrowsError(try bank.play("skid", options: options)) { error in
            guard case .engine(.invalidArgument(let why)) = error as? BankError else { return XCTFail("\(error)") }
            XCTAssertTrue(why.hasPrefix("distance settings"), why)
        }
        // A clip on that emitter takes all of the emitter's settings (it has none of its own).
        XCTAssertEqual(Level.dB(try Self.level(engine) { try engine.play(clip, options: .init(loop: true, emitter: loud)) }.rms, over: reference), -25.58, accuracy: 0.1)
        // An emitter's explicit beyondMax silences a sound that holds: past 15 m × 1.1 it is virtual.
        let far = try engine.makeEmitter(SpatialProperties(position: Vector3(30, 0, 0), maxDistance: 15, beyondMax: .silent))
        let silenced = try Self.level(engine) { try bank.play("engine", options: SoundPlayOptions(emitter: far)) }
        XCTAssertLessThan(silenced.rms, 1e-6)
        XCTAssertEqual(silenced.status, .virtual)
    }

    /// `beyondMax: silent` fades over its margin with no click: an emitter moving from 19 to 23 m
    /// away (the river: max 20 m, silent from 22 m) in 50 steps changes its level by less than
    /// 1.5 dB a step until the last audible one, and every step's samples stay as smooth as the tone.
    func testSilentPastMaxFadesOverItsMarginWithoutAStep() throws {
        let (f, engine, bank, _, _) = try Self.loaded("margin")
        defer { f.remove(); engine.shutdown() }
        let emitter = try engine.makeEmitter(SpatialProperties(position: Vector3(19, 0, 0)))
        let voice = try XCTUnwrap(try bank.play("river", options: SoundPlayOptions(emitter: emitter)))
        var levels: [Double] = []
        var maxStep: Float = 0
        var last: Float?
        for step in 0...50 {
            emitter.position = Vector3(19 + Float(step) * 4 / 50, 0, 0)
            engine.update(deltaTime: 0.02)
            let out = try engine.render(frames: 960)
            levels.append(Level.rms(out, channel: 1))
            for i in 0..<960 {
                if let l = last { maxStep = max(maxStep, abs(out[i * 2 + 1] - l)) }
                last = out[i * 2 + 1]
            }
        }
        // A 440 Hz tone of amplitude ≤ 0.5 moves at most 2π·440/48000·0.5 ≈ 0.029 per sample.
        XCTAssertLessThan(maxStep, 0.03, "a step in the samples: a click")
        XCTAssertLessThan(levels.last ?? 1, 1e-6)
        XCTAssertEqual(voice.status, .virtual)
        // The fade is spread over the margin: several frames between full level and silence.
        let fading = levels.filter { $0 > 1e-6 && $0 < levels[0] * 0.9 }.count
        XCTAssertGreaterThanOrEqual(fading, 10, "\(levels)")
        // Coming back within range, it is heard again.
        emitter.position = Vector3(10, 0, 0)
        _ = try BankFixture.frames(engine, 4)
        XCTAssertEqual(voice.status, .real)
    }

    /// In a scene, an emitter without distance keys of its own plays an included sound with the
    /// sound's settings (a skid −14.81 dB at 10 m, not the emitter default's −20.00), and an
    /// included sound keeps its bank's defaults over the scene's; an emitter's own keys win.
    func testASceneEmitterPlaysTheSoundsOwnSettings() throws {
        let f = try BankFixture("scene-distance")
        defer { f.remove() }
        try f.write("sfx.yaml", Self.table)
        let scenePath = try f.write("scene.yaml", """
            duration: 0.3
            include: sfx.yaml
            buses: { effects: {} }
            emitters:
              ref:   { clip: tone, loop: true, position: [1, 0, 0], start: 0 }
              skid:  { clip: skid, position: [10, 0, 0], start: 0 }
              boom:  { clip: explosion, position: [10, 0, 0], start: 0 }
              loud:  { clip: skid, position: [10, 0, 0], rolloff: 2, start: 0 }
              river: { clip: river, position: [30, 0, 0], start: 0 }
            """)
        var levels: [String: Double] = [:]
        for solo in ["ref", "skid", "boom", "loud", "river"] {
            // One emitter at a time: the scene with the others taken out.
            var scene = try Scene.load(path: scenePath)
            scene.emitters = scene.emitters.filter { $0.id == solo }
            let out = f.path("\(solo).wav")
            _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
            let audio = try SndFileDecoder.decode(path: out)
            guard case .float32(let s) = audio.samples else { return XCTFail("not float") }
            levels[solo] = Level.rms(s, channel: 1, from: 4800, to: 12_000)
        }
        let ref = try XCTUnwrap(levels["ref"])
        XCTAssertEqual(Level.dB(try XCTUnwrap(levels["skid"]) / ref), -14.81, accuracy: 0.1)
        XCTAssertEqual(Level.dB(try XCTUnwrap(levels["boom"]) / ref), -3.23, accuracy: 0.1)
        XCTAssertEqual(Level.dB(try XCTUnwrap(levels["loud"]) / ref), -25.58, accuracy: 0.1)
        XCTAssertLessThan(try XCTUnwrap(levels["river"]), ref * 1e-5)
        // `validate` says so, with the river's own settings (the emitter gives none).
        let warnings = try Scene.load(path: scenePath).warnings().map(\.description)
        XCTAssertTrue(warnings.contains { $0.contains("emitters.river: never comes within maxDistance (20.0 m; closest 30.0 m): beyondMax: silent, it is never heard") }, "\(warnings)")
    }
}
