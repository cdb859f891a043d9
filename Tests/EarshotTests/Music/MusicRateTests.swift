@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// A music track's rate: time-stretched by default (the pitch stays), or a tape. Rendered through
/// the loopback device from WAV files written by sox, and measured: duration, frequency, a
/// distortion figure, sample steps and levels.
final class MusicRateTests: XCTestCase {
    private var fixtures: MusicFixtures!

    override func setUpWithError() throws { fixtures = try MusicFixtures() }
    override func tearDown() { fixtures = nil }

    /// Plays `path` at `rate` in `mode` until it ends (or `limit` seconds) and returns the left channel.
    private func play(_ path: String, rate: Float, mode: MusicTrack.RateMode, limit: Double = 6) throws -> (left: [Float], track: MusicTrack) {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: path)
        track.rateMode = mode
        track.rate = rate
        try track.play()
        var out: [Float] = []
        while track.isPlaying, Double(out.count) / 2 < limit * 48_000 {
            out += try e.render(frames: 800)
        }
        out += try e.render(frames: 4_800)
        return (MusicRender.left(out), track)
    }

    func testStretchedToneKeepsItsPitchAndScalesItsDurationWhileTapeMovesBoth() throws {
        let path = try fixtures.sineWAV("a440.wav", frequency: 440, amplitude: 0.5, seconds: 2)
        var figures: [String] = []
        for rate: Float in [0.5, 2] {
            for mode in MusicTrack.RateMode.allCases {
                let left = try play(path, rate: rate, mode: mode).left
                let first = MusicRender.firstSound(left), last = MusicRender.lastSound(left)
                let seconds = Double(last - first + 1) / 48_000
                let body = Array(left[(first + 4_800)..<(last - 4_800)])
                let f = ToneMeasure.frequency(body, sampleRate: 48_000)
                let expectedF = mode == .tape ? 440 * Double(rate) : 440
                let distortion = ToneMeasure.distortion(body, frequency: f, sampleRate: 48_000)
                figures.append("rate \(rate) \(mode): \(String(format: "%.3f", seconds)) s, \(String(format: "%.2f", f)) Hz, distortion \(String(format: "%.1f", distortion)) dB")
                XCTAssertEqual(seconds, 2 / Double(rate), accuracy: 0.02 * 2 / Double(rate), "rate \(rate) \(mode)")
                XCTAssertEqual(f / expectedF, 1, accuracy: 0.005, "rate \(rate) \(mode): \(f) Hz")
                // The tape is a resampler (clean); the stretcher splices waveforms, and the splices
                // of a pure tone must stay far below it.
                XCTAssertLessThan(distortion, mode == .tape ? -50 : -35, "rate \(rate) \(mode)")
            }
        }
        print("music rate figures: " + figures.joined(separator: "; "))
    }
}

/// Rate changes, loops, seeks, positions, meters, fades and device recovery on stretched tracks.
final class MusicRateControlTests: XCTestCase {
    private var fixtures: MusicFixtures!

    override func setUpWithError() throws { fixtures = try MusicFixtures() }
    override func tearDown() { fixtures = nil }

    /// The largest sample step of a 500 Hz sine at amplitude 0.5: 2π·500/48000·0.5.
    private let toneStep: Float = 0.0327

    /// Levels of consecutive 10 ms windows over `range`, in dB.
    private func windowLevels(_ x: [Float], _ range: Range<Int>) -> (lo: Double, hi: Double) {
        var lo = Double.infinity, hi = -Double.infinity
        for start in stride(from: range.lowerBound, to: range.upperBound - 480, by: 120) {
            let l = Level.dB(Level.rms(x, start..<(start + 480)))
            lo = min(lo, l); hi = max(hi, l)
        }
        return (lo, hi)
    }

