@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// `pan` on a stereo clip played without a position is a balance (issue 39): the voice plays its
/// two channels on two mono sources, the far side's channel turned down by `1 − |pan|`, each
/// channel staying on its side. Loopback renders, measured per channel and per tone: 440 Hz in
/// the left channel, 1 kHz in the right.
final class StereoBalanceTests: XCTestCase {
    /// 0.5 s of 16-bit stereo at 48 kHz: a 440 Hz tone in the left channel (amplitude `left`)
    /// and a 1 kHz one in the right (`right`).
    static func tones(left: Double = 0.5, right: Double = 0.5, seconds: Double = 0.5) -> PCMAudio {
        TestSignals.stereoTones(left: (440, left), right: (1_000, right), frames: Int(seconds * 48_000))
    }

    /// One channel of interleaved stereo.
    static func channel(_ out: [Float], _ c: Int) -> [Float] {
        stride(from: c, to: out.count, by: 2).map { out[$0] }
    }

    /// The 440 Hz amplitude in the left channel and the 1 kHz one in the right of interleaved
    /// stereo (a multiple of 1,200 frames: whole cycles of both).
    static func tonesIn(_ out: [Float]) -> (left: Double, right: Double) {
        (ToneMeasure.amplitude(channel(out, 0)[...], 440), ToneMeasure.amplitude(channel(out, 1)[...], 1_000))
    }

    /// What 0.2 s of `audio` played with `options` sounds like (after one update, past the first
    /// 10 ms): each channel's RMS and the 440 Hz amplitude in each, with the engine's stats.
    private func render(_ audio: PCMAudio, _ options: PlayOptions, sources: Int = 8)
        throws -> (rms: [Double], a440: [Double], stats: EngineStats) {
        let engine = try TestSignals.loopbackEngine(realVoices: sources)
        defer { engine.shutdown() }
        let clip = try engine.loadClip(audio, name: "tones")
        _ = try engine.play(clip, options: options)
        engine.update()
        let out = Array(try engine.render(frames: 10_560)[1_920...])   // 9,600 frames: whole cycles of both tones
        let l = Self.channel(out, 0), r = Self.channel(out, 1)
        return (Level.rms(out, channels: 2),
                [ToneMeasure.amplitude(l[...], 440), ToneMeasure.amplitude(r[...], 440)], engine.stats)
    }

    /// Pan 0 is the recording as the one-source voice played it before (an engine with one
    /// source cannot give a second: that is the old path): each channel within 0.1 dB; a tone
    /// only in the left channel is ≥ 60 dB down on the right.
    func testPanZeroIsTheRecordingAsBefore() throws {
        let audio = Self.tones()
        let pair = try render(audio, PlayOptions())
        XCTAssertEqual(pair.stats.pairedVoices, 1, "played as a channel pair")
        XCTAssertEqual(pair.stats.realVoices, 1, "one voice")
        let single = try render(audio, PlayOptions(), sources: 1)
        XCTAssertEqual(single.stats.pairedVoices, 0)
        XCTAssertEqual(single.stats.balanceFallbacks, 1, "no second source: one source, counted")
        for c in 0..<2 {
            XCTAssertEqual(Level.dB(pair.rms[c]), Level.dB(single.rms[c]), accuracy: 0.1, "channel \(c): \(pair.rms) vs \(single.rms)")
        }
        let leftOnly = try render(Self.tones(right: 0), PlayOptions())
        XCTAssertGreaterThan(Level.dB(leftOnly.rms[0]), -12, "left heard: \(leftOnly.rms)")
        XCTAssertGreaterThanOrEqual(Level.dB(leftOnly.rms[0]) - Level.dB(leftOnly.rms[1]), 60, "right silent: \(leftOnly.rms)")
    }

    /// The law: at +0.5 the right channel as at 0 (±0.1 dB), the left at 1 − 0.5 (−6.02 dB,
    /// ±0.2), its 440 Hz tone still only on the left (the right ≥ 60 dB down in that band);
    /// at +1 the left silent, at −1 the right silent.
    func testPanIsABalance() throws {
        let audio = Self.tones()
        let centre = try render(audio, PlayOptions())
        let half = try render(audio, PlayOptions(pan: 0.5))
        XCTAssertEqual(half.stats.pairedVoices, 1)
        XCTAssertEqual(Level.dB(half.rms[1]), Level.dB(centre.rms[1]), accuracy: 0.1, "right unchanged: \(half.rms) vs \(centre.rms)")
        XCTAssertEqual(Level.dB(half.rms[0]) - Level.dB(centre.rms[0]), Level.dB(0.5), accuracy: 0.2, "left at 1 − |pan|")
        XCTAssertGreaterThanOrEqual(Level.dB(half.a440[0]) - Level.dB(half.a440[1]), 60, "440 Hz stays left: \(half.a440)")
        let right = try render(audio, PlayOptions(pan: 1))
        XCTAssertLessThan(Level.dB(right.rms[0]), Level.dB(centre.rms[0]) - 60, "pan +1: left silent: \(right.rms)")
        XCTAssertEqual(Level.dB(right.rms[1]), Level.dB(centre.rms[1]), accuracy: 0.1)
        let left = try render(audio, PlayOptions(pan: -1))
        XCTAssertLessThan(Level.dB(left.rms[1]), Level.dB(centre.rms[1]) - 60, "pan −1: right silent: \(left.rms)")
        XCTAssertEqual(Level.dB(left.rms[0]), Level.dB(centre.rms[0]), accuracy: 0.1)
    }

