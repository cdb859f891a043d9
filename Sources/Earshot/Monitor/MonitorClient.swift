internal import EarshotLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A connection to a running engine's monitor: what `earshot monitor` uses, and what a tool of
/// the game's own can use to read the protocol (see the MonitorProtocol article).
///
/// ```swift
/// for engine in MonitorClient.runningEngines() { print(engine.pid, engine.process, engine.output) }
/// let client = try MonitorClient(pid: 4242)
/// while let line = try client.nextLine(timeout: 1) {
///     if case .frame(let frame) = try MonitorMessage.decode(line: line) { print(frame.voices.count) }
/// }
/// ```
public final class MonitorClient {
    /// A running engine with its monitor on.
    public struct RunningEngine: Sendable, Equatable {
        public var pid: Int32
        /// The process's name.
        public var process: String
        /// The engine's output device.
        public var output: String
        /// The socket.
        public var path: String
    }

    private let socket: UnixSocket
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    /// The socket this client is connected to.
    public let path: String

    /// Connects to `path`. Throws ``EarshotError/monitor(_:)`` when nothing listens there or the
    /// engine refuses the connection (another user's engine).
    public init(path: String, timeout: Double = 2) throws(EarshotError) {
        do {
            socket = try UnixSocket.connect(path: path, timeout: timeout)
        } catch {
            throw .monitor("cannot connect to \(path): \(error)")
        }
        self.path = path
    }

    /// Connects to process `pid`'s first engine (``MonitorSocketPath/path(pid:)``).
    /// Throws when the sockets' folder is not this user's own (``MonitorSocketPath/checkDirectory()``).
    public convenience init(pid: Int32, timeout: Double = 2) throws(EarshotError) {
        try MonitorSocketPath.checkDirectory()
        let path = MonitorSocketPath.path(pid: pid)
        guard access(path, F_OK) == 0 else {
            throw .monitor(
                "no monitor for process \(pid) (\(path) does not exist): start it with EARSHOT_MONITOR=1 or Configuration.monitor"
            )
        }
        try self.init(path: path, timeout: timeout)
    }

    /// The next line (without its newline), waiting at most `timeout` seconds: nil when none came
    /// in time. Throws ``EarshotError/monitor(_:)`` when the engine closed the connection (after the
    /// lines it sent) or a line is longer than ``MonitorProtocol/maxMessageBytes``.
    public func nextLine(timeout: Double) throws(EarshotError) -> [UInt8]? {
        let deadline = Clocks.monotonic() + max(0, timeout)
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start > 1 << 20 || start == buffer.count {
                    buffer.removeSubrange(0..<start)
                    start = 0
                }
                return line
            }
            guard buffer.count - start <= MonitorProtocol.maxMessageBytes else {
                throw .monitor("a message longer than \(MonitorProtocol.maxMessageBytes) bytes")
            }
            if ended { throw .monitor("the engine closed the connection") }
            let left = deadline - Clocks.monotonic()
            do {
                // A timeout of 0 still reads what is waiting.
                guard try socket.wait(timeout: max(0, left)) else { return nil }
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let n = try chunk.withUnsafeMutableBytes { raw throws(UnixSocketError) in try socket.receive(into: raw)
                }
                guard let n else {
                    ended = true
                    continue
                }
                buffer += chunk[0..<n]
            } catch {
                throw .monitor("connection broken: \(error)")
            }
        }
    }

    /// Sends a request (``MonitorRequest``). Throws when the connection is gone.
    public func send(_ request: MonitorRequest) throws(EarshotError) {
        let bytes = request.line
        var sent = 0
        let deadline = Clocks.monotonic() + 2
        while sent < bytes.count {
            do {
                sent += try bytes.withUnsafeBytes { raw throws(UnixSocketError) in
                    try socket.send(UnsafeRawBufferPointer(rebasing: raw[sent...]))
                }
                if sent < bytes.count {
                    guard Clocks.monotonic() < deadline else {
                        throw UnixSocketError(operation: "send", code: ETIMEDOUT)
                    }
                    _ = try socket.wait(forWriting: true, timeout: 0.1)
                }
            } catch {
                throw .monitor("cannot send to \(path): \(error)")
            }
        }
    }

    /// Closes the connection (also done when the client is released).
    public func close() { socket.close() }

    /// Engines of this user with their monitor on: every socket in ``MonitorSocketPath/directory``
    /// whose process is alive, asked for its `hello` (at most `timeout` seconds each). Sockets of
    /// processes that are gone (a game killed before its shutdown) are removed on the way. None
    /// when the folder is not this user's own (``MonitorSocketPath/checkDirectory()`` says why).
    public static func runningEngines(timeout: Double = 1) -> [RunningEngine] {
        guard (try? MonitorSocketPath.checkDirectory()) != nil else { return [] }
        let dir = MonitorSocketPath.directory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return [] }
        var found: [RunningEngine] = []
        for name in names.sorted() {
            guard let pid = MonitorSocketPath.pid(fromFileName: name) else { continue }
            let path = "\(dir)/\(name)"
            guard kill(pid, 0) == 0 || errno == EPERM else {
                unlink(path)   // its process is gone
                continue
            }
            guard let client = try? MonitorClient(path: path, timeout: timeout),
                  let line = try? client.nextLine(timeout: timeout),
                  case .hello(let hello)? = try? MonitorMessage.decode(line: line) else { continue }
            found.append(RunningEngine(pid: pid, process: hello.process, output: hello.output, path: path))
        }
        return found.sorted { ($0.pid, $0.path) < ($1.pid, $1.path) }
    }
}
