@testable import Earshot
import EarshotLinux
import Foundation
import Logging
import XCTest

/// The PulseAudio default-sink watcher itself (EarshotLinux; issue 23 item 1: in-process through
/// libpulse, no child process) against a private PulseAudio daemon with two null sinks: it reports a new default
/// and a removed sink as before, reports nothing while there is no server and watches again when
/// one comes back, and `stop()` is prompt in every state. The daemon is named to libpulse through
/// `PULSE_SERVER` for the span of the test (set before the watcher connects, removed after).
final class PulseDefaultSinkWatcherTests: XCTestCase {
    private final class Reports: Sendable {
        let seen = Locked<[String]>([])
        func add(_ change: PulseDefaultSinkWatcher.Change, _ sink: String) {
            seen.withLock { $0.append("\(change == .defaultChanged ? "new" : "gone") \(sink)") }
        }
        var all: [String] { seen.withLock { $0 } }
    }

    private func pactl(_ args: [String], _ env: [String: String]) throws -> String {
        let r = try ChildProcess.run("/usr/bin/pactl", args, environment: env)
        XCTAssertEqual(r.status, 0, "pactl \(args)")
        return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The server's clients that are watchers (by the name they connect with: a PipeWire server
    /// counts its own session manager's clients too, and a new one after a restart).
    private func watchers(_ env: [String: String]) -> Int {
        let list = (try? ChildProcess.run("/usr/bin/pactl", ["list", "clients"], environment: env).output) ?? ""
        return list.components(separatedBy: "application.name = \"Earshot default-output watcher\"").count - 1
    }

    private func milliseconds(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }

    func testReportsChangesWatchesAgainAfterTheServerReturnsAndStopsPromptly() throws { try reportsChangesWatchesAgainAfterTheServerReturnsAndStopsPromptly(on: .pulseaudio) }
    func testReportsChangesWatchesAgainAfterTheServerReturnsAndStopsPromptlyOnPipeWire() throws { try reportsChangesWatchesAgainAfterTheServerReturnsAndStopsPromptly(on: .pipewire) }

    private func reportsChangesWatchesAgainAfterTheServerReturnsAndStopsPromptly(on server: SoundServer) throws {
        let fixtures = try MusicFixtures()
        let pulse = try PrivateSoundServer.start(server, in: fixtures.directory)
        let env = pulse.environment
        defer { pulse.stop() }
        _ = try pactl(["load-module", "module-null-sink", "sink_name=a"], env)
        let moduleB = try pactl(["load-module", "module-null-sink", "sink_name=b"], env)
        _ = try pactl(["set-default-sink", "a"], env)

        setenv("PULSE_SERVER", "unix:" + pulse.runtime.appendingPathComponent("pulse/native").path, 1)
        defer { unsetenv("PULSE_SERVER") }
        let reports = Reports()
        let watcher = PulseDefaultSinkWatcher(logger: Logger(label: "test"))
        watcher.start { reports.add($0, $1) }
        XCTAssertNotNil(waitFor(3) { watcher.currentSink == "a" }, "the first look finds the default")
        XCTAssertEqual(watchers(env), 1,
                       "one client of the server: the watcher (and no pactl child)")

        _ = try pactl(["set-default-sink", "b"], env)
        XCTAssertNotNil(waitFor(2) { reports.all == ["new b"] }, "\(reports.all)")
        _ = try pactl(["unload-module", moduleB], env)
        XCTAssertNotNil(waitFor(2) { reports.all == ["new b", "gone a"] }, "the sink in use went away: \(reports.all)")

        // A report that stops its own watcher (an engine released inside one shuts down on
        // libpulse's thread): the loop cannot join itself; another thread tears it down.
        let selfStopping = Locked<PulseDefaultSinkWatcher?>(PulseDefaultSinkWatcher(logger: Logger(label: "test")))
        let stoppedItself = Locked<Bool>(false)
        selfStopping.withLock { $0 }?.start { _, _ in
            selfStopping.withLock { $0 }?.stop()
            stoppedItself.withLock { $0 = true }
        }
        XCTAssertNotNil(waitFor(3) { selfStopping.withLock { $0 }?.currentSink == "a" })
        _ = try pactl(["load-module", "module-null-sink", "sink_name=d"], env)
        _ = try pactl(["set-default-sink", "d"], env)
        XCTAssertNotNil(waitFor(2) { reports.all == ["new b", "gone a", "new d"] }, "\(reports.all)")
        XCTAssertNotNil(waitFor(2) { stoppedItself.withLock { $0 } }, "the second watcher reported and stopped itself")
        selfStopping.withLock { $0 = nil }
        XCTAssertNotNil(waitFor(2) { self.watchers(env) == 1 },
                        "its connection closed; the first watcher's stays")

        // The server goes away: nothing is reported; it comes back: watched again.
        pulse.stop()
        usleep(700_000)
        XCTAssertEqual(reports.all, ["new b", "gone a", "new d"], "no report without a server")
        _ = try PrivateSoundServer.start(server, in: fixtures.directory)   // the same runtime folder: the watcher's server again
        _ = try pactl(["load-module", "module-null-sink", "sink_name=c"], env)
        _ = try pactl(["set-default-sink", "c"], env)
        XCTAssertNotNil(waitFor(8) { watcher.connections == 2 }, "connected again (backoff ≤ 5 s)")
        XCTAssertNotNil(waitFor(2) { watcher.currentSink == "c" })
        let ms = milliseconds { watcher.stop() }
        XCTAssertLessThanOrEqual(ms, 100, "stop() joins the loop thread at once")
        XCTAssertNotNil(waitFor(2) { self.watchers(env) == 0 },
                        "its connection closed")

        // Without a server at all: no report, and stop() is as prompt with a retry pending.
        pulse.stop()
        let idle = PulseDefaultSinkWatcher(logger: Logger(label: "test"))
        idle.start { reports.add($0, $1) }
        usleep(300_000)
        XCTAssertEqual(idle.connections, 0)
        XCTAssertNil(idle.currentSink)
        let idleMs = milliseconds { idle.stop() }
        XCTAssertLessThanOrEqual(idleMs, 100)
        XCTAssertEqual(reports.all, ["new b", "gone a", "new d"])
        print(String(format: "watcher: stop() %.1f ms connected, %.1f ms without a server", ms, idleMs))
    }
}
