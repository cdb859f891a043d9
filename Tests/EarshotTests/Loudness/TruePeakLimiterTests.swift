@testable import Earshot
import Foundation
import XCTest

/// The output limiter holds its ceiling exactly at render boundaries, and with
/// `Configuration.limiter.truePeak` holds the true peak under it (issue 40): loud noise voices
/// rendered through the loopback device in game frames, measured by the loudness meter.
final class TruePeakLimiterTests: XCTestCase {
    /// Mono white noise, deterministic (SplitMix64), at `amplitude`.
    static func noise(seed: UInt64, amplitude: Double, seconds: Double) -> PCMAudio {
        var rng = SplitMix64(seed: seed)
        let n = Int(seconds * 48_000)
        let samples = (0..<n).map { _ in Int16((amplitude * 32_767 * (Double(rng.next() % 65_536) / 32_768 - 1)).rounded()) }
        return PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples))
    }

    /// Two noise voices at gain 4 (the designer's case) and a tone near a quarter of the rate,
    /// rendered 1 s in 800-frame game frames.
    func loudRender(_ settings: LimiterSettings) throws -> [Float] {
        let e = try TestSignals.loopbackEngine { $0.limiter = settings }
        defer { e.shutdown() }
        let a = try e.loadClip(Self.noise(seed: 1, amplitude: 0.5, seconds: 1), name: "a")
        let b = try e.loadClip(Self.noise(seed: 2, amplitude: 0.5, seconds: 1), name: "b")
        let t = try e.loadClip(TestSignals.sine(frequency: 11_000, amplitude: 0.5, seconds: 1), name: "t")
        for clip in [a, b, t] { _ = try e.play(clip, options: .init(gain: 4)) }
        return try TestSignals.renderGameFrames(e, seconds: 1)
    }

    func testTruePeakCeilingHolds() throws {
        let plain = try loudRender(LimiterSettings(ceiling: -1))
        let held = try loudRender(LimiterSettings(ceiling: -1, truePeak: true))
        func measure(_ x: [Float]) throws -> LoudnessReading {
            let m = try LoudnessMeter(channels: 2, sampleRate: 48_000)
            try m.add(x)
            return m.reading()
        }
        let p = try measure(plain), h = try measure(held)
        // The sample-peak limiter holds −1 dBFS on every sample, but the points between them rise over it.
        XCTAssertEqual(p.samplePeak, -1, accuracy: 0.01)
        XCTAssertGreaterThan(p.truePeak, -0.5, "inter-sample peaks over the ceiling without truePeak")
        // The true-peak limiter keeps the 4× peak at the ceiling.
        XCTAssertLessThanOrEqual(h.truePeak, -1 + 0.01)
        XCTAssertGreaterThan(h.truePeak, -1.5, "still limiting to the ceiling, not far under it")
        // It costs loudness (this full-band noise has inter-sample peaks far over its samples),
        // but not much: measured −4.1 against −2.9 LUFS.
        XCTAssertLessThan(h.integrated ?? 0, p.integrated ?? 0)
        XCTAssertGreaterThan(h.integrated ?? -99, (p.integrated ?? 0) - 2)
    }

    /// A render arriving at rest with samples between the ceiling and full scale used to pass
    /// untouched (+0.1 dB over the ceiling, right after a render boundary); now no sample leaves above it.
    func testCeilingHeldAtRenderBoundaries() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.999, seconds: 0.5), name: "loud")
        _ = try e.play(clip, options: .init(position: Vector3(1, 0, 0)))   // hard right, full level
        let out = try TestSignals.renderGameFrames(e, seconds: 0.4)
        let peak = out.reduce(0) { max($0, abs($1)) }
        XCTAssertLessThanOrEqual(peak, OutputLimiter.ceiling)
        XCTAssertGreaterThan(peak, OutputLimiter.ceiling * 0.999)
        // The limiter alone: a quiet buffer, then one with a sample at 0.995 arriving at rest.
        var limiter = OutputLimiter(channels: 1, sampleRate: 48_000)
        var quiet = [Float](repeating: 0.2, count: 800)
        quiet.withUnsafeMutableBufferPointer { limiter.process($0) }
        var next = [Float](repeating: 0.2, count: 800)
        next[0] = 0.995
        next.withUnsafeMutableBufferPointer { limiter.process($0) }
        XCTAssertLessThanOrEqual(next[0], OutputLimiter.ceiling)
    }

    /// Ceilings outside −20…0 dB are refused when the engine is made.
    func testSettingsAreChecked() {
        for bad: Float in [-21, 0.5, .nan, .infinity] {
            XCTAssertThrowsError(try TestSignals.loopbackEngine { $0.limiter = LimiterSettings(ceiling: bad) }) { error in
                guard case .invalidArgument? = error as? EarshotError else { return XCTFail("\(error)") }
            }
        }
    }
}