    /// A pan moved while the voice plays (0 → +0.8 over 0.6 s, a step each 10 ms) turns the left
    /// channel down smoothly: no step over 1.5 dB between 20 ms windows; the right stays put.
    func testAPanRampHasNoStep() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try engine.loadClip(Self.tones(), name: "tones")
        let voice = try engine.play(clip, options: PlayOptions(loop: true))
        var out: [Float] = []
        for k in 0..<80 {
            if k >= 10, k < 70 { engine.setPan(0.8 * Float(k - 9) / 60, of: voice) }
            engine.update()
            out += try engine.render(frames: 480)
        }
        XCTAssertEqual(engine.stats.pairedVoices, 1)
        let window = 960
        var last: [Double]?
        for w in 1..<(out.count / 2 / window) {
            let levels = Level.rms(Array(out[(w * window * 2)..<((w + 1) * window * 2)]), channels: 2).map { Level.dB($0) }
            if let last {
                XCTAssertLessThanOrEqual(abs(levels[0] - last[0]), 1.5, "left step at window \(w): \(last) → \(levels)")
                XCTAssertLessThanOrEqual(abs(levels[1] - last[1]), 0.1, "right step at window \(w): \(last) → \(levels)")
            }
            last = levels
        }
        let end = Level.rms(Array(out[(70 * 960)...]), channels: 2)
        let start = Level.rms(Array(out[960..<(10 * 960)]), channels: 2)
        XCTAssertEqual(Level.dB(end[0]) - Level.dB(start[0]), Level.dB(0.2), accuracy: 0.2, "ends at the law's gain")
    }

    /// The same noise in both channels comes out with the channels sample-aligned (the
    /// cross-correlation peaks at lag 0), started at once or part-way (an offset).
    func testTheChannelsStaySampleAligned() throws {
        let noise = TestSignals.whiteNoise()
        guard case .int16(let mono) = noise.samples else { return XCTFail("16-bit noise") }
        var s = [Int16](repeating: 0, count: mono.count * 2)
        for i in 0..<mono.count { s[2 * i] = mono[i]; s[2 * i + 1] = mono[i] }
        let audio = PCMAudio(sampleRate: 48_000, channels: 2, samples: .int16(s))
        var late = PlayOptions(pan: -0.6)
        late.offset = 0.1
        for options in [PlayOptions(pan: 0.3), late] {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            let clip = try engine.loadClip(audio, name: "noise")
            _ = try engine.play(clip, options: options)
            engine.update()
            let out = Array(try engine.render(frames: 9_600)[960...])
            let l = Self.channel(out, 0), r = Self.channel(out, 1)
            var best = (lag: 99, value: -Double.infinity)
            for lag in -8...8 {
                var sum = 0.0
                for i in 16..<(l.count - 16) { sum += Double(l[i]) * Double(r[i + lag]) }
                if sum > best.value { best = (lag, sum) }
            }
            XCTAssertEqual(best.lag, 0, "\(options.placement): cross-correlation peak")
            XCTAssertEqual(engine.stats.pairedVoices, 1)
        }
    }

    /// One voice: one handle, counted once, its second source counted as taken by the ranking
    /// (three sources: the pair and one mono voice are heard, a second mono voice waits); stop,
    /// a fade, pause and resume act on both channels, and its sources come back.
    func testThePairIsOneVoice() throws {
        let engine = try TestSignals.loopbackEngine(realVoices: 3)
        defer { engine.shutdown() }
        let clip = try engine.loadClip(Self.tones(seconds: 1), name: "tones")
        let beep = try engine.loadClip(TestSignals.sine(frequency: 3_000, amplitude: 0.01, seconds: 1), name: "beep")
        let voice = try engine.play(clip, options: PlayOptions(loop: true, priority: 0, pan: 0.5))
        _ = try engine.play(beep, options: PlayOptions(loop: true))
        _ = try engine.play(beep, options: PlayOptions(loop: true))
        try TestSignals.renderFrames(engine, seconds: 0.05)
        var s = engine.stats
        XCTAssertEqual(s.pairedVoices, 1)
        XCTAssertEqual(s.realVoices, 2, "the pair and one mono voice on three sources")
        XCTAssertEqual(s.virtualVoices, 1)
        engine.setPaused(true, of: voice)
        let paused = try TestSignals.renderFrames(engine, seconds: 0.05)
        XCTAssertEqual(engine.stats.pairedVoices, 0, "paused: both sources given back")
        XCTAssertLessThan(Level.dB(Self.tonesIn(Array(paused[1_920..<(1_920 + 1_920)])).left), -80, "paused: silent")
        XCTAssertLessThan(Level.dB(Self.tonesIn(Array(paused[1_920..<(1_920 + 1_920)])).right), -80, "paused: silent")
        engine.setPaused(false, of: voice)
        let resumed = try TestSignals.renderFrames(engine, seconds: 0.1)
        s = engine.stats
        XCTAssertEqual(s.pairedVoices, 1, "resumed as a pair")
        let r = Self.tonesIn(Array(resumed[(resumed.count - 9_600)...]))
        XCTAssertEqual(Level.dB(r.left) - Level.dB(r.right), Level.dB(0.5), accuracy: 0.2, "the balance kept: \(r)")
        engine.stop(voice, fade: 0.05)
        let stopped = try TestSignals.renderFrames(engine, seconds: 0.15)
        let tail = Self.tonesIn(Array(stopped[(stopped.count - 9_600)...]))
        XCTAssertLessThan(Level.dB(tail.left), -80, "stopped: silent: \(tail)")
        XCTAssertLessThan(Level.dB(tail.right), -80, "stopped: silent: \(tail)")
        XCTAssertEqual(engine.stats.pairedVoices, 0)
        XCTAssertEqual(engine.stats.realVoices, 2, "both mono voices heard once the pair's sources are back")
        XCTAssertEqual(engine.status(of: voice), .stopped)
    }

    /// Pairs compete as two sources: on two, a higher-priority mono voice steals the playing
    /// pair (both its sources come back) and, stopped, gives them back to it — a pair again,
    /// never a one-source fallback; two pairs on three sources: one plays, one waits.
    func testPairsCompeteAsTwoSources() throws {
        let engine = try TestSignals.loopbackEngine(realVoices: 2)
        defer { engine.shutdown() }
        let clip = try engine.loadClip(Self.tones(seconds: 1), name: "tones")
        let beep = try engine.loadClip(TestSignals.sine(frequency: 3_000, amplitude: 0.1, seconds: 1), name: "beep")
        _ = try engine.play(clip, options: PlayOptions(loop: true, pan: -0.5))
        try TestSignals.renderFrames(engine, seconds: 0.05)
        XCTAssertEqual(engine.stats.pairedVoices, 1)
        let urgent = try engine.play(beep, options: PlayOptions(loop: true, priority: 0))
        try TestSignals.renderFrames(engine, seconds: 0.05)
        var s = engine.stats
        XCTAssertEqual(s.steals, 1, "the pair stolen")
        XCTAssertEqual(s.realVoices, 1)
        XCTAssertEqual(s.pairedVoices, 0)
        engine.stop(urgent)
        let back = try TestSignals.renderFrames(engine, seconds: 0.1)
        s = engine.stats
        XCTAssertEqual(s.pairedVoices, 1, "resumed as a pair")
        XCTAssertEqual(s.balanceFallbacks, 0, "never on one source")
        let r = Self.tonesIn(Array(back[(back.count - 9_600)...]))
        XCTAssertEqual(Level.dB(r.right) - Level.dB(r.left), Level.dB(0.5), accuracy: 0.2, "the balance: \(r)")

        let three = try TestSignals.loopbackEngine(realVoices: 3)
        defer { three.shutdown() }
        let c3 = try three.loadClip(Self.tones(seconds: 1), name: "tones")
        _ = try three.play(c3, options: PlayOptions(loop: true, pan: 0.2))
        _ = try three.play(c3, options: PlayOptions(loop: true, pan: -0.2))
        try TestSignals.renderFrames(three, seconds: 0.05)
        s = three.stats
        XCTAssertEqual(s.pairedVoices, 1)
        XCTAssertEqual(s.realVoices, 1)
        XCTAssertEqual(s.virtualVoices, 1)
        XCTAssertEqual(s.balanceFallbacks, 0)
    }

    /// Through a lost and rebuilt device (simulated on loopback) a pair goes on as a pair: its
    /// clip's channel buffers uploaded again, its balance and image as before.
    func testAPairSurvivesADeviceLoss() throws {
        let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
        defer { e.shutdown() }
        let clip = try e.loadClip(Self.tones(seconds: 1), name: "tones")
        _ = try e.play(clip, options: PlayOptions(loop: true, pan: 0.5))
        try TestSignals.renderFrames(e, seconds: 0.05)
        e.simulateDeviceLoss()
        try TestSignals.renderFrames(e, seconds: 1.0 / 60)
        XCTAssertEqual(e.stats.pairedVoices, 0, "no sources while the device is gone")
        let deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline {
            usleep(2_000)
            try TestSignals.renderFrames(e, seconds: 1.0 / 60)
        }
        XCTAssertFalse(e.isDeviceLost)
        let out = try TestSignals.renderFrames(e, seconds: 0.15)
        XCTAssertEqual(e.stats.pairedVoices, 1, "a pair again on the new device")
        let tail = Array(out[(out.count - 9_600)...])
        let t = Self.tonesIn(tail)
        XCTAssertEqual(Level.dB(t.left) - Level.dB(t.right), Level.dB(0.5), accuracy: 0.2, "the balance: \(t)")
        XCTAssertLessThan(ToneMeasure.amplitude(Self.channel(tail, 1)[...], 440), t.left * 1e-3, "440 Hz only on the left")
    }
}