    func testRateChangesWhilePlayingGlideWithoutClicksOrDips() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: try fixtures.sineWAV("sine.wav", seconds: 1))
        track.numberOfLoops = -1
        try track.play()
        var out = try MusicRender.render(e, seconds: 1)
        for rate: Float in [1.5, 0.6, 2, 1, 0.5] {
            track.rate = rate
            out += try MusicRender.render(e, seconds: 1)
        }
        let left = MusicRender.left(out)
        let step = MusicRender.maxStep(left, 4_800..<left.count)
        XCTAssertLessThan(step, 1.3 * toneStep, "no click across five rate changes (largest step \(step))")
        let levels = windowLevels(left, 4_800..<left.count)
        XCTAssertEqual(levels.hi - levels.lo, 0, accuracy: 1.0, "no dip or bump: 10 ms levels \(levels)")
        XCTAssertEqual(ToneMeasure.frequency(Array(left[4_800...]), sampleRate: 48_000), 500, accuracy: 2.5)
        XCTAssertEqual(e.stats.musicUnderruns, 0)
    }

    func testLoopSeamsAndSeeksStayGaplessAtAnyRate() throws {
        for rate: Float in [0.5, 0.8, 1.25, 2] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let track = try e.loadMusic(path: try fixtures.sineWAV("sine-\(rate).wav", seconds: 1))
            try track.setLoopRegion(12_000..<36_000)   // whole cycles of 500 Hz
            track.numberOfLoops = -1
            track.rate = rate
            try track.play()
            var out = try MusicRender.render(e, seconds: 2)
            track.currentTime = 0.3
            let afterSeek = out.count / 2
            out += try MusicRender.render(e, seconds: 0.05)
            XCTAssertEqual(track.currentTime, 0.3 + 0.05 * Double(rate), accuracy: 0.03, "rate \(rate): position after the seek")
            out += try MusicRender.render(e, seconds: 1)
            let left = MusicRender.left(out)
            // Seams (every 0.5 s of file at the rate) and the seek: no click, no dip.
            let before = MusicRender.maxStep(left, 2_400..<(afterSeek - 10))
            XCTAssertLessThan(before, 1.3 * toneStep, "rate \(rate): across loop seams (largest step \(before))")
            let levels = windowLevels(left, 2_400..<(afterSeek - 10))
            XCTAssertEqual(levels.hi - levels.lo, 0, accuracy: 1.0, "rate \(rate): 10 ms levels across seams \(levels)")
            let tail = windowLevels(left, (afterSeek + 480)..<left.count)
            XCTAssertEqual(tail.hi - tail.lo, 0, accuracy: 1.0, "rate \(rate): 10 ms levels after the seek \(tail)")
            XCTAssertEqual(ToneMeasure.frequency(Array(left[2_400..<afterSeek]), sampleRate: 48_000), 500, accuracy: 2.5, "rate \(rate)")
        }
    }

    func testPositionMetersAndFadesFollowAStretchedTrack() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: try fixtures.sineWAV("sine.wav", seconds: 2))
        track.rate = 0.5
        track.isMeteringEnabled = true
        try track.play()
        _ = try MusicRender.render(e, seconds: 1)
        XCTAssertEqual(track.currentTime, 0.5, accuracy: 0.03, "half a second of file in a second")
        track.updateMeters()
        XCTAssertEqual(track.peakPower(forChannel: 0), -6, accuracy: 0.5)
        XCTAssertEqual(track.averagePower(forChannel: 0), -9, accuracy: 0.5)
        // A fade in playback time: 0.5 s to silence, whatever the rate.
        track.fade(to: 0, duration: 0.5)
        let faded = MusicRender.left(try MusicRender.render(e, seconds: 0.6))
        XCTAssertLessThan(Level.rms(faded, 26_400..<28_800), 1e-4, "silent after the fade")
        XCTAssertEqual(track.volume, 0)
        // Pause and resume keep the stretched position.
        track.volume = 1
        track.pause()
        let paused = track.currentTime
        _ = try MusicRender.render(e, seconds: 0.3)
        XCTAssertEqual(track.currentTime, paused, accuracy: 1e-9)
        try track.play()
        _ = try MusicRender.render(e, seconds: 0.4)
        XCTAssertEqual(track.currentTime, paused + 0.2, accuracy: 0.03)
    }

    func testSwitchingToTapeMovesThePitchAndBackKeepsIt() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: try fixtures.sineWAV("sine.wav", seconds: 3))
        track.rate = 0.5
        try track.play()
        let stretched = MusicRender.left(try MusicRender.render(e, seconds: 0.5))
        track.rateMode = .tape
        _ = try MusicRender.render(e, seconds: 0.05)
        let tape = MusicRender.left(try MusicRender.render(e, seconds: 0.5))
        track.rateMode = .keepsPitch
        _ = try MusicRender.render(e, seconds: 0.05)
        let back = MusicRender.left(try MusicRender.render(e, seconds: 0.5))
        XCTAssertEqual(ToneMeasure.frequency(Array(stretched[4_800...]), sampleRate: 48_000), 500, accuracy: 2.5)
        XCTAssertEqual(ToneMeasure.frequency(tape, sampleRate: 48_000), 250, accuracy: 1.25)
        XCTAssertEqual(ToneMeasure.frequency(back, sampleRate: 48_000), 500, accuracy: 2.5)
        XCTAssertEqual(track.rateMode, .keepsPitch)
    }

    func testPlayAfterAStretchedTrackFollowsItsEnd() throws {
        // A 1 s track at rate 2 (keeps pitch) lasts 0.5 s; the next one (a 750 Hz tone) starts
        // where the stretched one ends: no gap, no overlap.
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let first = try e.loadMusic(path: try fixtures.sineWAV("a.wav", seconds: 1))
        let second = try e.loadMusic(path: try fixtures.sineWAV("b.wav", frequency: 750, seconds: 0.5))
        first.rate = 2
        try first.play()
        try second.play(after: first)
        let out = MusicRender.left(try MusicRender.render(e, seconds: 1.2, block: 960))
        XCTAssertEqual(Double(MusicRender.lastSound(out) + 1) / 48_000, 1.0, accuracy: 0.012, "0.5 s stretched + 0.5 s")
        XCTAssertEqual(ToneMeasure.frequency(Array(out[2_400..<21_600]), sampleRate: 48_000), 500, accuracy: 2.5, "the first at its pitch")
        XCTAssertEqual(ToneMeasure.frequency(Array(out[26_400..<45_600]), sampleRate: 48_000), 750, accuracy: 3.75, "then the second")
        // No silent gap across the join: every 10 ms window between them holds sound.
        for start in stride(from: 21_600, to: 26_400, by: 480) {
            XCTAssertGreaterThan(Level.rms(out, start..<(start + 480)), 0.1, "window at \(start)")
        }
        XCTAssertFalse(first.isPlaying)
    }

    func testALoopAddedAfterTheStretchedEndWasDecodedStillPlays() throws {
        // At rate 1.5 a 1 s file lasts 0.667 s. By 0.55 s the decoder has read to the end (the
        // queue holds half a second); adding a loop then must still play the file again.
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: try fixtures.sineWAV("a.wav", seconds: 1))
        track.rate = 1.5
        try track.play()
        var out = try MusicRender.render(e, seconds: 0.55, block: 960)
        track.numberOfLoops = 1
        out += try MusicRender.render(e, seconds: 1.0, block: 960)
        let left = MusicRender.left(out)
        // (Each stretched end lands within a sequence of its nominal time: ~10 ms per pass.)
        XCTAssertEqual(Double(MusicRender.lastSound(left) + 1) / 48_000, 2.0 / 1.5, accuracy: 0.035, "two passes at 1.5")
        for start in stride(from: 2_400, to: 60_000, by: 480) {
            XCTAssertGreaterThan(Level.rms(left, start..<(start + 480)), 0.1, "no gap at \(start)")
        }
    }

    func testDeviceRecoveryRestoresRateModeAndPosition() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: try fixtures.sineWAV("sine.wav", seconds: 4))
        track.rate = 0.5
        try track.play()
        for _ in 0..<60 { e.update(); _ = try e.render(frames: 800) }   // 1 s
        let before = track.currentTime
        XCTAssertEqual(before, 0.5, accuracy: 0.03)
        e.simulateDeviceLoss()
        e.update(); _ = try e.render(frames: 800)
        XCTAssertTrue(e.isDeviceLost)
        let deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline { usleep(2_000); e.update(); _ = try e.render(frames: 800) }
        XCTAssertFalse(e.isDeviceLost, "the device was not reopened within 5 s")
        var out: [Float] = []
        for _ in 0..<30 { e.update(); out += try e.render(frames: 800) }   // 0.5 s
        XCTAssertTrue(track.isPlaying)
        XCTAssertEqual(track.rate, 0.5)
        XCTAssertEqual(track.rateMode, .keepsPitch)
        XCTAssertEqual(track.currentTime, before + 0.25, accuracy: 0.25, "resumed near where it was, at half speed")
        let left = MusicRender.left(out)
        XCTAssertEqual(ToneMeasure.frequency(Array(left[4_800...]), sampleRate: 48_000), 500, accuracy: 2.5, "still 500 Hz")
    }
}

