import Earshot
import EarshotBanks
import EarshotMeasure
import EarshotTestSupport
import XCTest

/// Banks with game parameters: a layered car driven by `rpm`, its curves edited while it plays,
/// and `earshot audition` sweeping the parameter — measured per band on the loopback output.
final class BankParameterTests: XCTestCase {
    static func bank(high: String = "[[800, -30], [4000, 0]]") -> String {
        """
        parameters:
          rpm: { range: [0, 8000], default: 800, seek: 0 }
        clips: { low: audio/t200.wav, high: audio/t3000.wav }
        sounds:
          car:
            loop: true
            layers:
              - { clip: low, gain: { parameter: rpm, curve: [[800, 0], [4000, -30]] } }
              - { clip: high, gain: { parameter: rpm, curve: \(high) } }
        """
    }

    func fixture(_ name: String) throws -> BankFixture {
        let f = try BankFixture(name)
        // 0.25 s of 200 and 3000 Hz: whole periods, seamless loops.
        try SoxTone.write(to: f.path("audio/t200.wav"), frequency: 200, amplitude: 0.5, seconds: 0.25)
        try SoxTone.write(to: f.path("audio/t3000.wav"), frequency: 3000, amplitude: 0.5, seconds: 0.25)
        return f
    }

    /// The level of `hz` in channel 0 of `x` (interleaved stereo) between two frames, in dB.
    static func band(_ x: [Float], _ hz: Double, from: Int, to: Int) -> Double {
        let w = 2 * Double.pi * hz / 48_000
        var re = 0.0, im = 0.0
        for i in from..<to { re += Double(x[i * 2]) * cos(w * Double(i)); im += Double(x[i * 2]) * sin(w * Double(i)) }
        return Level.dB(max(2 * (re * re + im * im).squareRoot() / Double(to - from), 1e-12))
    }

    func frames(_ engine: AudioEngine, _ count: Int) throws -> [Float] {
        var out: [Float] = []
        for _ in 0..<count {
            engine.update(deltaTime: 800.0 / 48_000)
            out += try engine.render(frames: 800)
        }
        return out
    }

