@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Music on the audio clock, measured on the loopback output: starts and stops at a time land on
/// their frames whatever the render size, a fade at a time begins there, and the markers stream
/// reports beats, bars and code markers with their exact audio times.
final class MusicTimeTests: XCTestCase {
    /// A mono 48 kHz float WAV holding `level` everywhere (DC: every frame is sound).
    private func constantWAV(_ files: MusicFixtures, _ name: String, seconds: Double, level: Float = 0.5) throws -> String {
        let out = files.path(name)
        let writer = try AudioFileWriter(path: out, sampleRate: 48_000, channels: 1, format: .f32)
        try writer.write([Float](repeating: level, count: Int(seconds * 48_000)))
        try writer.close()
        return out
    }

    func testPlayAtStartsOnItsFrameWhateverTheRenderSize() throws {
        let files = try MusicFixtures()
        let click = try files.clickWAV("click.wav", seconds: 0.2, clickFrame: 0)
        let reference = try {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            try engine.loadMusic(path: click).play()
            return MusicRender.left(try engine.render(frames: 16))[0]
        }()
        XCTAssertGreaterThan(reference, 0.5)
        for block in [800, 512, 37] {
            for (time, frame) in [(0.5, 24_000), (0.51, 24_480), (0.5125, 24_600)] {
                let engine = try TestSignals.loopbackEngine()
                defer { engine.shutdown() }
                let track = try engine.loadMusic(path: click)
                // Scheduled mid-way through the output, after a few renders of the block size.
                var out = try MusicRender.render(engine, frames: 3 * block, block: block)
                try track.play(at: time)
                XCTAssertTrue(track.isWaitingToPlay)
                XCTAssertFalse(track.isPlaying)
                out += try MusicRender.render(engine, frames: 28_800 - 3 * block, block: block)
                let left = MusicRender.left(out)
                XCTAssertEqual(MusicRender.firstSound(left), frame, "play(at: \(time)) with \(block)-frame renders")
                XCTAssertEqual(left[frame], reference, accuracy: 1e-6, "the click itself, at the level a plain play() gives it")
                XCTAssertFalse(track.isWaitingToPlay)
            }
        }
    }

    func testStopAtEndsOnItsFrame() throws {
        let files = try MusicFixtures()
        let dc = try constantWAV(files, "dc.wav", seconds: 2)
        for block in [800, 512, 37] {
            for (time, frame) in [(0.5, 24_000), (0.51, 24_480), (0.5125, 24_600)] {
                let engine = try TestSignals.loopbackEngine()
                defer { engine.shutdown() }
                let track = try engine.loadMusic(path: dc)
                try track.play(at: 0.1)
                try track.stop(at: time)
                let left = MusicRender.left(try MusicRender.render(engine, seconds: 0.7, block: block))
                XCTAssertEqual(MusicRender.firstSound(left), 4_800, "started at 0.1 s")
                XCTAssertEqual(MusicRender.lastSound(left), frame - 1, "stop(at: \(time)) with \(block)-frame renders")
                // Full level up to the last frame: the queue was trimmed, not faded.
                XCTAssertEqual(left[frame - 1], left[frame - 200], accuracy: 1e-6)
                XCTAssertFalse(track.isPlaying)
                XCTAssertEqual(track.currentFrame, frame - 4_800, "the position is the frame it stopped on")
            }
        }
    }

