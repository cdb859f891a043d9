@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Reverb zones through the engine on a loopback device: positioned voices get the zone's tail,
/// panned voices stay dry, the listener leaving the zone takes the tail away, and a device loss
/// brings it back.
final class ReverbZoneEngineTests: XCTestCase {
    private let rate = 48_000

    /// A 10 ms burst of a 700 Hz tone.
    private func burst() -> PCMAudio { TestSignals.sine(frequency: 700, amplitude: 0.8, seconds: 0.01, sampleRate: rate) }

    private func hangar(fade: Float = 2) throws -> ReverbZone {
        try ReverbZone(name: "hangar", shape: .box(center: Vector3(0, 5, 0), size: Vector3(40, 10, 40)),
                       reverb: ReverbProperties.preset(named: "hangar"), fade: fade)
    }

    private func render(_ e: AudioEngine, seconds: Double) throws -> [Float] { try TestSignals.renderFrames(e, seconds: seconds) }

    /// RMS of interleaved stereo between `from` and `to` seconds.
    private func level(_ x: [Float], from: Double, to: Double) -> Double {
        Level.rms(x, Int(from * Double(rate)) * 2..<Int(to * Double(rate)) * 2)
    }

    /// Plays the burst once with `options` after half a second of settling, and returns the
    /// level of what follows it from 0.3 s to 1.0 s after (the tail; the burst itself is 10 ms).
    private func tail(_ e: AudioEngine, _ options: PlayOptions) throws -> Double {
        let clip = try e.loadClip(burst(), name: "burst")
        _ = try render(e, seconds: 0.5)
        _ = try e.play(clip, options: options)
        let out = try render(e, seconds: 1.0)
        return level(out, from: 0.3, to: 1.0)
    }

    func testPositionedVoiceInAHangarHasATailThatADryOneHasNot() throws {
        let dry = try TestSignals.loopbackEngine()
        defer { dry.shutdown() }
        XCTAssertTrue(dry.efxSupport.isAvailable)
        XCTAssertEqual(dry.efxSupport.maxAuxiliarySends, 2, "two sends for zones (no bus effects asked for)")
        let dryTail = try tail(dry, .init(position: Vector3(0, 0, -2)))

        let wet = try TestSignals.loopbackEngine()
        defer { wet.shutdown() }
        try wet.setReverbZones([hangar()])
        let wetTail = try tail(wet, .init(position: Vector3(0, 0, -2)))
        print("ReverbZoneEngineTests: tail 0.3–1 s after a burst: dry \(Level.dB(dryTail)) dB, hangar \(Level.dB(wetTail)) dB")
        XCTAssertLessThan(Level.dB(dryTail), -120, "no zone: nothing after the burst")
        XCTAssertGreaterThan(Level.dB(wetTail), -60, "in the hangar: a tail")

        // A panned voice (UI) with the same zone stays dry.
        let ui = try TestSignals.loopbackEngine()
        defer { ui.shutdown() }
        try ui.setReverbZones([hangar()])
        let panned = try tail(ui, .init(pan: 0))
        XCTAssertLessThan(Level.dB(panned), -120, "panned voices send nothing")
    }

