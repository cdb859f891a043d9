@testable import Earshot
import Foundation
import Synchronization
import XCTest

/// Issue 23 item 3: every stream the engine hands out (`voiceEvents`, `deviceEvents`,
/// `session.events`) sees every event whoever else reads (broadcast), and ends at `shutdown()`.
/// Loopback renders drive the voices; consumers are real `for await` loops in tasks.
final class EventStreamTests: XCTestCase {
    /// A `for await` loop over `stream` in a detached task; `result` waits (at most `timeout` s)
    /// for the loop to end and returns what it saw, or nil when it is still waiting.
    final class Consumer<E: Sendable>: Sendable {
        private final class Shared: Sendable {
            let seen = Locked<[E]>([])
            let ended = Atomic<Bool>(false)
        }
        private let shared = Shared()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<E>) {
            let shared = self.shared
            task = Task.detached {
                for await e in stream { shared.seen.withLock { $0.append(e) } }
                shared.ended.store(true, ordering: .releasing)
            }
        }

        var events: [E] { shared.seen.withLock { $0 } }
        var hasEnded: Bool { shared.ended.load(ordering: .acquiring) }

        func result(timeout: Double) -> [E]? {
            waitFor(timeout) { hasEnded } == nil ? nil : events
        }

        deinit { task.cancel() }
    }

    /// Plays `count` short voices and renders until all have ended.
    private func playAndEnd(_ e: AudioEngine, count: Int) throws {
        let blip = try e.loadClip(TestSignals.sine(seconds: 0.01), name: "blip")
        for _ in 0..<count { _ = try e.play(blip, options: .init(pan: 0)) }
        _ = try TestSignals.renderGameFrames(e, seconds: 0.1)
    }

    func testTwoConsumersOfVoiceEventsEachSeeAllHundredAndBothEndAtShutdown() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 128 }
        let a = Consumer(e.voiceEvents), b = Consumer(e.voiceEvents)
        try playAndEnd(e, count: 100)
        XCTAssertNotNil(waitFor(2) { a.events.count == 100 && b.events.count == 100 })
        XCTAssertEqual(a.events.count, 100, "the first consumer sees every event")
        XCTAssertEqual(b.events.count, 100, "and so does the second (they split them 98 / 2 before)")
        XCTAssertEqual(a.events.map(\.voice), b.events.map(\.voice), "the same events in the same order")
        XCTAssertTrue(a.events.allSatisfy { $0.reason == .finished })
        XCTAssertNil(a.result(timeout: 0.05), "the loops wait while the engine runs")

        e.shutdown()
        XCTAssertEqual(a.result(timeout: 2)?.count, 100, "shutdown ends the first loop")
        XCTAssertEqual(b.result(timeout: 2)?.count, 100, "and the second")
        // A stream asked for after shutdown is finished at once.
        let late = Consumer(e.voiceEvents)
        XCTAssertEqual(late.result(timeout: 2)?.count, 0, "a stream read after shutdown ends at once")
    }

    /// `markers` (issue 27) is a broadcast like the others: two consumers each see every beat
    /// of a 120 bpm track, in the same order, both loops end at shutdown, and a stream read
    /// after shutdown is finished at once.
    func testTwoConsumersOfMarkersEachSeeEveryBeatAndBothEndAtShutdown() throws {
        let e = try TestSignals.loopbackEngine()
        let a = Consumer(e.markers), b = Consumer(e.markers)
        let files = try MusicFixtures()   // kept: its folder goes with it
        let track = try e.loadMusic(path: try files.sineWAV("beats.wav", seconds: 2))
        track.tempo = Tempo(bpm: 120, beatsPerBar: 4, firstBeat: 0)
        try track.play()
        _ = try TestSignals.renderGameFrames(e, seconds: 1.9)   // beats at 0, 0.5, 1 and 1.5 s
        let beats = { (events: [MarkerEvent]) in events.filter { if case .beat = $0.kind { return true } else { return false } } }
        XCTAssertNotNil(waitFor(2) { beats(a.events).count == 4 && beats(b.events).count == 4 })
        XCTAssertEqual(beats(a.events).map(\.audioTime), [0, 0.5, 1, 1.5], "the first consumer sees every beat")
        XCTAssertEqual(b.events.map(\.audioTime), a.events.map(\.audioTime), "and the second the same, in the same order")
        XCTAssertNil(a.result(timeout: 0.05), "the loops wait while the engine runs")

        e.shutdown()
        XCTAssertNotNil(a.result(timeout: 2), "shutdown ends the first loop")
        XCTAssertNotNil(b.result(timeout: 2), "and the second")
        XCTAssertEqual(Consumer(e.markers).result(timeout: 2)?.count, 0, "a stream read after shutdown ends at once")
    }

    /// The buffer is per consumer and bounded: a consumer that does not read keeps the newest
    /// 1024 events (the documented policy); one that reads gets all of them.
    func testAConsumerThatFallsBehindKeepsTheNewest1024() throws {
        let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 255; $0.maxVirtualVoices = 2_000 }
        defer { e.shutdown() }
        let idle = e.voiceEvents   // not iterated until the end
        let reader = Consumer(e.voiceEvents)
        let blip = try e.loadClip(TestSignals.sine(seconds: 0.01), name: "blip")
        var played: [Voice] = []
        for _ in 0..<6 {
            for _ in 0..<200 { played.append(try e.play(blip, options: .init(pan: 0))) }
            _ = try TestSignals.renderGameFrames(e, seconds: 0.05)
        }
        XCTAssertNotNil(waitFor(2) { reader.events.count == 1_200 }, "the reader saw \(reader.events.count)")
        e.shutdown()
        let kept = Consumer(idle).result(timeout: 2)
        XCTAssertEqual(kept?.count, 1_024, "the idle consumer kept the newest 1024")
        XCTAssertEqual(kept?.last?.voice, reader.events.last?.voice, "ending with the newest")
        XCTAssertEqual(kept?.first?.voice, reader.events[1_200 - 1_024].voice, "the oldest 176 dropped")
    }

    func testDeviceAndSessionEventsBroadcastAndEndAtShutdown() throws {
        let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
        let devA = Consumer(e.deviceEvents), devB = Consumer(e.deviceEvents)
        let sesA = Consumer(e.session.events), sesB = Consumer(e.session.events)
        e.simulateDeviceLoss()
        let deadline = Date().addingTimeInterval(5)
        repeat {
            _ = try TestSignals.renderGameFrames(e, seconds: 0.01)
        } while (e.isDeviceLost || devA.events.count < 2) && Date() < deadline
        XCTAssertNotNil(waitFor(2) { devB.events.count == 2 && sesB.events.count >= 3 })
        for dev in [devA, devB] {
            XCTAssertEqual(dev.events.count, 2, "lost and restored, for each consumer")
            if case .lost = dev.events.first {} else { XCTFail("\(dev.events)") }
            if case .restored = dev.events.last {} else { XCTFail("\(dev.events)") }
        }
        XCTAssertEqual(sesA.events, sesB.events, "both session consumers see the same events")
        XCTAssertEqual(sesA.events.first, .routeChange(.oldDeviceUnavailable))
        e.shutdown()
        for c in [devA, devB] { XCTAssertNotNil(c.result(timeout: 2), "shutdown ends deviceEvents") }
        for c in [sesA, sesB] { XCTAssertNotNil(c.result(timeout: 2), "shutdown ends session.events") }
        XCTAssertEqual(Consumer(e.deviceEvents).result(timeout: 2)?.count, 0, "deviceEvents after shutdown: already ended")
        XCTAssertEqual(Consumer(e.session.events).result(timeout: 2)?.count, 0, "session.events after shutdown: already ended")
        XCTAssertEqual(e.recovery.observerCount, 0, "no consumer is held after shutdown")
    }

    /// A session made only after shutdown starts with its stream finished.
    func testASessionFirstAskedForAfterShutdownHasEnded() throws {
        let e = try TestSignals.loopbackEngine()
        e.shutdown()
        XCTAssertEqual(Consumer(e.session.events).result(timeout: 2)?.count, 0)
    }
}
