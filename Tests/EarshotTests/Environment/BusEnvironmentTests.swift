@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Bus filters and bus effects on loopback renders.
final class BusEnvironmentTests: XCTestCase {
    private let rate = 48_000

    private func render(_ e: AudioEngine, seconds: Double) throws -> [Float] { try TestSignals.renderFrames(e, seconds: seconds) }

    private func rms(_ x: [Float], from: Double, to: Double) -> Double {
        Level.rms(x, Int(from * Double(rate)) * 2..<Int(to * Double(rate)) * 2)
    }

    /// An 8 kHz tone on the sfx bus under a "water" filter loses its level; the same tone on
    /// the ui bus (panned) is untouched; removing the filter brings the sfx tone back.
    func testBusFilterMufflesEveryVoiceOnTheBus() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let high = try e.loadClip(TestSignals.sine(frequency: 8_000, amplitude: 0.3, seconds: 1), name: "8k")
        let sfx = try e.play(high, options: .init(loop: true, position: Vector3(0, 0, -1)))
        let before = rms(try render(e, seconds: 0.5), from: 0.1, to: 0.5)
        try e.setFilter(LowPassFilter(gain: 1, gainHF: 0.05), for: .sfx)
        XCTAssertEqual(try e.filter(for: .sfx), LowPassFilter(gain: 1, gainHF: 0.05))
        let under = rms(try render(e, seconds: 0.5), from: 0.2, to: 0.5)
        print("BusEnvironmentTests: 8 kHz on sfx \(Level.dB(before)) dB, under water \(Level.dB(under)) dB")
        XCTAssertLessThan(Level.dB(under), Level.dB(before) - 15)
        sfx.stop()
        _ = try render(e, seconds: 0.2)
        _ = try e.play(high, options: .init(loop: true, pan: 0, bus: .ui))
        let ui = rms(try render(e, seconds: 0.5), from: 0.2, to: 0.5)
        XCTAssertGreaterThan(Level.dB(ui), Level.dB(before) - 4, "the ui bus is not under water")
        try e.setFilter(.open, for: .sfx)
        XCTAssertThrowsError(try e.setFilter(LowPassFilter(gain: 2, gainHF: 1), for: .sfx))
        XCTAssertThrowsError(try e.setFilter(.open, for: Bus("nowhere")))
    }

    /// An echo on the voice bus repeats a click 120 ms later; the same click on sfx does not.
    func testEchoOnTheVoiceBus() throws {
        let e = try TestSignals.loopbackEngine { $0.busEffects = true }
        defer { e.shutdown() }
        try e.setEffect(.echo(EchoProperties(delay: 0.12, lrDelay: 0, damping: 0, feedback: 0, spread: 0)), level: 1, for: .voice)
        XCTAssertEqual(try e.effect(for: .voice), .echo(EchoProperties(delay: 0.12, lrDelay: 0, damping: 0, feedback: 0, spread: 0)))
        let click = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.8, seconds: 0.01), name: "click")
        func afterClick(bus: Bus) throws -> (direct: Double, echo: Double) {
            _ = try render(e, seconds: 0.3)
            _ = try e.play(click, options: .init(pan: 0, bus: bus))
            let out = try render(e, seconds: 0.5)
            return (rms(out, from: 0, to: 0.03), rms(out, from: 0.11, to: 0.16))
        }
        let voice = try afterClick(bus: .voice)
        let sfx = try afterClick(bus: .sfx)
        print("BusEnvironmentTests: voice bus direct \(Level.dB(voice.direct)) dB, 120 ms later \(Level.dB(voice.echo)) dB; sfx later \(Level.dB(sfx.echo)) dB")
        XCTAssertGreaterThan(Level.dB(voice.echo), Level.dB(voice.direct) - 20, "the echo arrives")
        XCTAssertLessThan(Level.dB(sfx.echo), -100, "no echo on sfx")
        // Removing the effect while sources still hold sends to it is safe; the echo is gone.
        try e.setEffect(nil, for: .voice)
        XCTAssertNil(try e.effect(for: .voice))
        let gone = try afterClick(bus: .voice)
        XCTAssertLessThan(Level.dB(gone.echo), -100)
        XCTAssertThrowsError(try e.setEffect(.echo(EchoProperties(delay: 1)), for: .voice))
    }

    /// The context is asked for the zones' sends, plus one for bus effects when asked for;
    /// without it a bus effect is refused with a message that says how to get one.
    func testSendsAreSplitBetweenZonesAndBusEffects() throws {
        let e = try TestSignals.loopbackEngine { $0.zoneSends = 15; $0.busEffects = true }
        defer { e.shutdown() }
        XCTAssertEqual(e.efxSupport.maxAuxiliarySends, 16)
        let f = try TestSignals.loopbackEngine()
        defer { f.shutdown() }
        XCTAssertEqual(f.efxSupport.maxAuxiliarySends, 2, "OpenAL Soft's default: two, for zones")
        XCTAssertThrowsError(try f.setEffect(.echo(EchoProperties()), for: .voice)) { error in
            XCTAssertEqual(error as? EarshotError,
                           .invalidArgument("bus effects need a send of their own: create the engine with Configuration.busEffects = true"))
        }
        let g = try TestSignals.loopbackEngine { $0.zoneSends = 0; $0.busEffects = true }
        defer { g.shutdown() }
        XCTAssertEqual(g.efxSupport.maxAuxiliarySends, 1)
        XCTAssertNoThrow(try g.setEffect(.reverb(ReverbProperties.preset(named: "room")), for: .ui))
        XCTAssertThrowsError(try TestSignals.loopbackEngine { $0.zoneSends = 16 })
    }
}
