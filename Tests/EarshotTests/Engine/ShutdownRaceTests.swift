@testable import Earshot
import Foundation
import Synchronization
import XCTest

/// Issue 23 item 6: `shutdown()` racing device recovery, on loopback engines (a simulated loss;
/// the "reopened" device is a new loopback device, counted like any other). After shutdown
/// returns no device or context of the engine is open — the process-wide counters are back where
/// they were, while the game's thread keeps calling `update` — and no device event is delivered.
/// The live race (a null sink unloaded under a PulseAudio engine) is in LiveLifetimeTests.
final class ShutdownRaceTests: XCTestCase {
    private var devices: Int { OutputDevice.openCount.load(ordering: .acquiring) }
    private var contexts: Int { ALContext.liveCount.load(ordering: .acquiring) }

    /// Records device events with whether `shutdown()` had already returned when each came.
    private final class Journal: Sendable {
        let returned = Atomic<Bool>(false)
        let events = Locked<[(event: DeviceEvent, afterShutdown: Bool)]>([])
        func note(_ e: DeviceEvent) {
            let late = returned.load(ordering: .acquiring)
            events.withLock { $0.append((e, late)) }
        }
    }

    /// A thread that plays the game's loop (`update`, then a render) until told to stop.
    private final class GameLoop: Sendable {
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        init(_ e: AudioEngine) {
            let thread = Thread { [self] in
                while !stop.load(ordering: .acquiring) {
                    e.update()
                    _ = try? e.render(frames: 64)
                }
                done.signal()
            }
            thread.start()
        }
        func end() {
            stop.store(true, ordering: .releasing)
            done.wait()
        }
    }

    func testShutdownRacingRecoveryLeavesNothingOpenAndAnnouncesNothingAfter() throws {
        let devices0 = devices, contexts0 = contexts
        var landed = [String: Int]()
        var random = SystemRandomNumberGenerator()
        for _ in 0..<150 {
            let e = try TestSignals.loopbackEngine { $0.maxRealVoices = 8; $0.keepsClipsForRecovery = true }
            let tone = try e.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")
            _ = try e.play(tone, options: .init(loop: true))
            let journal = Journal()
            e.observeDeviceEvents { journal.note($0) }
            let stream = EventStreamTests.Consumer(e.deviceEvents)
            XCTAssertEqual(devices, devices0 + 1)
            e.simulateDeviceLoss()
            let game = GameLoop(e)
            usleep(UInt32.random(in: 0...1_500, using: &random))
            e.shutdown()
            journal.returned.store(true, ordering: .releasing)
            // The game's thread is still calling update: nothing may be reopened now.
            XCTAssertEqual(devices, devices0, "no device of the engine is open once shutdown returned")
            XCTAssertEqual(contexts, contexts0, "nor a context")
            XCTAssertTrue(e.isShutDown)
            XCTAssertTrue(e.context.withCurrent { true }, "engine.context is readable after shutdown")
            usleep(2_000)
            game.end()
            XCTAssertEqual(devices, devices0, "nothing opened after shutdown either")
            XCTAssertEqual(contexts, contexts0)
            let seen = journal.events.withLock { $0 }
            XCTAssertFalse(seen.contains { $0.afterShutdown }, "an event after shutdown returned: \(seen)")
            let streamed = try XCTUnwrap(stream.result(timeout: 2), "deviceEvents ended at shutdown")
            XCTAssertEqual(streamed, seen.map(\.event), "the stream saw exactly what the observer saw")
            let key = seen.map { if case .lost = $0.event { "lost" } else { "restored" } }.joined(separator: "+")
            landed[key.isEmpty ? "before the loss was noticed" : key, default: 0] += 1
            if seen.count > 2 || (seen.count == 2 && key != "lost+restored") { XCTFail("events: \(seen)") }
        }
        print("shutdown vs recovery: shutdown landed \(landed.sorted { $0.key < $1.key })")
        XCTAssertGreaterThan(landed["lost", default: 0], 0, "some shutdowns landed during the recovery")
        XCTAssertGreaterThan(landed["lost+restored", default: 0], 0, "some after it")
    }

    /// The window the old code lost a device in: the reopened device's context made, the core
    /// not yet rebuilt on it. A shutdown from another thread there waits for the rebuild to end
    /// (then closes the new pair); one from inside it (an observer's thread) closes the pair
    /// before the core takes it, and nothing is announced.
    func testShutdownInTheRebuildWindowWaitsForItOrClosesTheNewDevice() throws {
        for sameThread in [false, true] {
            let devices0 = devices, contexts0 = contexts
            let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
            let journal = Journal()
            e.observeDeviceEvents { journal.note($0) }
            let shutdownReturned = Atomic<Bool>(false)
            let waitedInWindow = Atomic<Bool>(false)
            e.recovery.beforeRebuild.withLock {
                $0 = { [unowned e] in
                    if sameThread {
                        e.shutdown()
                        shutdownReturned.store(true, ordering: .releasing)
                        return
                    }
                    Thread {
                        e.shutdown()
                        shutdownReturned.store(true, ordering: .releasing)
                    }.start()
                    usleep(50_000)
                    // Serialised: shutdown has not got past the rebuild in progress.
                    waitedInWindow.store(!shutdownReturned.load(ordering: .acquiring), ordering: .releasing)
                }
            }
            e.simulateDeviceLoss()
            let deadline = Date().addingTimeInterval(5)
            while !shutdownReturned.load(ordering: .acquiring), Date() < deadline {
                e.update()
                _ = try? e.render(frames: 64)
                usleep(1_000)
            }
            journal.returned.store(true, ordering: .releasing)
            XCTAssertTrue(shutdownReturned.load(ordering: .acquiring))
            XCTAssertNotNil(waitFor(2) { self.devices == devices0 && self.contexts == contexts0 },
                            "no device or context left (devices \(devices - devices0), contexts \(contexts - contexts0))")
            let kinds = journal.events.withLock { $0 }.map { if case .lost = $0.event { "lost" } else { "restored" } }
            if sameThread {
                XCTAssertEqual(kinds, ["lost"], "the rebuild was dropped: nothing restored is announced")
            } else {
                XCTAssertTrue(waitedInWindow.load(ordering: .acquiring), "shutdown waited for the rebuild in progress")
                XCTAssertEqual(kinds, ["lost", "restored"], "the rebuild finished before shutdown, and said so")
            }
            XCTAssertTrue(e.isShutDown)
        }
    }
}
