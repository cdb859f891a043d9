@testable import Earshot
import Foundation
import XCTest

/// `await voice.finished` (Voices/VoiceCompletions.swift): every waiter resumes with the voice's
/// end reason within one game frame of its last sample, at once for a voice already ended, and
/// with `.engineShutDown` when the engine shuts down first.
final class VoiceFinishedTests: XCTestCase {
    /// Starts a task awaiting `voice` that notes the audio frame it resumed at and the reason.
    private func watch(_ voice: Voice, in e: AudioEngine) -> (Task<VoiceEndReason?, Never>, Locked<Int?>) {
        let resumedAt = Locked<Int?>(nil)
        let task = Task.detached {
            let reason = await voice.finished
            resumedAt.withLock { $0 = e.audioFrame }
            return reason
        }
        return (task, resumedAt)
    }

    /// Waits (wall clock, bounded) until `condition` holds.
    private func eventually(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(5)
        while !condition(), Date() < deadline { usleep(500) }
    }

    func testItResumesWithinAFrameOfTheLastSample() async throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")   // 4,800 frames
        let voice = try e.play(tone)
        let (task, resumedAt) = watch(voice, in: e)
        let (second, _) = watch(voice, in: e)
        eventually { e.completions.waitingCount == 2 }
        var frames = 0
        while frames < 12_000 {
            e.update(deltaTime: 1 / 60)
            // The task runs meanwhile: give it the time it needs before the next frame.
            if e.completions.waitingCount == 0 { eventually { resumedAt.withLock { $0 } != nil } }
            if resumedAt.withLock({ $0 }) != nil { break }
            _ = try e.render(frames: 800)
            frames += 800
        }
        let reason = await task.value
        XCTAssertEqual(reason, .finished)
        let secondReason = await second.value
        XCTAssertEqual(secondReason, .finished, "every waiter resumes")
        let at = try XCTUnwrap(resumedAt.withLock { $0 })
        print("voice.finished resumed at audio frame \(at) (last sample 4,800)")
        XCTAssertGreaterThanOrEqual(at, 4_800)
        XCTAssertLessThanOrEqual(at - 4_800, 800, "within one 800-frame game frame of the last sample")
    }

    func testAVoiceThatEndedAlreadyAnswersAtOnce() async throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 1), name: "tone")
        let voice = try e.play(tone, options: .init(loop: true))
        voice.stop()
        e.update()
        _ = try e.render(frames: 800)
        e.update()
        let stopped = await voice.finished
        XCTAssertEqual(stopped, .stopped)
        let refused = await Voice(engine: e, id: .refused).finished
        XCTAssertEqual(refused, .refused)
        // Its slot reused and ended again: the first voice's end is no longer known.
        for _ in 0..<3 {
            let v = try e.play(tone, options: .init(loop: true))
            v.stop()
            e.update(); _ = try e.render(frames: 800); e.update()
        }
        let forgotten = await voice.finished
        XCTAssertNil(forgotten)
    }

    func testStolenAndStoppedVoicesSayWhy() async throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 1), name: "tone")
        let s = try e.makeSound(SoundDefinition(clips: [tone], limit: .init(count: 1, steal: .oldest), loop: true))
        let first = try e.play(s)
        let (oldest, _) = watch(first, in: e)
        eventually { e.completions.waitingCount == 1 }
        let second = try e.play(s)
        let (stopped, _) = watch(second, in: e)
        eventually { e.completions.waitingCount == 2 }
        second.stop()
        for _ in 0..<4 { e.update(); _ = try e.render(frames: 800) }
        e.update()
        let oldestReason = await oldest.value
        let stoppedReason = await stopped.value
        XCTAssertEqual(oldestReason, .stolen)
        XCTAssertEqual(stoppedReason, .stopped)
    }

    func testShutdownResumesEveryWaiter() async throws {
        let e = try TestSignals.loopbackEngine()
        let tone = try e.loadClip(TestSignals.sine(seconds: 1), name: "tone")
        let voices = try (0..<5).map { _ in try e.play(tone, options: .init(loop: true)) }
        let tasks = voices.map { watch($0, in: e).0 }
        eventually { e.completions.waitingCount == 5 }
        e.shutdown()
        for t in tasks {
            let reason = await t.value
            XCTAssertEqual(reason, .engineShutDown)
        }
        let late = await voices[0].finished
        XCTAssertEqual(late, .engineShutDown, "asked after shutdown: at once")
        XCTAssertEqual(e.completions.waitingCount, 0)
    }
}

/// `VoiceEvent.audioTime`: a voice that plays to its end reports the audio time of its last
/// frame, exactly, though the event comes with the update after it.
final class VoiceEndTimeTests: XCTestCase {
    func testAnEndIsTimedToItsLastFrame() throws {
        for (pitch, delay, block, expected) in [(Float(1), 0.0, 800, 4_800), (1, 0.0, 37, 4_800), (2, 0.0, 512, 2_400),
                                                (1, 0.25, 800, 16_800), (0.5, 0.0, 800, 9_600)] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let tone = try e.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")   // 4,800 frames
            let events = Locked<[VoiceEvent]>([])
            e.observeVoiceEvents { event in events.withLock { $0.append(event) } }
            let voice = try e.play(tone, options: .init(pitch: pitch, delay: delay))
            _ = try ScheduledStartTests.render(e, frames: 24_000, block: block)
            e.update()
            let end = try XCTUnwrap(events.withLock { $0 }.first { $0.voice == voice })
            XCTAssertEqual(end.reason, .finished)
            XCTAssertEqual(end.audioTime * 48_000, Double(expected), accuracy: 1,
                           "pitch \(pitch), delay \(delay), \(block)-frame renders")
        }
    }

    func testAStopIsTimedWhenItTookEffect() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 1), name: "tone")
        let events = Locked<[VoiceEvent]>([])
        e.observeVoiceEvents { event in events.withLock { $0.append(event) } }
        let voice = try e.play(tone, options: .init(loop: true))
        _ = try e.render(frames: 9_600)
        voice.stop()
        e.update()
        _ = try e.render(frames: 4_800)
        e.update()
        let end = try XCTUnwrap(events.withLock { $0 }.first { $0.voice == voice })
        XCTAssertEqual(end.reason, .stopped)
        XCTAssertEqual(end.audioTime, 0.2, accuracy: 0.02, "the stop took effect after its 5 ms fade, at 0.2 s")
    }
}