    func testStopAtEndsWithStoppedEvent() async throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        let track = try engine.loadMusic(path: try constantWAV(files, "dc.wav", seconds: 2))
        try track.play()
        try track.stop(at: 0.25)
        _ = try MusicRender.render(engine, seconds: 0.5, block: 480)
        engine.shutdown()
        var reasons: [MusicTrack.Event.Reason] = []
        for await e in track.events { reasons.append(e.reason) }
        XCTAssertEqual(reasons, [.stopped])
    }

    func testFadeAtBeginsOnItsFrame() throws {
        let files = try MusicFixtures()
        let dc = try constantWAV(files, "dc.wav", seconds: 2)
        for block in [480, 512, 37] {
            let engine = try TestSignals.loopbackEngine()
            defer { engine.shutdown() }
            let track = try engine.loadMusic(path: dc)
            try track.play()
            track.fade(to: 0, duration: 0.5, at: 0.5125)   // frame 24,600, inside a render of each size
            let left = MusicRender.left(try MusicRender.render(engine, seconds: 1.2, block: block))
            let full = left[1_000]
            XCTAssertGreaterThan(full, 0.25)
            // Untouched up to the fade's frame, moving from it on: the linear ramp, sample by sample,
            // over the rest of the render that holds it.
            XCTAssertEqual(left[0..<24_600].min() ?? 0, full, accuracy: 1e-6, "\(block): the level holds until 0.5125 s")
            XCTAssertEqual(left[0..<24_600].max() ?? 0, full, accuracy: 1e-6)
            let inRender = (24_600 / block + 1) * block - 24_600   // frames of the fade in the render that holds it
            for j in [1, inRender / 2, inRender - 1] where j > 0 {
                XCTAssertEqual(left[24_600 + j], full * (1 - Float(j) / 24_000), accuracy: 1e-5, "\(block): frame 24,600 + \(j)")
            }
            // Halfway at 0.7625 s, silent from 1.0125 s (per render from there, as every fade).
            XCTAssertEqual(left[36_600] / full, 0.5, accuracy: Float(block + 64) / 24_000 + 1e-3)
            XCTAssertEqual(MusicRender.lastSound(left), 48_600 + block + 64, accuracy: block + 64)
            XCTAssertTrue(track.isPlaying, "faded, not stopped")
        }
    }

    /// Collects the markers stream until the engine shuts down (which finishes it).
    private func markerEvents(_ engine: AudioEngine, seconds: Double, block: Int = 512,
                              _ setUp: () throws -> Void) async throws -> [MarkerEvent] {
        let stream = engine.markers
        try setUp()
        _ = try MusicRender.render(engine, seconds: seconds, block: block)
        engine.shutdown()
        var events: [MarkerEvent] = []
        for await e in stream { events.append(e) }   // ends: shutdown finished the stream
        return events
    }

    func testBeatsAndBarsOfA120BPMTrack() async throws {
        let files = try MusicFixtures()
        let path = try files.sineWAV("sine.wav", seconds: 4)
        for rate: Float in [1, 1.5] {
            let engine = try TestSignals.loopbackEngine()
            let track = try engine.loadMusic(path: path)
            let events = try await markerEvents(engine, seconds: 8.2 / Double(rate)) {
                track.tempo = Tempo(bpm: 120, beatsPerBar: 4, firstBeat: 0)
                track.numberOfLoops = 1
                track.rate = rate
                try track.play(at: 0.1)
            }
            let beats = events.compactMap { e -> (Int, Int, Double)? in
                if case .beat(let bar, let beat) = e.kind { return (bar, beat, e.audioTime) }
                return nil
            }
            let bars = events.compactMap { e -> (Int, Double)? in
                if case .bar(let bar) = e.kind { return (bar, e.audioTime) }
                return nil
            }
            // Two passes of a 4 s file: 4 beats of each of 2 bars, twice.
            XCTAssertEqual(beats.count, 16, "rate \(rate)")
            XCTAssertEqual(bars.count, 4, "rate \(rate)")
            let tolerance = rate == 1 ? 1e-9 : 1e-3
            for (k, b) in beats.enumerated() {
                XCTAssertEqual(b.2, 0.1 + Double(k) * 0.5 / Double(rate), accuracy: tolerance, "beat \(k) at rate \(rate)")
                XCTAssertEqual(b.0, (k % 8) / 4 + 1)
                XCTAssertEqual(b.1, k % 4 + 1)
            }
            for (k, b) in bars.enumerated() {
                XCTAssertEqual(b.1, 0.1 + Double(k) * 2 / Double(rate), accuracy: tolerance, "bar \(k) at rate \(rate)")
                XCTAssertEqual(b.0, k % 2 + 1)
            }
            XCTAssertTrue(events.allSatisfy { $0.track === track })
        }
    }

    func testCodeMarkersEachLoopAtRates() async throws {
        let files = try MusicFixtures()
        let path = try files.sineWAV("sine.wav", seconds: 1)
        for rate: Float in [1, 1.5] {
            let engine = try TestSignals.loopbackEngine()
            let track = try engine.loadMusic(path: path)
            let events = try await markerEvents(engine, seconds: 3.2 / Double(rate), block: 37) {
                track.markers = [MusicTrack.Cue(name: "b", seconds: 0.75), MusicTrack.Cue(name: "a", seconds: 0.25)]
                track.numberOfLoops = 2
                track.rate = rate
                try track.play()
            }
            XCTAssertEqual(events.map(\.name), ["a", "b", "a", "b", "a", "b"], "rate \(rate)")
            for (i, e) in events.enumerated() {
                let file = Double(i / 2) + (i % 2 == 0 ? 0.25 : 0.75)
                XCTAssertEqual(e.audioTime, file / Double(rate), accuracy: 0.001, "marker \(i) at rate \(rate)")
                XCTAssertEqual(e.kind, .marker)
            }
        }
    }

    /// A track takes its file's markers (WAV cue points named by labl, written by python3: no
    /// encoder here writes them) and reports them on every loop; a file whose cue chunk lies about
    /// its count plays without markers.
    func testFileMarkersOfATrack() async throws {
        let files = try MusicFixtures()
        let path = files.directory.appendingPathComponent("cues.wav").path
        try MarkerFiles.write(.init(rate: 48_000, frames: 48_000,
                                    cues: [.init(id: 1, frame: 12_000, name: "a"), .init(id: 2, frame: 36_000, name: "b")]), to: path)
        let engine = try TestSignals.loopbackEngine()
        let track = try engine.loadMusic(path: path)
        XCTAssertEqual(track.markers, [MusicTrack.Cue(name: "a", seconds: 0.25), MusicTrack.Cue(name: "b", seconds: 0.75)])
        let events = try await markerEvents(engine, seconds: 2.1, block: 37) {
            track.numberOfLoops = 1
            try track.play()
        }
        XCTAssertEqual(events.map(\.name), ["a", "b", "a", "b"])
        for (e, t) in zip(events, [0.25, 0.75, 1.25, 1.75]) { XCTAssertEqual(e.audioTime, t, accuracy: 0.001) }

        let lying = files.directory.appendingPathComponent("lying.wav").path
        try MarkerFiles.write(.init(rate: 48_000, frames: 48_000, cues: [.init(id: 1, frame: 12_000, name: "a")], cueCount: 1_000_000), to: lying)
        let other = try TestSignals.loopbackEngine()
        defer { other.shutdown() }
        let plain = try other.loadMusic(path: lying)
        XCTAssertEqual(plain.markers, [], "unreadable markers: none, and the track still plays")
        try plain.play()
        XCTAssertGreaterThan(Level.rms(try MusicRender.render(other, seconds: 0.2, block: 512), 2_400..<9_600), 0.05)
    }

    /// An interruption holds the audio clock: a start, a stop and the markers' times are audio
    /// times, so on the output they all move on by the frames the hold lasted.
    func testAnInterruptionMovesTimesByItsLength() async throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        let stream = engine.markers
        let dc = try engine.loadMusic(path: try constantWAV(files, "dc.wav", seconds: 2))
        dc.markers = [MusicTrack.Cue(name: "m", seconds: 0.25)]
        try dc.play(at: 0.5)
        try dc.stop(at: 0.9)
        var out = try MusicRender.render(engine, frames: 9_600, block: 512)   // 0.2 s
        engine.session.beginInterruption()
        out += try MusicRender.render(engine, frames: 14_400, block: 512)     // 0.3 s not heard
        engine.session.resume()
        out += try MusicRender.render(engine, frames: 40_000, block: 37)
        let left = MusicRender.left(out)
        XCTAssertEqual(MusicRender.firstSound(left), 24_000 + 14_400, "the start moved on by the hold")
        XCTAssertEqual(MusicRender.lastSound(left), 43_200 + 14_400 - 1, "the stop too")
        engine.shutdown()
        var events: [MarkerEvent] = []
        for await e in stream { events.append(e) }
        XCTAssertEqual(events.map(\.name), ["m"])
        XCTAssertEqual(events.first?.audioTime ?? 0, 0.75, accuracy: 1e-9, "an audio time: the hold is not counted")
    }

    /// A prepared track and a paused one start at a time from where they are; play() and stop()
    /// cancel a start at a time (and its stop).
    func testPlayAtFromPreparedAndPausedAndCancelled() throws {
        let files = try MusicFixtures()
        let click = try files.clickWAV("click.wav", seconds: 1, clickFrame: 4_800)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: click)
        try track.prepareToPlay()
        try track.play(at: 0.25)
        var out = try MusicRender.render(engine, frames: 24_000, block: 512)
        XCTAssertEqual(MusicRender.firstSound(MusicRender.left(out)), 12_000 + 4_800, "prepared: from frame 0 at 0.25 s")
        // Paused before the click of a second pass: resumes at a time from where it stood.
        track.stop()
        track.currentTime = 0
        try track.play()
        out = try MusicRender.render(engine, frames: 2_400, block: 512)
        track.pause()
        let at = engine.audioTime + 0.1
        try track.play(at: at)
        out = try MusicRender.render(engine, frames: 12_000, block: 37)
        XCTAssertEqual(MusicRender.firstSound(MusicRender.left(out)), 4_800 + 2_400, "paused at frame 2,400 of the file")
        // Cancelled: play() starts now, stop() leaves it stopped, and the stop of a cancelled start goes with it.
        track.stop()
        track.currentTime = 0
        try track.play(at: engine.audioTime + 1)
        try track.stop(at: engine.audioTime + 0.01)
        try track.play()
        XCTAssertFalse(track.isWaitingToPlay)
        out = try MusicRender.render(engine, frames: 9_600, block: 512)
        XCTAssertEqual(MusicRender.firstSound(MusicRender.left(out)), 4_800, "play() started it at once, the stop went with the start")
        track.stop()
        try track.play(at: engine.audioTime + 0.01)
        track.stop()
        XCTAssertFalse(track.isWaitingToPlay)
        out = try MusicRender.render(engine, frames: 9_600, block: 512)
        XCTAssertEqual(MusicRender.firstSound(MusicRender.left(out)), -1, "stop() cancelled the start")
    }

    /// A lost device holds the audio clock: a start at a time waits through the loss and the
    /// rebuild, and lands on its frame of audio time on the new device (after the output frames
    /// the clock did not count, if the rebuild took renders).
    func testAStartAtATimeOutlastsADeviceLoss() throws {
        let files = try MusicFixtures()
        let click = try files.clickWAV("click.wav", seconds: 0.2, clickFrame: 0)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: click)
        try track.play(at: 0.5)
        var out = try MusicRender.render(engine, frames: 9_728, block: 512)
        engine.simulateDeviceLoss()
        let deadline = Date().addingTimeInterval(5)
        out += try engine.render(frames: 512)
        while engine.isDeviceLost, Date() < deadline { usleep(2_000); out += try engine.render(frames: 512) }
        XCTAssertFalse(engine.isDeviceLost, "rebuilt")
        out += try MusicRender.render(engine, frames: 28_800, block: 512)
        let held = out.count / 2 - engine.audioFrame   // output frames the clock did not count
        XCTAssertGreaterThanOrEqual(held, 0)
        XCTAssertEqual(MusicRender.firstSound(MusicRender.left(out)), 24_000 + held, "on its audio frame after \(held) held frames")
    }

    /// A fade at a time on a track that has not started yet stays on the audio clock through an
    /// interruption before either: both move on by the frames the hold lasted.
    func testAFadeAtATimeOfAScheduledTrackOutlastsAnInterruption() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let dc = try engine.loadMusic(path: try constantWAV(files, "dc.wav", seconds: 2))
        try dc.play(at: 0.5)
        dc.fade(to: 0, duration: 0.5, at: 0.6125)
        var out = try MusicRender.render(engine, frames: 9_600, block: 480)
        engine.session.beginInterruption()
        out += try MusicRender.render(engine, frames: 14_400, block: 480)
        engine.session.resume()
        out += try MusicRender.render(engine, frames: 33_600, block: 480)
        let left = MusicRender.left(out)
        XCTAssertEqual(MusicRender.firstSound(left), 38_400)
        let full = left[40_000], onset = 29_400 + 14_400   // 0.6125 s of audio time
        XCTAssertEqual(left[onset - 1], full, accuracy: 1e-6, "untouched up to the fade's frame")
        XCTAssertEqual(left[onset + 200], full * (1 - 200 / 24_000), accuracy: 1e-5, "the ramp from its frame")
    }

    func testBadTimesAndMarkersAreRefused() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        let track = try engine.loadMusic(path: try files.sineWAV("sine.wav", seconds: 1))
        XCTAssertThrowsError(try track.play(at: .nan))
        XCTAssertThrowsError(try track.stop(at: .infinity))
        XCTAssertThrowsError(try track.setMarkers([MusicTrack.Cue(name: "x", seconds: 2)]))
        XCTAssertThrowsError(try track.setTempo(Tempo(bpm: 0)))
        XCTAssertThrowsError(try track.setTempo(Tempo(bpm: 120, beatsPerBar: 0)))
        XCTAssertTrue(track.markers.isEmpty)
        try track.play()
        XCTAssertThrowsError(try track.play(at: 1), "already playing")
        engine.shutdown()
        XCTAssertThrowsError(try track.play(at: 1))
    }
}
