@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// A delayed voice starts on its frame on a loopback engine, whatever the render's size: the
/// render cuts its mix calls where the next scheduled start is due (VoicePool+Starts.swift).
/// Measured on the output: the first frame of a click (a block of constant level) is where the
/// voice started.
final class ScheduledStartTests: XCTestCase {
    /// 240 frames at half scale, mono 48 kHz: a click whose first frame is unmistakable.
    static let click = PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16([Int16](repeating: 16_384, count: 240)))

    /// The first frame whose left sample is audible, at or after `from`.
    static func onset(_ out: [Float], from: Int = 0) -> Int? {
        stride(from: from * 2, to: out.count, by: 2).first { abs(out[$0]) > 0.01 }.map { $0 / 2 }
    }

    /// Renders `frames` in blocks of `block` (the last shorter), with an update at every 800
    /// frames as a 60 Hz game would.
    static func render(_ e: AudioEngine, frames: Int, block: Int) throws -> [Float] {
        var out: [Float] = []
        var done = 0, nextUpdate = 0
        while done < frames {
            if done >= nextUpdate { e.update(deltaTime: 1 / 60); nextUpdate += 800 }
            let n = min(block, frames - done, nextUpdate - done)
            out += try e.render(frames: n)
            done += n
        }
        return out
    }

    func testDelaysStartOnTheirFrameWhateverTheRenderSize() throws {
        for block in [800, 512, 37] {
            for (delay, frame) in [(0.5, 24_000), (0.51, 24_480), (0.5125, 24_600)] {
                let e = try TestSignals.loopbackEngine()
                defer { e.shutdown() }
                let click = try e.loadClip(Self.click, name: "click")
                _ = try e.play(click, options: .init(delay: delay))
                let out = try Self.render(e, frames: 26_000, block: block)
                XCTAssertEqual(Self.onset(out), frame, "delay \(delay) s with \(block)-frame renders")
            }
        }
    }

    func testADelayCountsFromTheFrameOfTheCall() throws {
        for block in [800, 512, 37] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let click = try e.loadClip(Self.click, name: "click")
            var out = try Self.render(e, frames: 1_013, block: block)   // the call lands mid-block
            _ = try e.play(click, options: .init(delay: 0.01))
            out += try Self.render(e, frames: 2_000, block: block)
            XCTAssertEqual(Self.onset(out), 1_013 + 480, "\(block)-frame renders")
        }
    }

    /// Many voices, each on its own frame, in one render: each starts exactly where it is due,
    /// and a voice stopped before its start never sounds.
    func testManyScheduledStartsInOneRender() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let click = try e.loadClip(Self.click, name: "click")
        let frames = [1_000, 1_001, 1_777, 3_000, 9_999]
        for f in frames.reversed() {
            _ = try e.play(click, options: .init(delay: Double(f) / 48_000))
        }
        let cancelled = try e.play(click, options: .init(delay: 0.1))   // frame 4,800
        e.stop(cancelled)
        let out = try e.render(frames: 12_000)
        var onsets: [Int] = []
        var from = 0
        while let o = Self.onset(out, from: from) {
            onsets.append(o)
            // The next click begins where the level steps up again (the clicks overlap when
            // closer than 240 frames: one frame apart doubles the level).
            let level = abs(out[o * 2])
            from = (o + 1..<out.count / 2).first { abs(out[$0 * 2]) > level * 1.5 || abs(out[$0 * 2]) < 0.001 } ?? out.count / 2
            if from < out.count / 2, abs(out[from * 2]) > level * 1.5 { onsets.append(from); from += 1 }
            while from < out.count / 2, abs(out[from * 2]) > 0.001 { from += 1 }
        }
        XCTAssertEqual(Array(Set(onsets)).sorted(), frames)
        XCTAssertLessThan(Level.rms(out, 4_800 * 2..<4_900 * 2), 1e-6, "a stopped voice never sounds")
    }

    /// Pauses hold a delay back (playback time): the start moves on by the pause, still on an
    /// exact frame.
    func testAPauseMovesTheStartByItsLength() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let click = try e.loadClip(Self.click, name: "click")
        _ = try e.play(click, options: .init(delay: 0.05))   // frame 2,400
        var out = try Self.render(e, frames: 800, block: 800)
        try e.setPaused(true, for: .sfx)
        out += try Self.render(e, frames: 1_600, block: 800)   // 1,600 frames paused
        try e.setPaused(false, for: .sfx)
        out += try Self.render(e, frames: 4_800, block: 800)
        XCTAssertEqual(Self.onset(out), 2_400 + 1_600)
    }
}

