@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 23 items 1 and 6 on a real sound server: a private PulseAudio daemon with a `game` null
/// sink, and `LifetimeProbe` (Tests/LifetimeProbe) as the game — its own process, so that OpenAL
/// Soft and libpulse see this daemon from their first call.
///
/// - Live engines made on the main thread, in a `Task` (after an await) and in a `Task.detached`
///   (pool threads, signals blocked): the probe starts no child process (the old watcher ran
///   `pactl subscribe`, which outlived the game), shuts the task-made engines down within
///   100 ms each, and whether it then exits by `exit(0)`, by returning from main, by shutting
///   down or by SIGKILL, it leaves no process behind and the server's clients go back to what
///   they were.
/// - `shutdown()` racing the recovery from an unloaded null sink: after shutdown returns the
///   server has no client of the engine left, no event comes, the event stream ends.
final class LiveLifetimeTests: XCTestCase {
    private struct Daemon {
        let fixtures: MusicFixtures
        let runtime: URL
        let env: [String: String]
        let module: String
    }

    private func startDaemon(_ server: SoundServer) throws -> Daemon {
        let fixtures = try MusicFixtures()
        let pulse = try PrivateSoundServer.start(server, in: fixtures.directory, forOpenAL: true)
        let module = try pulse.nullSink("game", makeDefault: true)
        return Daemon(fixtures: fixtures, runtime: pulse.runtime, env: pulse.environment, module: module)
    }

    /// The daemon's clients, not counting the pactl that asks.
    private func clients(_ d: Daemon) -> Int {
        let list = (try? ChildProcess.run("/usr/bin/pactl", ["list", "short", "clients"], environment: d.env).output) ?? ""
        return list.split(separator: "\n").count - 1
    }

    /// Processes whose parent is `pid`, as (pid, name).
    private func children(of pid: pid_t) -> [(pid_t, String)] {
        processes().filter { $0.ppid == pid }.map { ($0.pid, $0.name) }
    }

