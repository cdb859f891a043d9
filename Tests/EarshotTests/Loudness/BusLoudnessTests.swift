@testable import Earshot
import XCTest

/// Live per-bus loudness (issue 40): estimated from the clips' K-weighted levels and the voices'
/// heard gains, checked against BS.1770's reference tone and against libebur128 on the
/// rendered output of the same loopback engine.
final class BusLoudnessTests: XCTestCase {
    /// EBU Tech 3341's tone: 1 kHz, stereo, −23 dBFS per channel → −23 LUFS.
    static func tone(decibels: Double, seconds: Double = 1) -> PCMAudio {
        let n = Int(seconds * 48_000), a = pow(10, decibels / 20)
        var s = [Float](repeating: 0, count: 2 * n)
        for i in 0..<n {
            let x = Float(a * sin(2 * .pi * 1_000 * Double(i) / 48_000))
            s[2 * i] = x
            s[2 * i + 1] = x
        }
        return PCMAudio(sampleRate: 48_000, channels: 2, samples: .float32(s))
    }

    func testOneBusReadsTheReferenceToneAndTheMasterAgrees() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.setLoudnessMetering(true)
        let clip = try e.loadClip(Self.tone(decibels: -23), name: "tone")
        _ = try e.play(clip, options: PlayOptions(loop: true, bus: .sfx))
        _ = try TestSignals.renderGameFrames(e, seconds: 0.6)
        let bus = try e.loudness(of: .sfx)
        XCTAssertEqual(bus.momentary, -23, accuracy: 0.5)
        XCTAssertTrue(bus.isEstimate)
        let measured = try e.masterLoudness()
        XCTAssertFalse(measured.isEstimate)
        XCTAssertEqual(measured.momentary, -23, accuracy: 0.5, "libebur128 on the output")
        XCTAssertEqual(bus.momentary, measured.momentary, accuracy: 0.5)
        XCTAssertEqual(e.stats.masterLoudness, measured, "engine.stats carries the master's reading")
        try e.setLoudnessMetering(false)
        let estimate = try e.masterLoudness()
        XCTAssertTrue(estimate.isEstimate)
        XCTAssertEqual(estimate.momentary, bus.momentary, accuracy: 0.01, "the only bus is the master")
        XCTAssertEqual(e.stats.masterLoudness, estimate)
        // Short-term averages 3 s: 0.6 s of tone in it reads 10·log10(0.6/3) ≈ −7 LU lower.
        XCTAssertEqual(bus.shortTerm, -23 + 10 * log10(0.6 / 3), accuracy: 0.5)
    }

    func testTwoBusesReadIndependentlyAndAMutedBusReadsSilence() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let loud = try e.loadClip(Self.tone(decibels: -20), name: "loud")
        let quiet = try e.loadClip(Self.tone(decibels: -32), name: "quiet")
        _ = try e.play(loud, options: PlayOptions(loop: true, bus: .sfx))
        _ = try e.play(quiet, options: PlayOptions(loop: true, bus: .ambience))
        _ = try e.play(loud, options: PlayOptions(loop: true, bus: .ui))
        try e.setMuted(true, for: .ui)
        _ = try TestSignals.renderGameFrames(e, seconds: 0.5)
        XCTAssertEqual(try e.loudness(of: .sfx).momentary, -20, accuracy: 0.5)
        XCTAssertEqual(try e.loudness(of: .ambience).momentary, -32, accuracy: 0.5)
        XCTAssertEqual(try e.loudness(of: .ui).momentary, -.infinity, "muted")
        XCTAssertEqual(try e.loudness(of: .voice).momentary, -.infinity, "nothing on it")
        // The master estimate sums powers: −20 and −32 LUFS → −19.73.
        XCTAssertEqual(try e.masterLoudness().momentary, 10 * log10(pow(10, -2.0) + pow(10, -3.2)), accuracy: 0.1)
        XCTAssertThrowsError(try e.loudness(of: Bus("nope")))
        e.shutdown()
        XCTAssertEqual(try e.loudness(of: .sfx).momentary, -.infinity)
    }

    /// A centred mono clip: the estimate reads the clip's own power; what OpenAL's panning puts
    /// on a stereo output is measured beside it (the Loudness article gives the gap).
    func testMonoClipEstimateAgainstTheOutput() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.setLoudnessMetering(true)
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: pow(10, -20.0 / 20), seconds: 0.5), name: "mono")
        _ = try e.play(clip, options: PlayOptions(loop: true, bus: .sfx))
        _ = try TestSignals.renderGameFrames(e, seconds: 0.5)
        let estimate = try e.loudness(of: .sfx).momentary, measured = try e.masterLoudness().momentary
        XCTAssertEqual(estimate, -23, accuracy: 0.5, "one channel's power, 3 dB under the same stereo tone")
        XCTAssertEqual(estimate - measured, Self.monoGap, accuracy: 0.3, "measured \(measured) LUFS")
    }

    /// LU the mono estimate reads above the output meter (documented in Loudness.md).
    static let monoGap = 1.5

    func testKFilterGainAtOneKilohertzIsBS1770s() {
        // A 1 kHz full-scale mono sine: K-weighted power 0.5 × 10^(0.0691) → −3.01 LUFS.
        let levels = KWeightedLevels.measure(Self.tone(decibels: 0, seconds: 0.5))
        let p = Double(levels.power(at: 12_000))
        XCTAssertEqual(BusLoudness.lufs(power: p), 0, accuracy: 0.05, "stereo sums its channels: 0 LUFS")
        XCTAssertEqual(levels.power(at: 1e9), 0)
    }
}