/// The audio clock (Time/AudioClock.swift, `AudioEngine.audioTime`) and plays placed on it.
final class AudioClockTests: XCTestCase {
    func testTheClockCountsRenderedFramesAndStandsWhileHeld() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        XCTAssertEqual(e.audioFrame, 0)
        _ = try e.render(frames: 37)
        _ = try e.render(frames: 800)
        XCTAssertEqual(e.audioFrame, 837)
        XCTAssertEqual(e.audioTime, 837.0 / 48_000, accuracy: 1e-12)
        e.session.beginInterruption()
        _ = try e.render(frames: 4_800)
        XCTAssertEqual(e.audioFrame, 837, "an interruption holds the clock")
        e.session.resume()
        _ = try e.render(frames: 100)
        XCTAssertEqual(e.audioFrame, 937)
        e.simulateDeviceLoss()
        e.update()
        XCTAssertTrue(e.isDeviceLost)
        _ = try e.render(frames: 480)
        XCTAssertEqual(e.audioFrame, 937, "a lost device holds the clock")
        let deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline { usleep(2_000); e.update() }
        XCTAssertFalse(e.isDeviceLost)
        _ = try e.render(frames: 63)
        XCTAssertEqual(e.audioFrame, 1_000, "the new device carries on from where it stood")
        e.shutdown()
        XCTAssertEqual(e.audioFrame, 1_000, "after shutdown it keeps its last value")
    }

    /// Clicks placed on the clock start on frames 24,000 / 24,480 / 24,600 whatever the renders,
    /// also after frames the clock did not count (an interruption) and with a delay added.
    func testStartTimesLandOnTheirFrames() throws {
        for block in [800, 512, 37] {
            for (time, frame) in [(0.5, 24_000), (0.51, 24_480), (0.5125, 24_600)] {
                let e = try TestSignals.loopbackEngine()
                defer { e.shutdown() }
                let click = try e.loadClip(ScheduledStartTests.click, name: "click")
                var options = PlayOptions()
                options.startTime = time - 0.01
                options.delay = 0.01
                _ = try e.play(click, options: options)
                let out = try ScheduledStartTests.render(e, frames: 26_000, block: block)
                XCTAssertEqual(ScheduledStartTests.onset(out), frame, "start \(time) s with \(block)-frame renders")
            }
        }
        // 1,000 frames held by an interruption: the clock (and the start) move on by them.
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let click = try e.loadClip(ScheduledStartTests.click, name: "click")
        var out = try e.render(frames: 200)
        e.session.beginInterruption()
        out += try e.render(frames: 1_000)
        e.session.resume()
        var options = PlayOptions()
        options.startTime = 0.01   // audio frame 480: output frame 1,480
        _ = try e.play(click, options: options)
        out += try e.render(frames: 2_000)
        XCTAssertEqual(ScheduledStartTests.onset(out), 1_480)
        // A time already past starts at once; a sound takes the option too.
        let s = try e.makeSound(SoundDefinition(clips: [click]))
        var late = SoundPlayOptions()
        late.startTime = 0
        _ = try e.play(s, options: late)
        let now = e.audioFrame
        out = try e.render(frames: 100)
        XCTAssertEqual(ScheduledStartTests.onset(out), 0, "started at once (frame \(now))")
    }

    func testAbsurdStartTimesAreRefused() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let click = try e.loadClip(ScheduledStartTests.click, name: "click")
        for t in [-1, .nan, .infinity, -.infinity] as [Double] {
            var options = PlayOptions()
            options.startTime = t
            XCTAssertThrowsError(try e.play(click, options: options)) {
                guard case .invalidArgument(let m) = $0 as? EarshotError else { return XCTFail("\($0)") }
                XCTAssertTrue(m.hasPrefix("startTime"), m)
            }
        }
        XCTAssertEqual(e.activeVoiceCount, 0)
    }

    /// The clock model alone: holds nest, a restarted source does not jump, never backwards.
    func testTheClockModel() {
        var c = AudioClock(start: 10)
        XCTAssertEqual(c.time(source: 11), 1)
        c.hold(.interruption, source: 11)
        c.hold(.deviceLost, source: 12)
        c.release(.interruption, source: 13)
        XCTAssertEqual(c.time(source: 14), 1, "still held by the lost device")
        c.release(.deviceLost, source: 0)   // a new device's clock
        XCTAssertEqual(c.time(source: 0.5), 1.5)
        XCTAssertEqual(c.time(source: 0.2), 1.5, "never backwards")
        c.restart(source: 100)
        XCTAssertEqual(c.time(source: 101), 2.5)
    }
}