    func testLeavingTheZoneTakesTheTailAway() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.setReverbZones([hangar()])
        var away = e.listener
        away.position = Vector3(0, 1.7, 60)   // 40 m outside, beyond its 2 m fade
        e.listener = away
        let t = try tail(e, .init(position: Vector3(0, 1.7, 58)))
        XCTAssertLessThan(Level.dB(t), -120, "outside every zone: dry")
        XCTAssertThrowsError(try e.setReverbZones([hangar(), hangar()])) { error in
            XCTAssertEqual(error as? EarshotError, .invalidArgument("two reverb zones are named \"hangar\""))
        }
        XCTAssertEqual(e.reverbZones.count, 1, "a refused change changes nothing")
    }

    /// A burst inside a zone decays as the zone's preset says: T60 in the 1 kHz band (where EAX
    /// reverb decays in exactly `decayTime`) within 20 % of it (the tolerance of
    /// ``EFXRenderTests/testDecayFollowsThePreset``, which explains it), and a long preset's
    /// tail outlasts a short one's by far.
    func testDecayFollowsTheZonesPreset() throws {
        var estimates: [String: Double] = [:]
        for (name, seconds) in [("hangar", 13.0), ("castle_smallroom", 3.0)] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            try e.setReverbZones([ReverbZone(name: name, shape: .sphere(center: .zero, radius: 30),
                                             reverb: ReverbProperties.preset(named: name), fade: 1)])
            let clip = try e.loadClip(burst(), name: "burst")
            _ = try render(e, seconds: 0.2)
            _ = try e.play(clip, options: .init(position: Vector3(0, 0, -2)))
            let out = try render(e, seconds: seconds)
            let mono = stride(from: 0, to: out.count, by: 2).map { out[$0] + out[$0 + 1] }
            let t60 = ReverbMeasures.decayTime(ReverbMeasures.midBand(mono, rate: rate), rate: rate)
            let preset = try ReverbProperties.preset(named: name)
            print("ReverbZoneEngineTests: \(name) zone, preset decayTime \(preset.decayTime) s, estimated T60 \(t60) s")
            XCTAssertEqual(t60, Double(preset.decayTime), accuracy: Double(preset.decayTime) * 0.2, name)
            estimates[name] = t60
        }
        XCTAssertGreaterThan(estimates["hangar"] ?? 0, 4 * (estimates["castle_smallroom"] ?? .infinity))
    }

    /// Bus filters and bus effects are there again after a device loss.
    func testBusEnvironmentSurvivesADeviceLoss() throws {
        let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true; $0.busEffects = true }
        defer { e.shutdown() }
        try e.setEffect(.echo(EchoProperties(delay: 0.12, lrDelay: 0, damping: 0, feedback: 0, spread: 0)), for: .voice)
        try e.setFilter(LowPassFilter(gain: 0.25, gainHF: 1), for: .voice)
        let clip = try e.loadClip(burst(), name: "burst")
        func echoAndDirect() throws -> (Double, Double) {
            _ = try render(e, seconds: 0.3)
            _ = try e.play(clip, options: .init(pan: 0, bus: .voice))
            let out = try render(e, seconds: 0.4)
            return (level(out, from: 0, to: 0.03), level(out, from: 0.11, to: 0.16))
        }
        let before = try echoAndDirect()
        e.simulateDeviceLoss()
        _ = try render(e, seconds: 1.0 / 60)
        for _ in 0..<500 {
            guard e.isDeviceLost else { break }
            _ = try render(e, seconds: 1.0 / 60)
            usleep(2_000)
        }
        XCTAssertFalse(e.isDeviceLost)
        let after = try echoAndDirect()
        print("ReverbZoneEngineTests: voice bus direct/echo before \(Level.dB(before.0))/\(Level.dB(before.1)) dB, after \(Level.dB(after.0))/\(Level.dB(after.1)) dB")
        XCTAssertEqual(Level.dB(after.0), Level.dB(before.0), accuracy: 0.5, "the bus filter is back")
        XCTAssertEqual(Level.dB(after.1), Level.dB(before.1), accuracy: 0.5, "the echo is back")
        XCTAssertGreaterThan(Level.dB(after.1), -60)
    }

    /// Device recovery with zones active: the tail is back after recovery.
    func testTheTailIsBackAfterADeviceLoss() throws {
        let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
        defer { e.shutdown() }
        try e.setReverbZones([hangar()])
        let clip = try e.loadClip(burst(), name: "burst")
        _ = try render(e, seconds: 0.3)
        e.simulateDeviceLoss()
        _ = try render(e, seconds: 1.0 / 60)
        XCTAssertTrue(e.isDeviceLost)
        for _ in 0..<500 {
            guard e.isDeviceLost else { break }
            _ = try render(e, seconds: 1.0 / 60)
            usleep(2_000)
        }
        XCTAssertFalse(e.isDeviceLost)
        _ = try render(e, seconds: 0.3)
        _ = try e.play(clip, options: .init(position: Vector3(0, 0, -2)))
        let out = try render(e, seconds: 1.0)
        XCTAssertGreaterThan(Level.dB(level(out, from: 0.3, to: 1.0)), -60, "the hangar's tail after recovery")
    }
}
