@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The engine never hands out samples beyond full scale, and limiting does not distort (issues
/// 13 and 25): many plays of one clip at the same instant rendered through OpenAL Soft's float
/// loopback device, and the limiter alone on measured signals.
final class OutputLimiterTests: XCTestCase {
    private let ceiling = OutputLimiter.ceiling

    private func peak(_ xs: [Float]) -> Float { xs.reduce(0) { max($0, abs($1)) } }

    /// The longest run of consecutive samples of one channel at the ceiling (within 10⁻⁴ of it).
    private func longestRunAtCeiling(_ xs: [Float], channels: Int) -> Int {
        var longest = 0
        for ch in 0..<channels {
            var run = 0
            for i in stride(from: ch, to: xs.count, by: channels) {
                if abs(xs[i]) >= ceiling * (1 - 1e-4) { run += 1; longest = max(longest, run) } else { run = 0 }
            }
        }
        return longest
    }

    /// Renders `seconds` of `e` in 60 Hz game frames of 800 frames.
    private func render(_ e: AudioEngine, seconds: Double) throws -> [Float] {
        var out: [Float] = []
        while out.count < Int(seconds * 48_000) * 2 {
            e.update(deltaTime: 1.0 / 60)
            out += try e.render(frames: 800)
        }
        return out
    }

    /// 200 plays of a full-scale clip at once: OpenAL alone reaches about 119× full scale; the
    /// engine's output stays under the ceiling, is still loud, and has no flat tops (the old
    /// limiter put runs of 13 samples on 1.0).
    func testTwoHundredPlaysAtOnceStayUnderTheCeilingWithoutFlatTops() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 256 }
        defer { e.shutdown() }
        let clip = try e.loadClip(TestSignals.sine(frequency: 440, amplitude: 1, seconds: 1), name: "full")
        for _ in 0..<200 { _ = try e.play(clip, options: .init(pan: 0)) }
        let out = try render(e, seconds: 0.5)
        let p = peak(out), run = longestRunAtCeiling(out, channels: 2)
        let stats = e.stats
        print("200 plays at once: peak \(p), longest run at the ceiling \(run), limited frames \(stats.limitedFrames), deepest \(stats.deepestLimiterReduction) dB")
        XCTAssertLessThanOrEqual(p, ceiling, "no sample beyond the ceiling")
        XCTAssertGreaterThan(p, ceiling * 0.999, "the limited mix still reaches the ceiling")
        XCTAssertLessThanOrEqual(run, 3, "no flat tops")
        XCTAssertFalse(out.contains { $0.isNaN })
        XCTAssertGreaterThan(stats.limitedFrames, 20_000)
        XCTAssertLessThan(stats.deepestLimiterReduction, -30, "about 119× full scale turned down")
        // The limited tone keeps its shape: 440 Hz with little left over.
        let left = stride(from: 9_600, to: out.count, by: 2).map { out[$0] }
        XCTAssertEqual(ToneMeasure.frequency(left, sampleRate: 48_000), 440, accuracy: 0.5)
        XCTAssertLessThan(ToneMeasure.distortion(left, frequency: 440, sampleRate: 48_000), -40)
    }

    /// A dense mix: 64 looping voices of eight tones at full scale, started a few milliseconds
    /// apart, for one second — the limiter works all the time, and still no sample passes the
    /// ceiling and no run sits on it.
    func testDenseLoopMixStaysUnderTheCeiling() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 128 }
        defer { e.shutdown() }
        var clips: [Clip] = []
        for k in 0..<8 {
            clips.append(try e.loadClip(TestSignals.sine(frequency: 110 * Double(k + 1) + 7, amplitude: 1, seconds: 0.5), name: "t\(k)"))
        }
        var out: [Float] = []
        for v in 0..<64 {
            _ = try e.play(clips[v % 8], options: .init(loop: true, pan: Float(v % 5) / 2 - 1))
            if v % 8 == 7 {
                e.update(deltaTime: 1.0 / 60)
                out += try e.render(frames: 37 * (v / 8 + 1))   // odd block sizes
            }
        }
        out += try render(e, seconds: 1)
        let p = peak(out), run = longestRunAtCeiling(out, channels: 2)
        print("64 looping voices: peak \(p), longest run at the ceiling \(run), limited frames \(e.stats.limitedFrames)")
        XCTAssertLessThanOrEqual(p, ceiling)
        XCTAssertGreaterThan(p, ceiling * 0.999)
        XCTAssertLessThanOrEqual(run, 3)
        XCTAssertGreaterThan(e.stats.limitedFrames, 40_000)
    }

    /// A 1 kHz tone at +12 dB over full scale, limited in 800-frame blocks: after the attack the
    /// gain is steady (the hold bridges the tone's peaks), so the output is the tone itself at
    /// the ceiling — total harmonic distortion well under 1 % (−40 dB).
    func testLimitedToneDoesNotDistort() {
        var limiter = OutputLimiter(channels: 2, sampleRate: 48_000)
        let amplitude = Float(pow(10, 12.0 / 20))   // +12 dB over full scale
        var out: [Float] = []
        for block in 0..<60 {
            var x = [Float](repeating: 0, count: 1_600)
            for f in 0..<800 {
                let v = amplitude * Float(sin(2 * Double.pi * 1_000 * Double(block * 800 + f) / 48_000))
                x[2 * f] = v; x[2 * f + 1] = v
            }
            x.withUnsafeMutableBufferPointer { limiter.process($0) }
            out += x
        }
        let left = stride(from: 2 * 4_800, to: out.count, by: 2).map { out[$0] }   // after 0.1 s
        let thd = ToneMeasure.distortion(left, frequency: 1_000, sampleRate: 48_000)
        print("limited 1 kHz at +12 dB: distortion \(thd) dB, peak \(peak(left)), gain \(limiter.gain)")
        XCTAssertLessThan(thd, -40, "under 1 %")
        XCTAssertLessThanOrEqual(peak(out), ceiling)
        XCTAssertGreaterThan(peak(left), ceiling * 0.999)
        XCTAssertEqual(limiter.deepestReductionDecibels, -12.1, accuracy: 0.05)
        XCTAssertEqual(limiter.limitedFrames, 48_000)
    }

    /// The same through the engine: four in-phase voices of a full-scale 1 kHz tone hard right
    /// (+12 dB over full scale in the right channel), rendered in 800-frame game frames: after
    /// the attack the right channel is the tone at the ceiling, with under 1 % distortion.
    func testLimitedToneThroughTheEngineDoesNotDistort() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 1, seconds: 1), name: "tone")
        for _ in 0..<4 { _ = try e.play(clip, options: .init(position: Vector3(1, 0, 0))) }
        let out = try render(e, seconds: 0.6)
        let right = stride(from: 1 + 2 * 4_800, to: 2 * 28_800, by: 2).map { out[$0] }   // 0.1…0.6 s
        let thd = ToneMeasure.distortion(right, frequency: 1_000, sampleRate: 48_000)
        print("four voices of a full-scale 1 kHz tone, limited: distortion \(thd) dB, peak \(peak(right)), deepest \(e.stats.deepestLimiterReduction) dB")
        XCTAssertLessThan(thd, -40, "under 1 %")
        XCTAssertLessThanOrEqual(peak(right), ceiling)
        XCTAssertGreaterThan(peak(right), ceiling * 0.999)
        XCTAssertEqual(Double(e.stats.deepestLimiterReduction), -12.1, accuracy: 0.3)
    }

    /// A mix that never exceeds the ceiling is left bit-identical: the same voice rendered by the
    /// engine and straight from OpenAL's loopback device (no limiter) gives the same samples.
    /// (Between the ceiling and full scale it is limited: TruePeakLimiterTests.)
    func testRendersUnderFullScaleAreUntouched() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.985, seconds: 0.5), name: "loud")
        _ = try e.play(clip, options: .init(position: Vector3(1, 0, 0)))   // hard right, full level
        e.update(deltaTime: 1.0 / 60)
        var engineOut = [Float](repeating: 0, count: 2 * 4_800)
        try engineOut.withUnsafeMutableBufferPointer { try e.render(into: $0) }
        XCTAssertEqual(e.limiter.withLock { $0.limitedRenders }, 0, "nothing overloaded, nothing limited")
        XCTAssertEqual(e.stats.limitedFrames, 0)
        XCTAssertGreaterThan(peak(engineOut), ceiling * 0.995, "just under the ceiling")
        // The same buffer through the limiter again, and a copy: unchanged bit for bit.
        var copy = engineOut
        var limiter = OutputLimiter(channels: 2, sampleRate: 48_000)
        copy.withUnsafeMutableBufferPointer { limiter.process($0) }
        XCTAssertTrue(copy == engineOut, "bit-identical")
    }

    /// The at-rest check (eight lanes at a time, then the tail): full scale itself passes, a
    /// sample just over it, an infinity or a NaN anywhere — in a lane or in the tail — does not.
    func testFullScaleCheckCatchesEveryOverloadAndNaN() {
        for count in [0, 1, 7, 8, 9, 17, 800] {
            var x = (0..<count).map { Float($0 % 2 == 0 ? 1 : -1) }
            XCTAssertTrue(x.withUnsafeBufferPointer { OutputLimiter.withinFullScale($0) }, "±1.0 is within, \(count)")
            for i in 0..<count {
                for bad in [Float(1).nextUp, -Float(1).nextUp, .infinity, -.infinity, .nan] {
                    let keep = x[i]
                    x[i] = bad
                    XCTAssertFalse(x.withUnsafeBufferPointer { OutputLimiter.withinFullScale($0) }, "\(bad) at \(i) of \(count)")
                    x[i] = keep
                }
            }
        }
    }

    /// The gain falls linearly across the 1 ms before an overload (look-ahead) and reaches the
    /// needed gain on the peak itself; it holds 10 ms, releases with the documented 0.05 s time
    /// constant and comes back to exactly 1, after which buffers are untouched.
    func testLookAheadHoldAndRelease() {
        var limiter = OutputLimiter(channels: 1, sampleRate: 48_000)
        let level: Float = 0.5
        var x = [Float](repeating: level, count: 48_000)
        x[1_000] = 4                                   // one sample at 4× full scale
        x.withUnsafeMutableBufferPointer { limiter.process($0) }
        let gains = x.map { $0 / level }
        XCTAssertEqual(x[1_000], ceiling, accuracy: 1e-6, "the peak lands on the ceiling")
        XCTAssertTrue(gains[0...952].allSatisfy { $0 == 1 }, "untouched before the look-ahead")
        // Linear attack over 48 frames: the gain 24 frames before the peak is half way.
        let need = ceiling / 4
        XCTAssertEqual(gains[976], 1 - (1 - need) * 24 / 48, accuracy: 1e-4)
        for i in 953..<1_000 { XCTAssertLessThan(gains[i], gains[i - 1] + 1e-6) }
        // Hold: the deepest gain stays 10 ms (480 frames), then the moving average lets go over 1 ms.
        XCTAssertEqual(gains[1_480], need, accuracy: 1e-5)
        // Release: one time constant (2,400 frames) after the hold, 1 − (1 − need)/e.
        XCTAssertEqual(gains[1_480 + 2_400], 1 - (1 - need) / Float(M_E), accuracy: 0.002)
        XCTAssertEqual(limiter.gain, 1, "released back to exactly 1 within a second")
        let quiet = [Float](repeating: 0.3, count: 1_000)
        var tail = quiet
        tail.withUnsafeMutableBufferPointer { limiter.process($0) }
        XCTAssertTrue(tail == quiet, "untouched once released")
    }

    /// Limiting follows a peak across buffer boundaries: the hold and release carry on into the
    /// next buffer, whatever its size, and NaN is written as 0.
    func testStateCarriesAcrossBuffersAndNaNIsZeroed() {
        var whole = OutputLimiter(channels: 1, sampleRate: 48_000)
        var pieces = OutputLimiter(channels: 1, sampleRate: 48_000)
        var signal = (0..<9_600).map { Float(0.9 * sin(Double($0) * 0.05)) }
        for i in 2_000..<2_200 { signal[i] *= 3 }
        var a = signal
        a.withUnsafeMutableBufferPointer { whole.process($0) }
        var b: [Float] = []
        var start = 0
        for size in [2_190, 37, 512, 3, 800, 10_000] where start < signal.count {
            var part = Array(signal[start..<min(signal.count, start + size)])
            part.withUnsafeMutableBufferPointer { pieces.process($0) }
            b += part
            start += size
        }
        XCTAssertLessThanOrEqual(peak(b), ceiling)
        // After the peak's look-ahead, both see the same history: the same gains.
        for i in 2_300..<9_600 { XCTAssertEqual(a[i], b[i], accuracy: 1e-6) }
        var nan: [Float] = [0.5, .nan, 2, .nan, 0.1, 0.1]
        var l = OutputLimiter(channels: 2, sampleRate: 48_000)
        nan.withUnsafeMutableBufferPointer { l.process($0) }
        XCTAssertFalse(nan.contains { $0.isNaN })
        XCTAssertLessThanOrEqual(peak(nan), ceiling)
    }
}
