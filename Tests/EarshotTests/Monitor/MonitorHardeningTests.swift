@testable import Earshot
import EarshotLinux
import EarshotTestSupport
import Foundation
import XCTest

/// The monitor's server against an attacker (issue 35, item 16): replies that are never read stay
/// under the per-client cap, descriptor exhaustion does not spin the server's thread, no child
/// process inherits a monitor descriptor, and an overlong request gets its error line. Each with
/// the limit it must stay under.
final class MonitorHardeningTests: XCTestCase {
    private func monitoredEngine(voices: Int = 4) throws -> AudioEngine { try MonitorServerTests.monitoredEngine(voices: voices) }

    private func frame(_ engine: AudioEngine) throws {
        engine.update(deltaTime: 1.0 / 60)
        _ = try engine.render(frames: 800)
    }

    private static func rss() -> Int { MonitorServerTests.rss() }

    /// Sends `line` over and over without reading, as fast as the socket takes it, until `count`
    /// lines went or nothing was taken for `stall` seconds; the bytes sent.
    private func flood(_ socket: UnixSocket, line: [UInt8], count: Int, stall: Double = 1) -> Int {
        let block = [UInt8]((0..<256).flatMap { _ in line })   // 256 lines per send
        let total = line.count * count
        var sent = 0
        var lastProgress = Clocks.monotonic()
        while sent < total, Clocks.monotonic() - lastProgress < stall {
            let offset = sent % block.count
            let n = block.withUnsafeBytes { raw in
                (try? socket.send(UnsafeRawBufferPointer(rebasing: raw[offset..<min(block.count, offset + total - sent)]))) ?? 0
            }
            if n > 0 {
                sent += n
                lastProgress = Clocks.monotonic()
            } else {
                _ = try? socket.wait(forWriting: true, timeout: 0.05)
            }
        }
        return sent
    }

