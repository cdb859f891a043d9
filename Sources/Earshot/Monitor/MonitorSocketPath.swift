internal import EarshotLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where monitor sockets live: `$XDG_RUNTIME_DIR/earshot/` (a directory of mode 0700), or, when
/// `XDG_RUNTIME_DIR` is unset or not an absolute path (a root shell, a service), `/tmp/earshot-UID/`
/// with the same checks. An engine's socket is `PID.sock` (mode 0600); a second engine in the same
/// process takes `PID-2.sock`, and so on.
///
/// ```swift
/// print(MonitorSocketPath.directory)   // /run/user/1000/earshot
/// ```
public enum MonitorSocketPath {
    /// The folder of this user's monitor sockets (it may not exist yet).
    public static var directory: String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/earshot"
        }
        return "/tmp/earshot-\(geteuid())"
    }

    /// The socket of process `pid`'s first engine.
    public static func path(pid: Int32) -> String { "\(directory)/\(pid).sock" }

    /// The process id a socket's file name stands for (`1234.sock`, `1234-2.sock`), else nil.
    public static func pid(fromFileName name: String) -> Int32? {
        guard name.hasSuffix(".sock") else { return nil }
        let stem = name.dropLast(5)
        let digits = stem.split(separator: "-", maxSplits: 1).first ?? stem
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let pid = Int32(digits), pid > 0 else { return nil }
        if stem.count > digits.count {
            let n = stem.dropFirst(digits.count + 1)
            guard !n.isEmpty, n.count <= 6, n.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        return pid
    }

    /// Throws ``EarshotError/monitor(_:)`` when ``directory`` exists but is not this user's own
    /// private folder — a symbolic link, another user's (made first, in `/tmp`, with a fake
    /// engine's socket in it), or open to others: nothing in it is trusted then. A folder that
    /// does not exist is no problem (no engine has its monitor on).
    ///
    /// ```swift
    /// do { try MonitorSocketPath.checkDirectory() } catch { print(error) }
    /// ```
    public static func checkDirectory() throws(EarshotError) {
        let dir = directory
        var st = stat()
        guard lstat(dir, &st) == 0 else { return }
        do {
            try PrivateDirectory.check(dir)
        } catch {
            throw .monitor("refusing \(dir): \(error)")
        }
    }

    /// Engines started in this process: the second one's socket is `PID-2.sock`.
    private static let enginesStarted = Atomic<Int>(0)

    /// A new socket path for an engine of this process, its folder made (0700) and checked.
    static func makeForEngine() throws(EarshotError) -> String {
        let dir = directory
        do {
            // $XDG_RUNTIME_DIR itself exists (the session made it); only our folder is made.
            try PrivateDirectory.ensure(dir)
        } catch {
            throw .monitor("cannot use \(dir): \(error)")
        }
        let n = enginesStarted.wrappingAdd(1, ordering: .relaxed).newValue
        let pid = getpid()
        return n == 1 ? "\(dir)/\(pid).sock" : "\(dir)/\(pid)-\(n).sock"
    }
}
