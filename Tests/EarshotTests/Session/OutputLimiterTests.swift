@testable import Earshot
import Foundation
import XCTest

/// The engine never hands out samples beyond full scale (issue 13, item 16): many plays of one
/// clip at the same instant, rendered through OpenAL Soft's float loopback device and measured.
final class OutputLimiterTests: XCTestCase {
    private func peak(_ xs: [Float]) -> Float { xs.reduce(0) { max($0, abs($1)) } }

    /// 200 plays of a full-scale clip at once: OpenAL alone reaches about 119× full scale; the
    /// engine's output stays at or under 1.0, and is still loud (the limiter does not mute).
    func testTwoHundredPlaysAtOnceNeverExceedFullScale() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 256 }
        defer { e.shutdown() }
        let clip = try e.loadClip(TestSignals.sine(frequency: 440, amplitude: 1, seconds: 1), name: "full")
        for _ in 0..<200 { _ = try e.play(clip, options: .init(pan: 0)) }
        var out: [Float] = []
        while out.count < 2 * 24_000 {
            e.update(deltaTime: 1.0 / 60)
            out += try e.render(frames: 800)
        }
        let p = peak(out)
        print("200 plays at once: output peak \(p)")
        XCTAssertLessThanOrEqual(p, 1.0, "no sample beyond full scale")
        XCTAssertGreaterThan(p, 0.9, "the limited mix is still at full scale")
        XCTAssertFalse(out.contains { $0.isNaN })
        XCTAssertGreaterThan(e.limiter.withLock { $0.limitedRenders }, 0)
    }

    /// A mix that never exceeds full scale is left bit-identical: the same voice rendered by the
    /// engine and straight from OpenAL's loopback device (no limiter) gives the same samples.
    func testRendersUnderFullScaleAreUntouched() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.9, seconds: 0.5), name: "loud")
        _ = try e.play(clip, options: .init(pan: 0))
        e.update(deltaTime: 1.0 / 60)
        var engineOut = [Float](repeating: 0, count: 2 * 4_800)
        try engineOut.withUnsafeMutableBufferPointer { try e.render(into: $0) }
        XCTAssertEqual(e.limiter.withLock { $0.limitedRenders }, 0, "nothing overloaded, nothing limited")
        // The same buffer through the limiter again, and a copy: unchanged bit for bit.
        var copy = engineOut
        var limiter = OutputLimiter(channels: 2, sampleRate: 48_000)
        copy.withUnsafeMutableBufferPointer { limiter.process($0) }
        XCTAssertTrue(copy == engineOut, "bit-identical")
        XCTAssertGreaterThan(peak(engineOut), 0.5)
    }

    /// The limiter's gain falls before the overload (look-ahead) and never steps by more than
    /// the overload asks: a burst at 4× full scale in the middle of a quiet tone is brought to
    /// 1.0 with no sample beyond it, the tone before the look-ahead window is untouched, and the
    /// gain comes back to exactly 1 afterwards.
    func testLookAheadAndRelease() {
        var limiter = OutputLimiter(channels: 1, sampleRate: 48_000)
        var x = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 100 * Double($0) / 48_000)) }
        for i in 1_000..<1_100 { x[i] *= 8 }   // up to 4.0
        let original = x
        x.withUnsafeMutableBufferPointer { limiter.process($0) }
        XCTAssertLessThanOrEqual(x.map(abs).max() ?? 2, 1)
        XCTAssertTrue(x[0..<(1_000 - 48)] == original[0..<(1_000 - 48)], "untouched before the look-ahead")
        XCTAssertNotEqual(x[990], original[990], "the gain falls before the burst")
        XCTAssertEqual(limiter.gain, 1, "released back to exactly 1 after 0.8 s")
        var tail = Array(original[40_000..<41_000])
        tail.withUnsafeMutableBufferPointer { limiter.process($0) }
        XCTAssertTrue(tail == Array(original[40_000..<41_000]), "untouched once released")
    }
}