/// The stretcher alone, without OpenAL.
final class TimeStretcherTests: XCTestCase {
    private func sine(_ frequency: Double, frames: Int, channels: Int) -> [Float] {
        var x = [Float](repeating: 0, count: frames * channels)
        for f in 0..<frames {
            for c in 0..<channels { x[f * channels + c] = Float(0.5 * sin(2 * Double.pi * frequency * Double(f) / 48_000 + Double(c))) }
        }
        return x
    }

    func testRateOnePassesAudioThroughBitExact() {
        var st = TimeStretcher(channels: 2, sampleRate: 48_000)
        let x = sine(440, frames: 10_000, channels: 2)
        var out: [Float] = [], marks: [TimeStretcher.Mark] = []
        x[0..<6_000].withUnsafeBufferPointer { st.append($0) }
        st.process(into: &out, marks: &marks)
        x[6_000...].withUnsafeBufferPointer { st.append($0) }
        st.finish()
        st.process(into: &out, marks: &marks)
        XCTAssertEqual(out, x)
        XCTAssertTrue(st.isIdle)
        XCTAssertEqual(marks.map(\.step), [1, 1])
    }

    func testStretchedOutputLastsInputOverRateAndMarksFollowTheInput() {
        for (rate, channels) in [(0.5, 1), (0.75, 2), (1.5, 1), (2.0, 2)] {
            var st = TimeStretcher(channels: channels, sampleRate: 48_000)
            st.targetRate = rate
            st.jumpToTargetRate()
            let x = sine(440, frames: 96_000, channels: channels)
            var out: [Float] = [], marks: [TimeStretcher.Mark] = []
            for start in stride(from: 0, to: x.count, by: 4_096) {
                x[start..<min(x.count, start + 4_096)].withUnsafeBufferPointer { st.append($0) }
                st.process(into: &out, marks: &marks)
            }
            st.finish()
            st.process(into: &out, marks: &marks)
            XCTAssertEqual(Double(out.count / channels), 96_000 / rate, accuracy: 96_000 / rate * 0.01, "rate \(rate)")
            for c in 0..<channels {
                let ch = stride(from: c, to: out.count, by: channels).map { out[$0] }
                XCTAssertEqual(ToneMeasure.frequency(ch, sampleRate: 48_000), 440, accuracy: 2.2, "rate \(rate) channel \(c)")
                // (Not the last 50 ms: the stretched end fades out over its last overlap.)
                XCTAssertLessThan(ToneMeasure.distortion(Array(ch.dropLast(2_400)), frequency: 440, sampleRate: 48_000), -40, "rate \(rate) channel \(c)")
            }
            XCTAssertEqual(st.bufferedFrames, 0)
            // Every mark's input frame is where the output is at that rate, within one sequence.
            for m in marks where m.step != 1 {
                XCTAssertEqual(m.streamFrame, Double(m.outputFrame) * rate, accuracy: Double(st.sequence), "rate \(rate)")
            }
        }
    }

    func testAnAbsurdRateIsClampedAndNaNIgnored() {
        var st = TimeStretcher(channels: 1, sampleRate: 48_000)
        st.targetRate = 100
        XCTAssertEqual(st.targetRate, TimeStretcher.rateRange.upperBound)
        st.targetRate = .nan
        XCTAssertEqual(st.targetRate, 1)
        st.targetRate = 0
        XCTAssertEqual(st.targetRate, TimeStretcher.rateRange.lowerBound)
    }
}
