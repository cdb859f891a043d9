@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The engine's own share of distance (a curve, `beyondMax: silent`) switched on after voices
/// started with plain settings, when the pool does no per-voice distance work yet; and the
/// curve table read while other threads add curves (lookups take no lock). Rendered on the
/// loopback device.
final class EngineDistanceTests: XCTestCase {
    /// Left-channel RMS after the change has settled.
    private func level(_ e: AudioEngine) throws -> Double {
        e.update()
        _ = try e.render(frames: 2_400)
        return Level.rms(try e.render(frames: 9_600), channels: 2)[0]
    }

    /// A curve given to an emitter whose voice started plain takes over from the model, and
    /// taking it away gives the model back: 10 m is −20 dB by the engine's inverse-clamped
    /// model, −12 dB by the curve.
    func testACurveGivenToAPlainEmittersVoiceMidPlayTakesOver() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(), name: "tone")
        let plain = SpatialProperties(position: Vector3(-10, 0, 0))
        let emitter = try e.makeEmitter(plain)
        _ = try e.play(tone, options: .init(loop: true, emitter: emitter))
        let byModel = try level(e)
        var curved = plain
        curved.curve = try AttenuationCurve(points: [(1, 0), (10, -12), (30, AttenuationCurve.silent)])
        emitter.properties = curved
        let byCurve = try level(e)
        XCTAssertEqual(Level.dB(byCurve) - Level.dB(byModel), 8, accuracy: 0.5, "model \(byModel), curve \(byCurve)")
        emitter.properties = plain
        XCTAssertEqual(Level.dB(try level(e)), Level.dB(byModel), accuracy: 0.3)
    }

    /// A voice at its own position given `beyondMax: silent` with a maximum distance it is past
    /// falls silent and goes virtual; back within range, it is heard again.
    func testBeyondMaxSilentGivenToAPositionedVoiceMidPlaySilencesIt() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(), name: "tone")
        let at10 = SpatialProperties(position: Vector3(-10, 0, 0))
        let voice = try e.play(tone, options: .init(loop: true, placement: .spatial(at10)))
        let heard = try level(e)
        XCTAssertGreaterThan(heard, 1e-3)
        e.setSpatialProperties(SpatialProperties(position: Vector3(-10, 0, 0), maxDistance: 5, beyondMax: .silent), of: voice)
        XCTAssertLessThan(try level(e), 1e-6)
        _ = try level(e)   // the release after the fade-out comes with the next update
        XCTAssertEqual(voice.status, .virtual)
        e.setSpatialProperties(SpatialProperties(position: Vector3(-4, 0, 0), maxDistance: 5, beyondMax: .silent), of: voice)
        _ = try level(e)
        XCTAssertGreaterThan(try level(e), heard, "4 m is louder than 10 m")
        XCTAssertEqual(voice.status, .real)
    }

    /// Curves interned on several threads at once while others are evaluated: every curve
    /// gives its own level, every time.
    func testCurvesAddedAndReadOnManyThreadsAtOnceKeepTheirLevels() throws {
        let threads = 8, perThread = 40
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var made: [(AttenuationCurve, Float)] = []
            for i in 0..<perThread {
                let dB = -Double(t * perThread + i) * 0.25 - 0.125   // distinct per curve
                guard let c = try? AttenuationCurve(points: [(0, dB), (1e9, dB)]) else {
                    failures.withLock { $0 += 1 }
                    continue
                }
                made.append((c, Float(pow(10, dB / 20))))
                for (curve, expected) in made where abs(curve.gain(atDistance: Float(i)) - expected) > expected * 1e-5 {
                    failures.withLock { $0 += 1 }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
    }
}
