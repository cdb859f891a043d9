@testable import Earshot
import COpenAL
import EarshotMeasure
import Foundation
import XCTest

/// Losing the output device and rebuilding on a new one: the bookkeeping, on loopback engines
/// (a simulated loss; the "reopened" device is a new loopback device). The real daemon kill and
/// restart is exercised by the PulseAudio integration test.
final class DeviceRecoveryTests: XCTestCase {
    private func render(_ e: AudioEngine, seconds: Double) throws -> [Float] {
        var out: [Float] = []
        var left = Int(seconds * 48_000)
        while left > 0 {
            e.update()
            let n = min(800, left)
            out += try e.render(frames: n)
            left -= n
        }
        return out
    }

    private func waitForRestore(_ e: AudioEngine) throws -> [Float] {
        var out: [Float] = []
        let deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline {
            usleep(2_000)
            out += try render(e, seconds: 800.0 / 48_000)
        }
        XCTAssertFalse(e.isDeviceLost, "the device was not reopened within 5 s")
        return out
    }

    func testVoicesResumeAtTheirClockOffsetAndClipsSurvive() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 8; $0.keepsClipsForRecovery = true }
        defer { e.shutdown() }
        let n = 48_000
        let ramp = (0..<n).map { Int16((-0.9 + 1.8 * Double($0) / Double(n)) * 32767) }
        let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(ramp)), name: "ramp")
        let beep = try e.loadClip(TestSignals.sine(seconds: 0.2), name: "beep")
        let voice = try e.play(clip, options: .init(loop: true, pan: 1))
        let collected = Locked<[DeviceEvent]>([])
        e.observeDeviceEvents { event in collected.withLock { $0.append(event) } }
        var out = try render(e, seconds: 0.5)
        let oldContext = e.context

        e.simulateDeviceLoss()
        out += try render(e, seconds: 800.0 / 48_000)          // the update that notices it
        XCTAssertTrue(e.isDeviceLost)
        XCTAssertEqual(voice.status, .virtual, "the voice plays on without a source")
        XCTAssertEqual(e.stats.realVoices, 0)
        // The game's calls keep working while the device is gone.
        let duringLoss = try e.play(beep, options: .init(loop: true, pan: -1))
        XCTAssertEqual(duringLoss.status, .virtual)
        voice.gain = 1
        out += try waitForRestore(e)
        XCTAssertFalse(e.context === oldContext, "a new context was built")
        out += try render(e, seconds: 0.3)
        XCTAssertEqual(voice.status, .real)
        XCTAssertEqual(duringLoss.status, .real)
        XCTAssertEqual(e.stats.clips, 2, "every clip was uploaded again")
        XCTAssertEqual(e.stats.clipRestoreBytes, (48_000 + 48_000 / 5) * 2, "the kept samples are counted")
        XCTAssertEqual(e.context.withCurrent { alGetError() }, AL_NO_ERROR)

        // After the resume's fade-in the right channel is the ramp at exactly the engine clock.
        let frames = out.count / 2
        for f in stride(from: frames - 9_000, to: frames - 100, by: 487) {
            XCTAssertEqual(out[f * 2 + 1], Float(ramp[f % n]) / 32768, accuracy: 2e-4, "frame \(f)")
        }
        // A clip loaded before the loss plays on the new device.
        let again = try e.play(beep, options: .init(pan: 1))
        XCTAssertEqual(again.status, .real)

        let seen = collected.withLock { $0 }
        XCTAssertEqual(seen.count, 2)
        if case .lost = seen.first {} else { XCTFail("first event: \(seen)") }
        if case .restored(_, let from) = seen.last { XCTAssertNil(from) } else { XCTFail("second event: \(seen)") }
    }

    /// A voice with a loop count (its passes queued on the source) goes on through a device loss:
    /// after the rebuild it is back in the right pass at the engine clock, and it ends when its
    /// passes are over — not early (the lost queue) and not late.
    func testALoopCountCarriesOnThroughADeviceLoss() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 8; $0.keepsClipsForRecovery = true }
        defer { e.shutdown() }
        let n = 24_000   // 0.5 s
        let ramp = (0..<n).map { Int16((-0.9 + 1.8 * Double($0) / Double(n)) * 32767) }
        let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(ramp)), name: "ramp")
        var options = PlayOptions(pan: 1)
        options.loopCount = 3   // four passes: 2 s
        let voice = try e.play(clip, options: options)
        var out = try render(e, seconds: 0.6)
        e.simulateDeviceLoss()
        out += try render(e, seconds: 800.0 / 48_000)
        XCTAssertEqual(voice.status, .virtual)
        out += try waitForRestore(e)
        out += try render(e, seconds: 0.2)
        XCTAssertEqual(voice.status, .real, "back on a source")
        let frames = out.count / 2
        XCTAssertLessThan(frames, 4 * n - 4_800, "still inside its passes when checked")
        for f in stride(from: frames - 4_000, to: frames - 100, by: 487) {
            XCTAssertEqual(out[f * 2 + 1], Float(ramp[f % n]) / 32768, accuracy: 2e-4, "frame \(f): the right pass, at the clock")
        }
        while voice.isPlaying, out.count / 2 < 6 * n { out += try render(e, seconds: 800.0 / 48_000) }
        XCTAssertFalse(voice.isPlaying)
        let right = stride(from: 1, to: out.count, by: 2).map { out[$0] }
        let last = right.lastIndex { abs($0) > 1e-3 } ?? -1
        XCTAssertEqual(Double(last), Double(4 * n), accuracy: 50, "ends after its fourth pass")
    }

    func testMusicResumesNearWhereItWas() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-recovery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A 4 s ramp as a WAV: the level tells the position.
        let n = 4 * 48_000
        let ramp = (0..<n).map { Float(-0.9 + 1.8 * Double($0) / Double(n)) }
        let path = dir.appendingPathComponent("ramp.wav").path
        let writer = try AudioFileWriter(path: path, sampleRate: 48_000, channels: 1, format: .f32)
        try writer.write(ramp)
        try writer.close()

        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: path)
        try track.play()
        _ = try render(e, seconds: 1.0)
        let before = track.currentTime
        e.simulateDeviceLoss()
        _ = try render(e, seconds: 800.0 / 48_000)
        XCTAssertTrue(e.isDeviceLost)
        _ = try waitForRestore(e)
        _ = try render(e, seconds: 0.05)
        XCTAssertTrue(track.isPlaying)
        // Near where it was: within a quarter second of the clock's account.
        XCTAssertEqual(track.currentTime, before + 0.05 + 0.05, accuracy: 0.25, "was at \(before)")
        XCTAssertEqual(e.stats.musicUnderruns, 0)
    }

    /// iOS's rule a game may choose: `pausesWhenOutputGoesAway` holds the audio when the output
    /// it played on goes away (here the device is lost), until `resume()`; by default a game
    /// carries on.
    func testPausesWhenTheOutputGoesAwayIfAsked() throws {
        for pauses in [false, true] {
            let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
            defer { e.shutdown() }
            e.session.pausesWhenOutputGoesAway = pauses
            let events = EventCollector(e.session)
            let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
            let voice = try e.play(tone, options: .init(loop: true))
            _ = try render(e, seconds: 0.2)
            e.simulateDeviceLoss()
            _ = try render(e, seconds: 800.0 / 48_000)
            _ = try waitForRestore(e)
            let after = try render(e, seconds: 0.3)
            let level = Level.rms(Array(after.suffix(2 * 4_800)), channels: 2)[0]
            XCTAssertEqual(events.wait(count: 3).first, .routeChange(.oldDeviceUnavailable))
            XCTAssertEqual(e.session.isInterrupted, pauses)
            if pauses {
                XCTAssertLessThan(level, 1e-4, "held after the output went away")
                e.session.resume()
                let resumed = try render(e, seconds: 0.2)
                XCTAssertGreaterThan(Level.rms(Array(resumed.suffix(2 * 4_800)), channels: 2)[0], 0.1, "resume() brings it back")
            } else {
                XCTAssertGreaterThan(level, 0.1, "a game carries on on the new output")
            }
            XCTAssertTrue(voice.isPlaying || pauses)
        }
    }

    /// Issue 13 item 6: each `deviceEvents` stream observes the engine only while its consumer
    /// iterates. 50 streams read, iterated until the first event (a simulated loss, rendered
    /// through), then left: no observer is left behind; a stream still iterated keeps its own.
    func testDeviceEventStreamsEndTheirObservationWhenTheConsumerStops() async throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 4 }
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        _ = try e.play(tone, options: .init(loop: true))
        var consumers: [Task<DeviceEvent?, Never>] = []
        for _ in 0..<50 {
            let stream = e.deviceEvents
            consumers.append(Task { for await event in stream { return event }; return nil })
        }
        let listener = e.deviceEvents
        let toCancel = e.deviceEvents
        let cancelled = Task { for await _ in toCancel {} }
        XCTAssertEqual(e.recovery.observerCount, 52)
        cancelled.cancel()
        _ = await cancelled.value
        e.simulateDeviceLoss()
        _ = try render(e, seconds: 800.0 / 48_000)
        for c in consumers {
            let event = await c.value
            XCTAssertEqual(event.map { if case .lost = $0 { true } else { false } }, true)
        }
        _ = try waitForRestore(e)
        XCTAssertEqual(e.recovery.observerCount, 1, "only the stream nobody stopped still observes")
        var it = listener.makeAsyncIterator()
        let first = await it.next()
        XCTAssertNotNil(first, "the stream still observed receives the events")
    }
}
