@testable import Earshot
import EarshotLinux
import EarshotTestSupport
import Foundation
import XCTest

/// The monitor's socket, in the engine's own process (issue 30): private to its user, gone at
/// shutdown, and a game that hostile clients cannot stall or grow.
final class MonitorServerTests: XCTestCase {
    static let tone = PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32(
        (0..<4_800).map { Float(0.2 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }))

    /// A loopback engine with its monitor on, playing `voices` looping tones (shared with
    /// MonitorHardeningTests).
    static func monitoredEngine(voices: Int = 8) throws -> AudioEngine {
        var configuration = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000), maxRealVoices: max(16, voices))
        configuration.monitor = true
        let engine = try AudioEngine(configuration: configuration)
        let clip = try engine.loadClip(Self.tone, name: "tone.wav")
        for i in 0..<voices {
            _ = try engine.play(clip, options: .init(gain: 0.5, loop: true, position: Vector3(Float(i % 7) - 3, 0, -2)))
        }
        return engine
    }

    /// One game frame: update and 1/60 s of render.
    private func frame(_ engine: AudioEngine) throws {
        engine.update(deltaTime: 1.0 / 60)
        _ = try engine.render(frames: 800)
    }

    private static var threadNames: [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    static func rss() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }

    /// Reads lines until one decodes as `match` (at most `seconds`, running frames meanwhile).
    private func waitFor<T>(_ client: MonitorClient, engine: AudioEngine?, seconds: Double = 5,
                          _ match: (MonitorMessage) -> T?) throws -> T? {
        let deadline = Clocks.monotonic() + seconds
        while Clocks.monotonic() < deadline {
            if let engine { try frame(engine) }
            if let line = try client.nextLine(timeout: 0.02), let found = match(try MonitorMessage.decode(line: line)) {
                return found
            }
        }
        return nil
    }

    func testOffByDefault() throws {
        let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
        defer { engine.shutdown() }
        XCTAssertNil(engine.monitorSocketPath)
        XCTAssertEqual(engine.monitorClientCount, 0)
        XCTAssertFalse(engine.configuration.monitor)
    }

    /// The socket is 0600 in a 0700 folder, says hello and frames, and at shutdown says bye, its
    /// thread ends and its file is removed.
    func testSocketIsPrivateAndEndsWithShutdown() throws {
        let engine = try Self.monitoredEngine()
        let path = try XCTUnwrap(engine.monitorSocketPath)
        XCTAssertTrue(path.hasPrefix(MonitorSocketPath.directory + "/\(getpid())"), path)
        XCTAssertEqual(PrivateDirectory.mode(of: path), 0o600)
        XCTAssertEqual(PrivateDirectory.mode(of: MonitorSocketPath.directory), 0o700)
        for _ in 0..<100 where !Self.threadNames.contains("earshot.monitor") { usleep(10_000) }   // it names itself once running
        XCTAssertTrue(Self.threadNames.contains("earshot.monitor"), "\(Self.threadNames)")

        let client = try MonitorClient(path: path)
        let hello = try waitFor(client, engine: nil) { if case .hello(let h) = $0 { h } else { nil } }
        XCTAssertEqual(hello?.pid, Int(getpid()))
        XCTAssertEqual(hello?.protocol, MonitorProtocol.version)
        let frame = try waitFor(client, engine: engine) { if case .frame(let f) = $0 { f } else { nil } }
        XCTAssertEqual(frame?.voices.count, 8)
        XCTAssertEqual(engine.monitorClientCount, 1)

        engine.shutdown()
        let bye = try waitFor(client, engine: nil) { $0 == .bye ? true : nil }
        XCTAssertEqual(bye, true, "the client hears bye")
        XCTAssertThrowsError(try client.nextLine(timeout: 1), "then the connection ends")
        XCTAssertNil(PrivateDirectory.mode(of: path), "the socket file is removed")
        XCTAssertFalse(Self.threadNames.contains("earshot.monitor"), "the thread has ended: \(Self.threadNames)")
        XCTAssertNil(engine.monitorSocketPath == nil ? nil : try? MonitorClient(path: path, timeout: 0.2), "nothing listens")
    }

    /// A peer of another user is closed by its credentials (`SO_PEERCRED`) before it hears
    /// anything: the server here accepts only a uid that is not ours.
    func testPeerCredentialsOfAnotherUserAreRefused() throws {
        let dir = NSTemporaryDirectory() + "earshot-peer-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try PrivateDirectory.ensure(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/s.sock"
        let listener = try UnixSocket.listen(path: path, mode: 0o666) { _ in false }
        let server = try LineServer(listener: listener, path: path, allowedUID: geteuid() &+ 4242,
                                    greeting: { Array("hello\n".utf8) }, answer: { _ in .none }, next: { nil })
        server.start(name: "peer-test")
        defer { server.stop() }
        let client = try MonitorClient(path: path)
        XCTAssertThrowsError(try client.nextLine(timeout: 2), "closed without a greeting")
        XCTAssertEqual(server.counters.refusedOtherUser, 1)
        XCTAssertEqual(server.counters.accepted, 0)
    }

    /// Another user (uid 65534, through `setpriv`) cannot connect: the folder (0700) and the socket
    /// (0600) stop it at the file system, and with both opened up, the server's peer check closes
    /// the connection before a byte is sent.
    func testAnotherUsersConnectionIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("switching to another uid needs root (make test runs as root)") }
        let engine = try Self.monitoredEngine()
        defer { engine.shutdown() }
        let path = try XCTUnwrap(engine.monitorSocketPath)
        let dir = MonitorSocketPath.directory
        func connectAsNobody() throws -> (status: Int32, stdout: String, stderr: String) {
            // The CLI as uid/gid 65534 (nobody), connecting to the engine's socket.
            let earshot = CLIRunner.productsDirectory.appendingPathComponent("earshot").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", earshot, "monitor",
                                 "--socket", path, "--json", "--frames", "1"]
            let err = Pipe(), out = Pipe()
            process.standardError = err
            process.standardOutput = out
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { try frame(engine) }
            process.waitUntilExit()
            return (process.terminationStatus,
                    String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                    String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        // Can nobody run the CLI at all? (A build folder under a private home would stop it first.)
        let earshotPath = CLIRunner.productsDirectory.appendingPathComponent("earshot").path
        guard access(earshotPath, X_OK) == 0 else { throw XCTSkip("earshot is not built") }

        let blocked = try connectAsNobody()
        XCTAssertEqual(blocked.status, 1, blocked.stderr)
        XCTAssertTrue(blocked.stderr.contains("Permission denied"), blocked.stderr)
        XCTAssertTrue(blocked.stdout.isEmpty, "nothing of the engine reached the other user: \(blocked.stdout)")

        // The folder opened to traversal: the socket's own 0600 still refuses.
        XCTAssertEqual(chmod(dir, 0o711), 0)
        defer { chmod(dir, 0o700) }
        let bySocketMode = try connectAsNobody()
        XCTAssertEqual(bySocketMode.status, 1, bySocketMode.stderr)
        XCTAssertTrue(bySocketMode.stderr.contains("Permission denied"), bySocketMode.stderr)

        // The socket opened to everyone too: the server's peer check closes the connection.
        XCTAssertEqual(chmod(path, 0o666), 0)
        let refusedBefore = engine.monitor?.counters.refusedOtherUser ?? -1
        let byCredentials = try connectAsNobody()
        XCTAssertEqual(byCredentials.status, 1, byCredentials.stderr)
        XCTAssertTrue(byCredentials.stderr.contains("closed the connection"), byCredentials.stderr)
        XCTAssertTrue(byCredentials.stdout.isEmpty, "not even the hello: \(byCredentials.stdout)")
        XCTAssertEqual(engine.monitor?.counters.refusedOtherUser, refusedBefore + 1)
    }

    /// 1 MB of random bytes, 1,000 connects and disconnects and a client that never reads: the
    /// game's frames go on, its memory stays where it was, a well-behaved client is still served,
    /// and each hostile client is closed (counters). Frame times are printed, not asserted.
    func testHostileClientsCannotStallOrGrowTheGame() throws {
        MonitorSubsystem.stuckTimeout.withLock { $0 = 0.5 }
        defer { MonitorSubsystem.stuckTimeout.withLock { $0 = 5 } }
        let engine = try Self.monitoredEngine(voices: 64)
        defer { engine.shutdown() }
        let path = try XCTUnwrap(engine.monitorSocketPath)
        let monitor = try XCTUnwrap(engine.monitor)
        let good = try MonitorClient(path: path)
        try good.send(.rate(60))
        var goodFrames = 0
        var longestUpdate = 0.0
        func frames(_ n: Int, between: () throws -> Void = {}) throws -> Double {
            var cpu = 0.0
            for _ in 0..<n {
                try between()
                let t0 = Clocks.threadCPU(), w0 = Clocks.monotonic()
                engine.update(deltaTime: 1.0 / 60)
                cpu += Clocks.threadCPU() - t0
                longestUpdate = max(longestUpdate, Clocks.monotonic() - w0)
                _ = try engine.render(frames: 800)
                while let line = try good.nextLine(timeout: 0) {
                    if case .frame = try MonitorMessage.decode(line: line) { goodFrames += 1 }
                }
                usleep(2_000)   // wall time passes as in a game, so the monitor's frames are due
            }
            return cpu / Double(n) * 1000
        }
        _ = try frames(60)
        let rssBefore = Self.rss()
        let baseline = try frames(120)
        let framesBefore = goodFrames
        XCTAssertGreaterThan(framesBefore, 0, "the good client is served")

        // 1 MB of random bytes, sent as fast as the socket takes them, frames running between.
        var random = SystemRandomNumberGenerator()
        let junk = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let garbage = try UnixSocket.connect(path: path)
        var sent = 0
        let garbageCost = try frames(240) {
            guard sent < junk.count else { return }
            sent += (try? junk.withUnsafeBytes { try garbage.send(UnsafeRawBufferPointer(rebasing: $0[sent...])) }) ?? junk.count
        }
        // 1,000 connects and disconnects, ten between frames.
        var connects = 0
        let churnCost = try frames(100) {
            for _ in 0..<10 {
                if let s = try? UnixSocket.connect(path: path) { s.close(); connects += 1 }
            }
        }
        // A client that never reads while frames go on for more than the stuck timeout.
        let stuck = try UnixSocket.connect(path: path)
        var stuckCost = 0.0
        for _ in 0..<40 where monitor.counters.closedStuck == 0 { stuckCost = try frames(15) }   // ≤ 600 frames
        let rssAfter = Self.rss()
        let after = try frames(120)
        print(String(format: "MonitorServerTests: update CPU per frame, 64 voices: baseline %.3f ms, 1 MB garbage %.3f ms, 1000 connects %.3f ms, stuck client %.3f ms, after %.3f ms; longest update %.1f ms; RSS %+.1f MiB",
                     baseline, garbageCost, churnCost, stuckCost, after, longestUpdate * 1000, Double(rssAfter - rssBefore) / 1048576))
        let counters = monitor.counters
        print("MonitorServerTests: \(counters)")
        XCTAssertEqual(connects, 1_000)
        XCTAssertGreaterThanOrEqual(counters.accepted + counters.refusedFull, 1_002,
                                    "every connection was taken, or closed at once when \(LineServer.Limits().maxClients) were open")
        XCTAssertGreaterThanOrEqual(counters.closedForInput, 1, "the garbage client was closed")
        XCTAssertGreaterThanOrEqual(counters.closedStuck, 1, "the client that never reads was closed")
        XCTAssertGreaterThan(goodFrames, framesBefore + 10, "the good client is still served")
        XCTAssertEqual(engine.monitorClientCount, 1, "only the good client is left")
        XCTAssertEqual(engine.stats.realVoices, 64, "the game's voices are untouched")
        XCTAssertLessThan(rssAfter - rssBefore, 32 << 20, "memory stays bounded")
        XCTAssertLessThan(longestUpdate, 1.0, "no frame stalled (a hang guard, not a speed test)")
        _ = stuck
        garbage.close()
    }
}
