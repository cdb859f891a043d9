import Earshot
import EarshotMeasure
import XCTest

/// A mono tone heard through OpenAL Soft's loopback device, measured per channel.
final class SpatialRenderTests: XCTestCase {
    private func renderTone(at position: Vector3, frames: Int = 9_600) throws -> [Double] {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let tone = try engine.loadClip(TestSignals.sine(), name: "tone")
        _ = try engine.play(tone, options: .init(loop: true, position: position))
        _ = try engine.render(frames: 2_400)   // let the mixer's gain ramp settle
        return Level.rms(try engine.render(frames: frames), channels: 2)
    }

    func testRightLeftAndFront() throws {
        let right = try renderTone(at: Vector3(3, 0, 0))
        XCTAssertGreaterThanOrEqual(Level.dB(right[1]) - Level.dB(right[0]), 20, "\(right)")
        let left = try renderTone(at: Vector3(-3, 0, 0))
        XCTAssertGreaterThanOrEqual(Level.dB(left[0]) - Level.dB(left[1]), 20, "\(left)")
        let front = try renderTone(at: Vector3(0, 0, -3))
        XCTAssertEqual(Level.dB(front[0]), Level.dB(front[1]), accuracy: 0.5, "\(front)")
        XCTAssertGreaterThan(front[0], 0.01)
    }

    func testInverseClampedAttenuationAtTenMetres() throws {
        // Straight ahead at 1 m (the reference distance) and at 10 m: the ratio is the model's gain.
        let near = try renderTone(at: Vector3(0, 0, -1))
        let far = try renderTone(at: Vector3(0, 0, -10))
        let measured = Level.dB(far[0]) - Level.dB(near[0])
        let expected = Level.dB(Double(DistanceModel.inverseClamped.gain(distance: 10, referenceDistance: 1, maxDistance: .greatestFiniteMagnitude, rolloff: 1)))
        XCTAssertEqual(expected, -20, accuracy: 0.001)
        XCTAssertEqual(measured, expected, accuracy: 0.5)
    }

    func testRequestAboveDefaultCapYieldsThatManySources() throws {
        let engine = try TestSignals.loopbackEngine { $0.maxRealVoices = 1024 }
        defer { engine.shutdown() }
        XCTAssertGreaterThanOrEqual(engine.context.grantedMonoSources, 1024)
        let tone = try engine.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")
        var voices: [Voice] = []
        for i in 0..<1024 {
            voices.append(try engine.play(tone, options: .init(gain: 0.001, loop: true, position: Vector3(Float(i % 7), 0, -2))))
        }
        XCTAssertEqual(engine.activeVoiceCount, 1024)
        XCTAssertTrue(voices.allSatisfy(\.isPlaying))
        // Playing is not enough (a virtual voice plays too): every one holds a real source and is heard.
        engine.update()
        XCTAssertEqual(engine.stats.realVoices, 1024, "every voice on a real source")
        XCTAssertEqual(engine.stats.virtualVoices, 0)
        XCTAssertTrue(voices.allSatisfy { $0.status == .real })
        let out = try engine.render(frames: 4_800)
        XCTAssertGreaterThan(Level.rms(out, channels: 2)[0], 0.01, "1,024 quiet voices add up to a tone")
    }
}