    /// A client that sends 400,000 pings (6.4 MB of `pong`s if each were queued) and reads none:
    /// the bytes waiting for it never pass the 4 MiB cap — the server stops reading its requests
    /// instead — and none is lost: once it reads, every ping it sent whole gets its pong.
    func testPingsNeverReadStayUnderThePerClientCap() throws {
        let dir = NSTemporaryDirectory() + "earshot-pings-\(getpid())"
        try PrivateDirectory.ensure(dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/s.sock"
        let pong = Array(#"{"type":"pong"}"#.utf8) + [0x0A]
        let server = try LineServer(listener: UnixSocket.listen(path: path, mode: 0o600) { _ in true }, path: path,
                                    allowedUID: geteuid(), greeting: { [] }, answer: { _ in .reply(pong) }, next: { nil })
        server.start(name: "test.pings")
        defer { server.stop() }
        let rssBefore = Self.rss()
        let client = try UnixSocket.connect(path: path)
        let ping = MonitorRequest.ping.line
        let sent = flood(client, line: ping, count: 400_000)
        let peak = server.counters.peakQueuedBytes
        let rssAfter = Self.rss()
        print("MonitorHardeningTests: \(sent / ping.count) pings sent unread; peak queued \(peak) bytes; RSS \(String(format: "%+.1f", Double(rssAfter - rssBefore) / 1048576)) MiB")
        XCTAssertLessThanOrEqual(peak, 4 << 20, "the 4 MiB cap covers replies")
        XCTAssertGreaterThan(peak, 1 << 20, "the test filled the queue")
        XCTAssertLessThan(sent, 400_000 * ping.count, "the server stopped taking requests it could not answer")
        XCTAssertLessThan(rssAfter - rssBefore, 24 << 20)
        // Reading now: every whole ping is answered (the server resumes as the queue drains).
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let expected = (sent / ping.count) * pong.count
        let deadline = Clocks.monotonic() + 20
        while received < expected, Clocks.monotonic() < deadline {
            _ = try client.wait(timeout: 0.2)
            let n = try buffer.withUnsafeMutableBytes { try client.receive(into: $0) }
            guard let n else { break }
            received += n
        }
        XCTAssertEqual(received, expected, "every ping sent whole got its pong")
        XCTAssertLessThanOrEqual(server.counters.peakQueuedBytes, 4 << 20)
    }

    /// The engine's own monitor: 100,000 pings, never read, while the game runs frames.
    func testEngineMonitorPingFloodIsBounded() throws {
        let engine = try monitoredEngine()
        defer { engine.shutdown() }
        let path = try XCTUnwrap(engine.monitorSocketPath)
        let monitor = try XCTUnwrap(engine.monitor)
        let client = try UnixSocket.connect(path: path)
        try frame(engine)
        let rssBefore = Self.rss()
        let sent = flood(client, line: MonitorRequest.ping.line, count: 100_000, stall: 0.5)
        for _ in 0..<30 { try frame(engine) }
        let peak = monitor.counters.peakQueuedBytes
        let growth = Self.rss() - rssBefore
        print("MonitorHardeningTests: engine monitor, \(sent / MonitorRequest.ping.line.count) pings unread: peak queued \(peak) bytes, RSS \(String(format: "%+.1f", Double(growth) / 1048576)) MiB")
        XCTAssertLessThanOrEqual(peak, 4 << 20)
        XCTAssertLessThan(growth, 24 << 20)
    }

    /// CPU seconds (user + system) of the whole process so far: read without a descriptor.
    private static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// With every descriptor of the process in use (RLIMIT_NOFILE reached) and a connection
    /// waiting, the monitor's thread does not spin on `accept`: the process takes at most 5 % of a
    /// core over 1 s (the spinning thread took 100 %); the connection is served once descriptors
    /// are free again.
    func testDescriptorExhaustionDoesNotSpinTheAcceptLoop() throws {
        let engine = try monitoredEngine()
        defer { engine.shutdown() }
        let path = try XCTUnwrap(engine.monitorSocketPath)
        var limit = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0)
        let saved = limit
        // A low soft limit, so that filling it is quick.
        var highest: Int32 = 0
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            highest = max(highest, Int32(entry) ?? 0)
        }
        limit.rlim_cur = rlim_t(highest + 64)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit), 0)
        var fillers: [Int32] = []
        defer {
            for fd in fillers { close(fd) }
            var restore = saved
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        }
        while true {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if fd < 0 { break }
            fillers.append(fd)
        }
        XCTAssertEqual(errno, EMFILE)
        // One descriptor for the client's socket; then none is left for the server's accept.
        close(fillers.removeLast())
        let client = try UnixSocket.connect(path: path)
        usleep(100_000)   // the server sees the connection and fails to accept it
        // The whole process's CPU while this thread sleeps: the monitor's thread, spinning, was
        // all of it (nothing else of a loopback engine runs on its own).
        let before = Self.processCPU()
        usleep(1_000_000)
        let share = Self.processCPU() - before
        let failures = engine.monitor?.counters.acceptFailures ?? 0
        for fd in fillers { close(fd) }
        fillers.removeAll()
        var restore = saved
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &restore)
        print(String(format: "MonitorHardeningTests: process CPU under EMFILE: %.1f %% of a core over 1 s; %d accept failures", share * 100, failures))
        XCTAssertGreaterThan(failures, 0, "accept did fail for want of descriptors")
        XCTAssertLessThan(failures, 40, "it backs off between tries")
        XCTAssertLessThanOrEqual(share, 0.05, "the accept loop does not spin")
        // Descriptors are free again: the waiting connection is served.
        var hello = false
        let deadline = Clocks.monotonic() + 3
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !hello, Clocks.monotonic() < deadline {
            _ = try client.wait(timeout: 0.1)
            if let n = try buffer.withUnsafeMutableBytes({ try client.receive(into: $0) }), n > 0 {
                hello = String(decoding: buffer[0..<n], as: UTF8.self).contains(#""type":"hello""#)
            }
        }
        XCTAssertTrue(hello, "the connection that waited is greeted")
    }

    /// The sockets and pipes open in process `pid` (from /proc/PID/fd), as their link texts.
    private static func socketsAndPipes(of pid: pid_t) -> [String] {
        let dir = "/proc/\(pid)/fd"
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).compactMap { entry in
            guard let fd = Int(entry), fd > 2, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(dir)/\(entry)"),
                  target.hasPrefix("socket:") || target.hasPrefix("pipe:") else { return nil }
            return target
        }
    }

    /// Children started while clients connect and disconnect as fast as they can inherit no
    /// monitor connection and no wake pipe: every descriptor is close-on-exec from its creation
    /// (`accept4`, `pipe2`). 300 children, each checked.
    func testChildrenInheritNoMonitorDescriptor() throws {
        let argv: [UnsafeMutablePointer<CChar>?] = ["/bin/sleep", "5"].map { $0.withCString { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        /// The sockets and pipes a child of this process gets (nil: it could not be looked at).
        func inherited() -> [String]? {
            var pid: pid_t = 0
            guard posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0 else { return nil }
            defer {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            }
            // Exec has happened once /proc/PID/exe is sleep; then the descriptors are final.
            for _ in 0..<400 {
                if (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"))?.hasSuffix("sleep") ?? false {
                    return Self.socketsAndPipes(of: pid)
                }
                usleep(250)
            }
            return nil
        }
        // What the test process itself leaves inheritable (the test runner's own) is not the monitor's.
        let baseline = Set(inherited() ?? [])
        let engine = try monitoredEngine()
        defer { engine.shutdown() }
        let path = try XCTUnwrap(engine.monitorSocketPath)
        let stop = Locked(false)
        let flooder = Thread {
            while !stop.withLock({ $0 }) {
                if let s = try? UnixSocket.connect(path: path, timeout: 0.1) {
                    _ = try? s.wait(timeout: 0.002)
                    s.close()
                }
            }
        }
        flooder.start()
        defer { stop.withLock { $0 = true } }
        usleep(50_000)
        var leaked: Set<String> = []
        var checked = 0
        for _ in 0..<300 {
            guard let fds = inherited() else { continue }
            checked += 1
            leaked.formUnion(Set(fds).subtracting(baseline))
        }
        stop.withLock { $0 = true }
        let accepted = engine.monitor?.counters.accepted ?? 0
        print("MonitorHardeningTests: \(checked) children checked while \(accepted) connections were accepted; inherited: \(leaked.count)")
        XCTAssertGreaterThan(checked, 250)
        XCTAssertGreaterThan(accepted, 50, "connections came and went meanwhile")
        XCTAssertEqual(leaked.sorted().prefix(10), [], "no socket or pipe reaches a child (\(leaked.count) did)")
    }

    /// A request line longer than 1,023 bytes, with or without its newline, is answered with
    /// the promised `error` line before the connection closes.
    func testAnOverlongRequestGetsItsErrorLine() throws {
        let engine = try monitoredEngine()
        defer { engine.shutdown() }
        let path = try XCTUnwrap(engine.monitorSocketPath)
        for (bytes, newline) in [(1_024, false), (5_000, false), (2_000, true)] {
            let socket = try UnixSocket.connect(path: path)
            var line = [UInt8](repeating: UInt8(ascii: "x"), count: bytes)
            if newline { line.append(0x0A) }
            var sent = 0
            while sent < line.count {
                sent += try line.withUnsafeBytes { try socket.send(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            }
            // Everything the server says until it closes (hello, perhaps frames, the error).
            var text: [UInt8] = []
            var closed = false
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            let deadline = Clocks.monotonic() + 3
            while !closed, Clocks.monotonic() < deadline {
                try frame(engine)
                _ = try socket.wait(timeout: 0.02)
                if let n = try buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                    text += buffer[0..<n]
                } else {
                    closed = true
                }
            }
            let messages = try text.split(separator: 0x0A).map { try MonitorMessage.decode(line: $0) }
            let error = messages.compactMap { m -> String? in if case .error(let e) = m { return e } else { return nil } }.first
            XCTAssertTrue(error?.contains("longer than the 1023 bytes") ?? false, "\(bytes) bytes: \(error ?? "no error line")")
            XCTAssertTrue(closed, "\(bytes) bytes: the connection closes after the error")
        }
    }

    /// A hostile client that reads slowly (1 KiB every 20 ms) while it sends a random mix of
    /// valid and invalid requests and frames run at 60 Hz with 64 voices: the bytes waiting for
    /// it stay under the cap, the game's memory does not grow, and another client is still served.
    func testSlowReaderWithRandomRequests() throws {
        let engine = try monitoredEngine(voices: 64)
        defer { engine.shutdown() }
        let path = try XCTUnwrap(engine.monitorSocketPath)
        let monitor = try XCTUnwrap(engine.monitor)
        let good = try MonitorClient(path: path)
        let slow = try UnixSocket.connect(path: path)
        var generator = SplitMix64(seed: 35_16)
        let requests: [[UInt8]] = [MonitorRequest.ping.line, MonitorRequest.pause.line, MonitorRequest.resume.line,
                                   MonitorRequest.rate(60).line, MonitorRequest.rate(1).line]
        for _ in 0..<10 { try frame(engine) }
        let rssBefore = Self.rss()
        var goodFrames = 0
        var buffer = [UInt8](repeating: 0, count: 1024)
        for step in 0..<150 {   // 3 s at 20 ms
            var burst: [UInt8] = []
            for _ in 0..<Int(generator.next() % 400) { burst += requests[Int(generator.next() % UInt64(requests.count))] }
            if step == 140 { burst += Array(#"{"request":"rate","hz":1e999}"#.utf8) + [0x0A] }   // an invalid one: error and close
            _ = burst.withUnsafeBytes { try? slow.send($0) }
            _ = buffer.withUnsafeMutableBytes { try? slow.receive(into: $0) }
            try frame(engine)
            while let line = try good.nextLine(timeout: 0) {
                if case .frame = try MonitorMessage.decode(line: line) { goodFrames += 1 }
            }
            usleep(20_000)
        }
        let counters = monitor.counters
        let growth = Self.rss() - rssBefore
        print("MonitorHardeningTests: slow reader: peak queued \(counters.peakQueuedBytes) bytes, RSS \(String(format: "%+.1f", Double(growth) / 1048576)) MiB, good client \(goodFrames) frames; \(counters)")
        XCTAssertLessThanOrEqual(counters.peakQueuedBytes, 4 << 20)
        XCTAssertLessThan(growth, 24 << 20)
        XCTAssertGreaterThan(goodFrames, 20, "the other client is still served")
    }
}