    /// Every process but the server's that runs with this test's runtime folder in its
    /// environment (what a child of the probe inherits, wherever it was reparented to).
    private func strays(_ d: Daemon) -> [(pid_t, String)] {
        let marker = Data(("XDG_RUNTIME_DIR=" + d.runtime.path + "\0").utf8)
        let server = PrivateSoundServer.serverPIDs(d.runtime)
        return processes().filter { p in
            !server.contains(p.pid) && p.pid != getpid()
                && ((try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(p.pid)/environ")))?.range(of: marker) != nil)
        }.map { ($0.pid, $0.name) }
    }

    private func processes() -> [(pid: pid_t, ppid: pid_t, name: String)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { return nil }
            // "pid (comm) state ppid ..."
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let ppid = pid_t(fields[1]) else { return nil }
            return (pid, ppid, String(stat[stat.index(after: open)..<close]))
        }
    }

    private var probePath: String { CLIRunner.productsDirectory.appendingPathComponent("LifetimeProbe").path }

    func testEnginesFromTasksLeaveNoProcessAndNoClientHoweverTheGameEnds() throws { try enginesFromTasksLeaveNoProcessAndNoClientHoweverTheGameEnds(on: .pulseaudio) }
    func testEnginesFromTasksLeaveNoProcessAndNoClientHoweverTheGameEndsOnPipeWire() throws { try enginesFromTasksLeaveNoProcessAndNoClientHoweverTheGameEnds(on: .pipewire) }

    private func enginesFromTasksLeaveNoProcessAndNoClientHoweverTheGameEnds(on server: SoundServer) throws {
        let d = try startDaemon(server)
        defer { PrivateSoundServer.stop(runtime: d.runtime) }
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            return XCTFail("LifetimeProbe is not built: run `swift build` (make test does) before `swift test`")
        }
        let baseline = clients(d)
        var shutdownTimes: [Double] = []
        for mode in ["exit", "return", "shutdown", "wait"] {
            let dir = d.fixtures.directory.appendingPathComponent(mode)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let log = dir.appendingPathComponent("out.txt"), errors = dir.appendingPathComponent("err.txt")
            let probe = try ChildProcess(probePath, ["engines", mode, dir.path], environment: d.env, output: log, errorOutput: errors)
            defer { probe.stop(signal: SIGKILL) }
            func output() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
            XCTAssertNotNil(waitFor(20) { output().contains("ready") || !probe.isRunning },
                            "\(mode): the probe made its engines")
            let text = output()
            XCTAssertTrue(text.contains("ready"), "\(mode): \(text) \((try? String(contentsOf: errors, encoding: .utf8)) ?? "")")
            XCTAssertFalse(text.contains("FAIL"), text)
            // Alive, with three live engines: each is a client of the server (its OpenAL stream
            // and its default-output watcher), and the probe has no child process.
            let alive = clients(d)
            XCTAssertGreaterThanOrEqual(alive, baseline + 3, "\(mode): the engines are live on the daemon")
            XCTAssertEqual(children(of: probe.pid).map(\.1), [], "\(mode): no child process of the game")
            _ = FileManager.default.createFile(atPath: dir.appendingPathComponent("go").path, contents: nil)
            if mode == "wait" {
                usleep(50_000)
                kill(probe.pid, SIGKILL)
            }
            XCTAssertNotNil(waitFor(5) { !probe.isRunning }, "\(mode): the probe ended")
            if mode != "wait" { XCTAssertEqual(probe.process.terminationStatus, 0, "\(mode): \(output())") }
            for line in output().split(separator: "\n") where line.hasPrefix("shutdown-ms ") {
                shutdownTimes.append(Double(line.dropFirst("shutdown-ms ".count)) ?? .infinity)
            }
            let back = waitFor(3) { self.clients(d) == baseline }
            XCTAssertNotNil(back, "\(mode): the server's clients back to \(baseline) (now \(clients(d)))")
            XCTAssertEqual(strays(d).map(\.1), [], "\(mode): no process of the game left")
            print("lifetime (\(server)) \(mode): \(alive - baseline) clients while alive, back to baseline in \(String(format: "%.0f", (back ?? 9) * 1000)) ms")
        }
        print("lifetime (\(server)): shutdown of a live engine made in a task: \(shutdownTimes.map { String(format: "%.1f", $0) }) ms")
        XCTAssertEqual(shutdownTimes.count, 4 * 2 + 3, "two task-made engines per run, three more in the shutdown run")
        for t in shutdownTimes { XCTAssertLessThanOrEqual(t, 100, "shutdown() of a live engine within 100 ms (it waited 2 s for a pactl child)") }
    }

    func testShutdownRacingRecoveryFromAnUnloadedSinkLeavesNoClientAndNoEvent() throws { try shutdownRacingRecoveryFromAnUnloadedSinkLeavesNoClientAndNoEvent(on: .pulseaudio) }
    func testShutdownRacingRecoveryFromAnUnloadedSinkLeavesNoClientAndNoEventOnPipeWire() throws { try shutdownRacingRecoveryFromAnUnloadedSinkLeavesNoClientAndNoEvent(on: .pipewire) }

    private func shutdownRacingRecoveryFromAnUnloadedSinkLeavesNoClientAndNoEvent(on server: SoundServer) throws {
        let d = try startDaemon(server)
        defer { PrivateSoundServer.stop(runtime: d.runtime) }
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            return XCTFail("LifetimeProbe is not built: run `swift build` (make test does) before `swift test`")
        }
        let baseline = clients(d)
        let log = d.fixtures.directory.appendingPathComponent("race.txt")
        let probe = try ChildProcess(probePath, ["race", "12", d.module], environment: d.env, output: log)
        defer { probe.stop(signal: SIGKILL) }
        XCTAssertNotNil(waitFor(60) { !probe.isRunning }, "the race ends")
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        print(text)
        XCTAssertEqual(probe.process.terminationStatus, 0, text)
        let rounds = text.split(separator: "\n").filter { $0.hasPrefix("round ") }
        XCTAssertEqual(rounds.count, 12, text)
        XCTAssertFalse(text.contains("FAIL"), text)
        XCTAssertTrue(rounds.contains { $0.contains("[lost]") }, "some shutdowns landed during the recovery: \(text)")
        XCTAssertNotNil(waitFor(3) { self.clients(d) == baseline }, "the server's clients back to \(baseline)")
    }
}
