import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot monitor` against a game with its monitor on (issue 30): MonitorProbe, run as a
/// process, plays a known set of voices; the CLI's JSON stream, its terminal view (driven in
/// tmux) and a record → replay round trip are checked against what the engine reports.
final class MonitorCLITests: XCTestCase {
    /// A running MonitorProbe: its pid, socket and the voices it listed (bus, gain dB, status).
    final class Probe {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        var pid: Int32 = 0
        var socket = ""
        var voices: [(bus: String, gainDB: Double, status: String)] = []

        /// `MonitorProbe voices SECONDS`, or `arguments`, read until the line `until`.
        init(seconds: Int = 60, arguments: [String]? = nil, until: String = "listed\n") throws {
            process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("MonitorProbe")
            guard FileManager.default.isExecutableFile(atPath: process.executableURL?.path ?? "") else {
                throw CLIRunnerError.notBuilt("MonitorProbe")
            }
            process.arguments = arguments ?? ["voices", String(seconds)]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            while !text.contains(until), Date() < deadline {
                let data = output.fileHandleForReading.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").map(String.init)
                if words.first == "ready", words.count == 3 {
                    pid = Int32(words[1]) ?? 0
                    socket = words[2]
                } else if words.first == "voice", words.count == 4 {
                    voices.append((words[1], Double(words[2]) ?? .nan, words[3]))
                }
            }
        }

        func stop() {
            try? input.fileHandleForWriting.close()   // the probe ends when its stdin closes
            process.waitUntilExit()
        }
    }

    func frames(_ stdout: String) throws -> (hello: MonitorHello?, frames: [MonitorFrame]) {
        var hello: MonitorHello?
        var frames: [MonitorFrame] = []
        for line in stdout.split(separator: "\n") {
            switch try MonitorMessage.decode(line: Array(line.utf8)) {
            case .hello(let h): hello = h
            case .frame(let f): frames.append(f)
            default: break
            }
        }
        return (hello, frames)
    }

    /// `earshot monitor` lists the probe; `earshot monitor PID --json` sees exactly its voices:
    /// the count, each bus, each gain within 0.1 dB of what the engine reports, the paused one
    /// paused, and the sound its cooldown refused, by name.
    func testJSONSeesExactlyTheVoicesThatPlay() throws {
        let probe = try Probe()
        defer { probe.stop() }
        XCTAssertGreaterThan(probe.pid, 0)
        XCTAssertEqual(probe.voices.count, 4)

        let list = try CLIRunner.run("earshot", ["monitor"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.split(separator: "\n").contains { $0.hasPrefix("\(probe.pid) ") && $0.contains("MonitorProbe") && $0.contains("Loopback") },
                      list.stdout)

        let run = try CLIRunner.run("earshot", ["monitor", String(probe.pid), "--json", "--frames", "12"], timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        let (hello, frames) = try frames(run.stdout)
        XCTAssertEqual(hello?.pid, Int(probe.pid))
        XCTAssertEqual(hello?.process, "MonitorProbe")
        XCTAssertEqual(frames.count, 12)
        let last = try XCTUnwrap(frames.last)
        XCTAssertEqual(last.voices.count, probe.voices.count, "exactly the voices that play")
        XCTAssertEqual(last.voicesOmitted, 0)
        XCTAssertEqual(last.engine.realVoices, 3)
        XCTAssertEqual(last.engine.virtualVoices, 1)
        XCTAssertEqual(last.voices.map(\.bus).sorted(), probe.voices.map(\.bus).sorted())
        // Each reported voice matched to one listed by the engine: same bus, gain within 0.1 dB.
        var unmatched = probe.voices
        for v in last.voices {
            guard let i = unmatched.firstIndex(where: { $0.bus == v.bus && abs($0.gainDB - v.gainDB) <= 0.1 }) else {
                XCTFail("voice \(v) matches none of \(unmatched)")
                continue
            }
            XCTAssertEqual(v.name, "tone.wav")
            XCTAssertEqual(v.state, unmatched[i].status == "virtual" ? "paused" : "real", "\(v)")
            unmatched.remove(at: i)
        }
        XCTAssertTrue(unmatched.isEmpty, "\(unmatched)")
        XCTAssertEqual(last.buses.map(\.name), ["sfx", "music", "ui", "voice", "ambience"])
        XCTAssertGreaterThan(last.buses[0].levelDBFS, -60, "sfx is heard")
        XCTAssertEqual(last.buses[1].levelDBFS, MonitorProtocol.silenceDecibels, "music is silent")
        XCTAssertEqual(last.parameters, [.init(name: "speed", value: 3.5)], "the game parameter")
        XCTAssertNil(last.music.sets, "no music set: the section is absent")
        let events = frames.flatMap(\.events)
        XCTAssertTrue(events.contains { $0.kind == "cooldown" && $0.name == "blip.wav" }, "\(events)")
        XCTAssertTrue(zip(frames, frames.dropFirst()).allSatisfy { $0.seq < $1.seq && $0.engine.audioTime <= $1.engine.audioTime })
    }

    /// `--record FILE` saves what `--json` prints; `--replay FILE --json` gives it back line for line.
    func testRecordThenReplayRoundTrips() throws {
        let probe = try Probe()
        defer { probe.stop() }
        let file = NSTemporaryDirectory() + "monitor-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let live = try CLIRunner.run("earshot", ["monitor", String(probe.pid), "--json", "--frames", "6", "--record", file], timeout: 60)
        XCTAssertEqual(live.status, 0, live.stderr)
        let recorded = try String(contentsOfFile: file, encoding: .utf8)
        XCTAssertEqual(recorded, live.stdout)
        XCTAssertEqual(recorded.split(separator: "\n").count, 7, "hello and six frames")
        let replay = try CLIRunner.run("earshot", ["monitor", "--replay", file, "--json"])
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertEqual(replay.stdout, recorded)
        XCTAssertEqual(try frames(replay.stdout).frames.count, 6)
    }

    func testBadUseExitsOne() throws {
        let none = try CLIRunner.run("earshot", ["monitor", "999999999", "--json"])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no monitor for process 999999999"), none.stderr)
        let junk = NSTemporaryDirectory() + "monitor-junk-\(getpid()).jsonl"
        try Data("{\"type\":\"frame\"}\nnot json\n".utf8).write(to: URL(fileURLWithPath: junk))
        defer { try? FileManager.default.removeItem(atPath: junk) }
        let replay = try CLIRunner.run("earshot", ["monitor", "--replay", junk, "--json"])
        XCTAssertEqual(replay.status, 1)
        XCTAssertTrue(replay.stderr.contains("line 1"), replay.stderr)
        for args in [["monitor", "--json"], ["monitor", "1", "--frames", "0"], ["monitor", "1", "--rate", "100"],
                     ["monitor", "--replay", junk, "1"]] {
            let r = try CLIRunner.run("earshot", args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stdout.isEmpty)
        }
    }

    // MARK: The terminal view, in tmux

    /// Runs a tmux command on the test's own tmux server and returns what it printed. Spawned
    /// through `/bin/sh` with `posix_spawn` and reaped with `waitpid`, its output through a file:
    /// the server that `new-session` daemonizes must inherit nothing of this process (Foundation's
    /// `Process` did not see the tmux client end while the server lived).
    func tmux(_ args: [String]) throws -> String {
        let file = NSTemporaryDirectory() + "\(socketName)-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: file) }
        func quote(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = (["tmux", "-L", socketName] + args).map(quote).joined(separator: " ")
            + " >\(quote(file)) 2>/dev/null </dev/null"
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sh", "-c", command].map { $0.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else {
            throw CLIRunnerError.notBuilt("/bin/sh")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
    }

    var socketName: String { "earshot-test-\(getpid())" }

    /// The pane's text once `predicate` holds (at most 15 s), else the last capture.
    func screen(until predicate: (String) -> Bool) throws -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            text = try tmux(["capture-pane", "-p", "-t", "view"])
            if predicate(text) { return text }
            usleep(100_000)
        }
        return text
    }

    /// The live view redraws in place with the voices sorted by audibility, bus meters, the
    /// event log; keys pause, filter by bus and by name, sort and quit.
    func testTerminalViewInTmux() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            throw XCTSkip("tmux is not installed (make test installs it)")
        }
        let probe = try Probe()
        defer { probe.stop() }
        let earshot = CLIRunner.productsDirectory.appendingPathComponent("earshot").path
        _ = try tmux(["new-session", "-d", "-s", "view", "-x", "120", "-y", "40", "\(earshot) monitor \(probe.pid)"])
        defer { _ = try? tmux(["kill-server"]) }

        let first = try screen { $0.contains("VOICES (4 shown of 4)") && $0.contains("cooldown") }
        let lines = first.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertTrue(lines.first?.contains("earshot monitor — pid \(probe.pid) · MonitorProbe · Loopback 48000 Hz") ?? false, first)
        // The voices by audibility: ui (0 dB), voice (−3.5, paused), sfx at 3 m (−15.5), sfx at 2 m (−18).
        let rows = lines.filter { $0.hasPrefix("  tone.wav") }
        XCTAssertEqual(rows.map { $0.split(separator: " ")[1] }, ["ui", "voice", "sfx", "sfx"], first)
        XCTAssertTrue(rows[1].contains("paused"), rows[1])
        XCTAssertTrue(rows[2].contains("-6.0") && rows[2].contains("-15.5") && rows[2].contains("3.00"), rows[2])
        // Bus meters: sfx and ui heard, music and voice silent.
        XCTAssertTrue(lines.contains { $0.hasPrefix("  sfx") && $0.contains("█") }, first)
        // Loudness meters (issue 40): sfx heard in LUFS, the master line, music at the floor.
        XCTAssertTrue(lines.contains { $0.hasPrefix("  sfx") && $0.contains(" LUFS") && !$0.contains("M  -inf") }, first)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  master (est.)") && $0.contains(" LUFS") }, first)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  music") && $0.contains("M  -inf") }, first)
        XCTAssertTrue(lines.contains { $0.hasPrefix("  music") && !$0.contains("█") && $0.contains("-144.0 dBFS") }, first)
        XCTAssertTrue(lines.contains { $0.contains("cooldown") && $0.contains("blip.wav") }, "the event log: \(first)")
        XCTAssertEqual(lines.count, 41, "one screen of 40 rows (and capture-pane's last newline), redrawn in place")

        _ = try tmux(["send-keys", "-t", "view", "b"])   // bus filter: sfx
        let sfx = try screen { $0.contains("bus: sfx") && $0.contains("VOICES (2 shown of 4)") }
        XCTAssertTrue(sfx.contains("VOICES (2 shown of 4)"), sfx)
        _ = try tmux(["send-keys", "-t", "view", "c", "/", "z", "z", "Enter"])   // a name nothing has
        let none = try screen { $0.contains("filter: zz") && $0.contains("VOICES (0 shown of 4)") }
        XCTAssertTrue(none.contains("VOICES (0 shown of 4)"), none)
        _ = try tmux(["send-keys", "-t", "view", "c", "s"])   // sort by name
        let byName = try screen { $0.contains("sort: name") && $0.contains("VOICES (4 shown of 4)") }
        XCTAssertTrue(byName.contains("sort: name"), byName)
        _ = try tmux(["send-keys", "-t", "view", "p"])
        let paused = try screen { $0.contains("[PAUSED]") }
        XCTAssertTrue(paused.contains("[PAUSED]"), paused)
        let frozen = paused.split(separator: "\n").first.map(String.init) ?? ""
        usleep(400_000)
        XCTAssertEqual(try tmux(["capture-pane", "-p", "-t", "view"]).split(separator: "\n").first.map(String.init), frozen,
                       "paused: the frame number stands still")
        _ = try tmux(["send-keys", "-t", "view", "q"])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try tmux(["list-sessions"]).contains("view:") { usleep(100_000) }
        XCTAssertFalse(try tmux(["list-sessions"]).contains("view:"), "q quits")
    }
}