    func testALayeredCarFollowsRpmAndTakesItsCurveEditsWhilePlaying() throws {
        let f = try fixture("car")
        defer { f.remove() }
        let path = try f.write("car.yaml", Self.bank())
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank = try SoundBank(path: path, engine: engine)
        XCTAssertEqual(engine.parameterDefinitions.map(\.name), ["rpm"])
        _ = try XCTUnwrap(try bank.play("car"))
        let idle = try frames(engine, 12)
        let idleLow = Self.band(idle, 200, from: 2_400, to: 9_600), idleHigh = Self.band(idle, 3000, from: 2_400, to: 9_600)
        XCTAssertGreaterThan(idleLow - idleHigh, 25, "idle: the low layer")
        try engine.setParameter("rpm", 4000)
        _ = try frames(engine, 2)
        let revving = try frames(engine, 12)
        let high = Self.band(revving, 3000, from: 0, to: 9_600), low = Self.band(revving, 200, from: 0, to: 9_600)
        XCTAssertGreaterThan(high - low, 25, "4000 rpm: the high layer")
        XCTAssertEqual(high, idleLow, accuracy: 1)
        // The designer lowers the high layer's curve at 4000 rpm to −12 dB and saves.
        try f.write("car.yaml", Self.bank(high: "[[800, -30], [4000, -12]]"))
        XCTAssertEqual(try bank.reload(), BankChanges(changed: ["sounds.car"]))
        let voices = engine.activeVoiceCount
        _ = try frames(engine, 1)   // the frame of the edit
        let edited = try frames(engine, 12)
        XCTAssertEqual(Self.band(edited, 3000, from: 0, to: 9_600) - high, -12, accuracy: 0.5, "the curve edit, on the playing layer")
        XCTAssertEqual(Self.band(edited, 200, from: 0, to: 9_600), low, accuracy: 0.5, "the other layer as it was")
        XCTAssertEqual(engine.activeVoiceCount, voices, "the same two voices: nothing restarted")
        XCTAssertEqual(voices, 2)
        // A curve naming a parameter the bank does not define: refused with its line.
        try f.write("car.yaml", Self.bank().replacingOccurrences(of: "{ parameter: rpm, curve: [[800, -30]", with: "{ parameter: rmp, curve: [[800, -30]"))
        XCTAssertThrowsError(try bank.reload()) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(path):9:"), "\(error)")
            XCTAssertTrue("\(error)".contains("rmp"), "\(error)")
        }
        XCTAssertEqual(Self.band(try frames(engine, 6), 3000, from: 0, to: 4_800) - high, -12, accuracy: 0.5, "the refused edit changed nothing")
    }

    func testAuditionSweepsAParameter() throws {
        let f = try fixture("sweep")
        defer { f.remove() }
        let path = try f.write("car.yaml", Self.bank())
        let out = f.path("car.wav")
        let r = try CLIRunner.run("earshot", ["audition", path, "car", "--param", "rpm=800:4000:1", "--seconds", "1.5", "-o", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let audio = try SndFileDecoder.decode(path: out)
        guard case .int16(let s) = audio.samples else { return XCTFail("16-bit expected") }
        let x = s.map { Float($0) / 32_768 }
        // At the start the idle layer, after the one-second sweep the high one, 25 dB apart or more.
        XCTAssertGreaterThan(Self.band(x, 200, from: 0, to: 4_800) - Self.band(x, 3000, from: 0, to: 4_800), 25)
        XCTAssertGreaterThan(Self.band(x, 3000, from: 52_800, to: 72_000) - Self.band(x, 200, from: 52_800, to: 72_000), 25)
        // Half-way (2400 rpm) both layers sound, between their ends.
        let midLow = Self.band(x, 200, from: 23_000, to: 25_000), midHigh = Self.band(x, 3000, from: 23_000, to: 25_000)
        XCTAssertLessThan(abs(midLow - midHigh), 25)
    }
}

/// Bus settings a reload changes: a bus curve added (measured on the playing loop) and removed,
/// a ducking added and taken away again.
final class BankBusReloadTests: XCTestCase {
    func testBusCurvesAndDuckingsFollowTheBank() throws {
        let f = try BankFixture("buses")
        defer { f.remove() }
        func bank(_ buses: String) -> String {
            """
            parameters: { speed: { range: [0, 100], default: 50 } }
            clips: { tone: audio/a440.wav }
            buses:
            \(buses)
            sounds: { hum: { clips: [tone], loop: true, bus: cars } }
            """
        }
        let path = try f.write("b.yaml", bank("  cars: { gain: 0 }"))
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let bank0 = try SoundBank(path: path, engine: engine)
        _ = try bank0.play("hum")
        let before = Level.rms(try BankFixture.frames(engine, 4), from: 800)
        try f.write("b.yaml", bank("  cars: { gain: { parameter: speed, curve: [[0, 0], [100, -24]] }, ducks: { music: { level: -9 } } }"))
        XCTAssertEqual(try bank0.reload(), BankChanges(changed: ["buses.cars"]))
        _ = try BankFixture.frames(engine, 1)
        let curved = Level.rms(try BankFixture.frames(engine, 4), from: 800)
        XCTAssertEqual(Level.dB(curved, over: before), -12, accuracy: 0.5, "speed 50 on the bus curve: −12 dB on the playing loop")
        XCTAssertEqual(try engine.ducking(of: .music, by: Bus("cars"))?.level, -9)
        try f.write("b.yaml", bank("  cars: { gain: 0 }"))
        _ = try bank0.reload()
        _ = try BankFixture.frames(engine, 1)
        XCTAssertEqual(Level.dB(Level.rms(try BankFixture.frames(engine, 4), from: 800), over: before), 0, accuracy: 0.5, "the curve is gone")
        _ = try BankFixture.frames(engine, 60)   // the ducking's release
        XCTAssertNil(try engine.ducking(of: .music, by: Bus("cars")), "the ducking is gone")
    }
}
