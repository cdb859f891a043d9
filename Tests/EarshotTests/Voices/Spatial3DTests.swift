@testable import Earshot
import EarshotMeasure
import XCTest

/// Emitters moving in 3D, cones and doppler, measured from loopback renders.
final class Spatial3DTests: XCTestCase {
    func testEmitterMovingFromRightToLeftMovesTheEnergy() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(), name: "tone")
        let car = try e.makeEmitter(SpatialProperties(position: Vector3(5, 0, -1)))
        _ = try e.play(tone, options: .init(loop: true, emitter: car))
        var out: [Float] = []
        let frames = 60                        // one second at 60 frames per second
        for f in 0..<frames {
            let x = 5 - 10 * Float(f) / Float(frames - 1)
            car.position = Vector3(x, 0, -1)
            e.update()
            out += try e.render(frames: 800)
        }
        let quarter = out.count / 4
        let start = Level.rms(Array(out[0..<quarter]), channels: 2)
        let end = Level.rms(Array(out[(out.count - quarter)...]), channels: 2)
        XCTAssertGreaterThan(Level.dB(start[1]) - Level.dB(start[0]), 6, "right first: \(start)")
        XCTAssertGreaterThan(Level.dB(end[0]) - Level.dB(end[1]), 6, "left at the end: \(end)")
    }

    func testConeAttenuatesByItsOuterGainBehind() throws {
        func level(facing direction: Vector3) throws -> Double {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let tone = try e.loadClip(TestSignals.sine(), name: "tone")
            let speaker = try e.makeEmitter(SpatialProperties(
                position: Vector3(0, 0, -5), direction: direction,
                coneInnerAngle: 60, coneOuterAngle: 120, coneOuterGain: 0.25))
            _ = try e.play(tone, options: .init(loop: true, emitter: speaker))
            e.update()
            _ = try e.render(frames: 2_400)
            return Level.rms(try e.render(frames: 9_600), channels: 2)[0]
        }
        let towards = try level(facing: Vector3(0, 0, 1))
        let away = try level(facing: Vector3(0, 0, -1))
        XCTAssertEqual(Level.dB(away) - Level.dB(towards), Level.dB(0.25), accuracy: 0.5)
        // The engine's own audibility agrees with what OpenAL did.
        let cone = SpatialProperties(position: Vector3(0, 0, -5), direction: Vector3(0, 0, -1),
                                     coneInnerAngle: 60, coneOuterAngle: 120, coneOuterGain: 0.25)
        XCTAssertEqual(cone.coneGain(listenerPosition: .zero), 0.25, accuracy: 1e-6)
    }

    func testDopplerRaisesThePitchOfAnApproachingSource() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let f0 = 1_000.0
        let tone = try e.loadClip(TestSignals.sine(frequency: f0, seconds: 1), name: "tone")
        let speed: Float = 20
        _ = try e.play(tone, options: .init(loop: true, position: Vector3(0, 0, -50), velocity: Vector3(0, 0, speed)))
        e.update()
        _ = try e.render(frames: 4_800)
        let out = try e.render(frames: 48_000)
        let measured = Self.frequency(of: out, channel: 0, sampleRate: 48_000)
        // OpenAL: f' = f · (c − D·v_listener) / (c − D·v_source), velocities along source→listener.
        let c = 343.3, expected = f0 * c / (c - Double(speed))
        XCTAssertEqual(measured / expected, 1, accuracy: 0.01, "measured \(measured) Hz, expected \(expected) Hz")
        XCTAssertGreaterThan(measured, f0 * 1.05)
    }

    /// Frequency from rising zero crossings (interpolated), over the whole signal.
    static func frequency(of samples: [Float], channel: Int, sampleRate: Double) -> Double {
        var crossings: [Double] = []
        let frames = samples.count / 2
        for f in 1..<frames {
            let a = samples[(f - 1) * 2 + channel], b = samples[f * 2 + channel]
            if a < 0, b >= 0 { crossings.append(Double(f - 1) + Double(-a / (b - a))) }
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) / ((last - first) / sampleRate)
    }
}
