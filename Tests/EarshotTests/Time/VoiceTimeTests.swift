@testable import Earshot
import Foundation
import XCTest

/// Voices on the audio clock, measured on the loopback output: where a voice is (`time`, loops
/// counted, through pitch changes, pauses and steals), when it started (`startTime`), and the
/// markers of its clip reported on `engine.markers` at the audio times their frames are heard —
/// checked against the clicks the same frames carry in the rendered sound.
final class VoiceTimeTests: XCTestCase {
    /// A 1 s mono 48 kHz clip of silence with a full-scale click at each of `clicks`.
    private func clickClip(_ engine: AudioEngine, clicks: [Int], frames: Int = 48_000) throws -> Clip {
        var samples = [Float](repeating: 0, count: frames)
        for c in clicks { samples[c] = 1 }
        return try engine.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(samples)), name: "clicks")
    }

    /// Renders `seconds` in blocks of `block` frames (an update before each) and returns the left channel.
    private func render(_ engine: AudioEngine, seconds: Double, block: Int, each: (Int) throws -> Void = { _ in }) throws -> [Float] {
        var left: [Float] = []
        var done = 0
        let total = Int((seconds * 48_000).rounded())
        while done < total {
            try each(done)
            engine.update()
            let n = min(block, total - done)
            let out = try engine.render(frames: n)
            left += stride(from: 0, to: out.count, by: 2).map { out[$0] }
            done += n
        }
        return left
    }

    /// Frames where the signal rises past half of its peak after silence (click onsets).
    private func onsets(_ x: [Float]) -> [Int] {
        let peak = x.map(abs).max() ?? 0
        var found: [Int] = []
        var quietUntil = 0
        for (i, v) in x.enumerated() where abs(v) > peak / 2 && i >= quietUntil {
            found.append(i)
            quietUntil = i + 2_000
        }
        return found
    }

    /// Collects the markers stream until the engine shuts down (which finishes it).
    private func markers(_ engine: AudioEngine, _ body: () throws -> Void) async rethrows -> [MarkerEvent] {
        let stream = engine.markers
        try body()
        engine.shutdown()
        var events: [MarkerEvent] = []
        for await e in stream { events.append(e) }
        return events
    }

    func testCueMarkersOfAWAVAreReportedAtTheTimesTheyAreHeardAtRate1And1_5() async throws {
        let dir = try MusicFixtures()
        let path = dir.path("cues.wav")
        // A 1 s WAV with cue points "a" at 0.25 s and "b" at 0.75 s, and a click on each.
        try MarkerFiles.write(.init(frames: 48_000, cues: [.init(id: 1, frame: 12_000, name: "a"), .init(id: 2, frame: 36_000, name: "b")],
                                    clicks: [12_000, 36_000]), to: path)
        for pitch: Float in [1, 1.5] {
            for block in [800, 37] {
                let engine = try TestSignals.loopbackEngine()
                let clip = try engine.loadClip(path: path)
                XCTAssertEqual(clip.markers.map(\.name), ["a", "b"])
                var voice: Voice?
                var sound: [Float] = []
                let events = try await markers(engine) {
                    var options = PlayOptions(pitch: pitch)
                    options.loopCount = 2   // three passes: it plays three times
                    options.startTime = 0.1
                    voice = try engine.play(clip, options: options)
                    sound = try render(engine, seconds: 0.1 + 3.2 / Double(pitch), block: block)
                }
                let what = "pitch \(pitch), \(block)-frame renders"
                XCTAssertEqual(events.map(\.name), ["a", "b", "a", "b", "a", "b"], what)
                XCTAssertTrue(events.allSatisfy { $0.voice == voice && $0.kind == .marker }, what)
                let heard = onsets(sound)
                XCTAssertEqual(heard.count, 6, "\(what): clicks at \(heard)")
                for (i, e) in events.enumerated() {
                    let clipTime = Double(i / 2) + (i % 2 == 0 ? 0.25 : 0.75)
                    XCTAssertEqual(e.audioTime, 0.1 + clipTime / Double(pitch), accuracy: 0.001, "\(what): marker \(i)")
                    if i < heard.count {
                        // The event's time is the frame the click is heard on (resampled at 1.5: ±2 frames).
                        XCTAssertEqual(e.audioTime * 48_000, Double(heard[i]), accuracy: pitch == 1 ? 0.5 : 2, "\(what): marker \(i)")
                    }
                }
            }
        }
    }

    /// Every marker is sent by the render that plays it: a sentinel sent after each render
    /// closes the batch, and each batch holds exactly the markers heard within that render.
    func testMarkersArriveWithTheRenderThatPlaysThem() async throws {
        let engine = try TestSignals.loopbackEngine()
        let clip = try clickClip(engine, clicks: [4_000, 20_000]).withMarkers([Marker(name: "x", frame: 4_000), Marker(name: "y", frame: 20_000)])
        let stream = engine.markers
        let sentinel = Voice(engine: engine, id: .refused)
        var ranges: [Range<Int>] = []
        _ = try engine.play(clip, options: .init(loop: true))
        var frame = 0
        for n in [1_000, 3_999, 1, 5_000, 37, 48_000, 800] {
            _ = try engine.render(frames: n)
            engine.sendMarkers([MarkerEvent(origin: .voice(sentinel), kind: .marker, name: "--", audioTime: 0)])
            ranges.append(frame..<(frame + n))
            frame += n
        }
        engine.shutdown()
        var batches: [[MarkerEvent]] = [[]]
        for await e in stream {
            if e.name == "--" { batches.append([]) } else { batches[batches.count - 1].append(e) }
        }
        batches.removeLast()
        XCTAssertEqual(batches.count, ranges.count)
        let marked: [Int] = [4_000, 20_000, 52_000, 68_000]   // x and y on the first two passes
        let expected: [[Int]] = ranges.map { r in marked.filter { r.contains($0) } }
        XCTAssertEqual(batches.map { $0.map { Int(($0.audioTime * 48_000).rounded()) } }, expected)
    }

    func testTimeCountsLoopsPitchAndStandsWhilePaused() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try clickClip(engine, clicks: [0])
        let voice = try engine.play(clip, options: .init(loop: true))
        XCTAssertEqual(voice.time ?? -1, 0, accuracy: 1e-9)
        _ = try render(engine, seconds: 2.5, block: 37)
        XCTAssertEqual(voice.time ?? -1, 2.5, accuracy: 1.0 / 48_000, "a 1 s loop heard for 2.5 s")
        voice.pitch = 1.5
        _ = try render(engine, seconds: 1, block: 800)
        XCTAssertEqual(voice.time ?? -1, 4.0, accuracy: 1.0 / 48_000, "then 1 s at pitch 1.5")
        engine.setPaused(true, of: voice)
        _ = try render(engine, seconds: 0.5, block: 512)
        let paused = voice.time ?? -1
        // Pausing fades out over the engine's fade time (5 ms), during which it still moves.
        XCTAssertEqual(paused, 4.0, accuracy: 0.0075 + 1.0 / 48_000)
        _ = try render(engine, seconds: 0.5, block: 512)
        XCTAssertEqual(voice.time ?? -1, paused, accuracy: 1e-9, "stands while paused")
        engine.setPaused(false, of: voice)
        _ = try render(engine, seconds: 1, block: 800)
        XCTAssertEqual(voice.time ?? -1, paused + 1.5, accuracy: 0.0075, "runs on at 1.5 once resumed")
        voice.stop()
        _ = try render(engine, seconds: 0.05, block: 800)
        XCTAssertNil(voice.time, "a stale handle has no time")
    }

    /// A voice that loses its source keeps its time (virtual), and gets it back where it is.
    func testTimeRunsOnThroughASteal() throws {
        let engine = try TestSignals.loopbackEngine(realVoices: 1)
        defer { engine.shutdown() }
        let clip = try clickClip(engine, clicks: [0], frames: 12_000)   // a 0.25 s loop
        let low = try engine.play(clip, options: .init(loop: true, priority: 200))
        _ = try render(engine, seconds: 0.6, block: 800)
        let high = try engine.play(clip, options: .init(loop: true, priority: 10))
        _ = try render(engine, seconds: 1.0, block: 800)
        XCTAssertEqual(low.status, .virtual)
        XCTAssertEqual(low.time ?? -1, 1.6, accuracy: 1.0 / 48_000)
        // The new voice waited for the stolen source's 5 ms fade-out, then began from its first frame.
        XCTAssertEqual(high.time ?? -1, 1.0 - 0.005, accuracy: 1.0 / 48_000)
        high.stop()
        _ = try render(engine, seconds: 0.5, block: 800)
        XCTAssertEqual(low.status, .real)
        XCTAssertEqual(low.time ?? -1, 2.1, accuracy: 1.0 / 48_000, "back on a source, 0.5 s later")
    }

    /// A lost device takes every source: the voice goes on virtually from where it was, and on
    /// the rebuilt device its time has kept every pass.
    func testTimeRunsOnThroughADeviceLoss() throws {
        let engine = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
        defer { engine.shutdown() }
        let clip = try clickClip(engine, clicks: [0], frames: 12_000)   // a 0.25 s loop
        let voice = try engine.play(clip, options: .init(loop: true))
        _ = try render(engine, seconds: 0.6, block: 800)
        engine.simulateDeviceLoss()
        engine.update()   // lost: every voice virtual
        let lost = voice.time ?? -1
        XCTAssertEqual(lost, 0.6, accuracy: 1.0 / 48_000)
        engine.update()   // a new (loopback) device: sources again
        _ = try render(engine, seconds: 0.7, block: 800)
        XCTAssertEqual(voice.status, .real)
        XCTAssertEqual(voice.time ?? -1, 1.3, accuracy: 1.0 / 48_000, "five passes and a fifth, across the loss")
    }

    func testTimeOfAnOffsetOneShotAndItsEnd() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try clickClip(engine, clicks: [0])
        var options = PlayOptions(delay: 0.2)
        options.offset = 0.25
        let voice = try engine.play(clip, options: options)
        _ = try render(engine, seconds: 0.1, block: 800)
        XCTAssertEqual(voice.time ?? -1, 0.25, accuracy: 1e-9, "before its start: its offset")
        _ = try render(engine, seconds: 0.6, block: 800)
        XCTAssertEqual(voice.time ?? -1, 0.75, accuracy: 1.0 / 48_000)
        _ = try render(engine, seconds: 0.3, block: 800)
        XCTAssertNil(voice.time, "ended at 1 s: stale")
    }

    func testStartTimeIsTheAudioTimeOfTheFirstFrame() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let clip = try clickClip(engine, clicks: [0])
        _ = try engine.render(frames: 1_234)
        let now = try engine.play(clip)
        XCTAssertEqual(now.startTime ?? -1, 1_234.0 / 48_000, accuracy: 1e-12)
        var at = PlayOptions()
        at.startTime = 0.5
        XCTAssertEqual(try engine.play(clip, options: at).startTime ?? -1, 0.5, accuracy: 1e-12)
        at.delay = 0.01
        XCTAssertEqual(try engine.play(clip, options: at).startTime ?? -1, 0.51, accuracy: 1e-12)
        let delayed = try engine.play(clip, options: .init(delay: 0.01))
        XCTAssertEqual(delayed.startTime ?? -1, 1_234.0 / 48_000 + 0.01, accuracy: 1e-12)
        // And the click of the delayed voice is heard there: 480 frames after the call's frame.
        let out = try engine.render(frames: 4_000)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        XCTAssertEqual(onsets(Array(left[1...])).first.map { $0 + 1 }, 480)
    }

    func testMarkersStopWithTheVoiceAndSkipAnOffset() async throws {
        let engine = try TestSignals.loopbackEngine()
        let clip = try clickClip(engine, clicks: []).withMarkers([Marker(name: "early", frame: 2_400), Marker(name: "late", frame: 40_000)])
        let events = try await markers(engine) {
            var options = PlayOptions(loop: true)
            options.offset = 0.1   // past "early" on the first pass
            let voice = try engine.play(clip, options: options)
            _ = try render(engine, seconds: 1.5, block: 800)
            voice.stop()
            _ = try render(engine, seconds: 2, block: 800)
        }
        // "late" (40 000 − 4 800) / 48 000 s in; the second pass begins 43 200 frames in, "early"
        // 2 400 frames later; the stop at 1.5 s comes before "late" of the second pass (1.733 s).
        XCTAssertEqual(events.map(\.name), ["late", "early"])
        for (e, frame) in zip(events, [35_200.0, 45_600.0]) {
            XCTAssertEqual(e.audioTime, frame / 48_000, accuracy: 1e-9)
        }
    }
}
