internal import CCloseOnExec
#if canImport(Glibc)
import Glibc
#endif

/// One Unix-domain stream socket: a listening socket or a connection, non-blocking, close-on-exec,
/// closed once (by ``close()`` or when released). Plain POSIX: it knows nothing of Earshot; the
/// engine's monitor (Sources/Earshot/Monitor) adapts it.
///
/// Writes never raise SIGPIPE (`MSG_NOSIGNAL`); every call reports failures as a `UnixSocketError`
/// with the `errno` text, never a signal.
package final class UnixSocket {
    /// The descriptor, or -1 once closed.
    package private(set) var fd: Int32

    package init(adopting fd: Int32) {
        self.fd = fd
    }

    deinit { close() }

    package func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }

    /// The longest socket path (`sun_path` less its terminating zero): 107 bytes on Linux.
    package static let maxPathBytes = 107

    /// Fills a `sockaddr_un` for `path`; throws when the path is too long for one.
    static func address(_ path: String) throws(UnixSocketError) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maxPathBytes, !bytes.contains(0) else {
            throw UnixSocketError(operation: "socket path \(path)", code: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
            raw[bytes.count] = 0
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count + 1
        return (address, socklen_t(length))
    }

    private static func makeSocket() throws(UnixSocketError) -> Int32 {
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw UnixSocketError(operation: "socket", code: errno) }
        return fd
    }

    /// A listening socket bound at `path` with file mode `mode` (`chmod`ed after `bind`; put it in
    /// a folder only its owner can enter, so that it is never reachable more widely meanwhile).
    /// An existing file at `path` is refused unless `replacingStale` says it may be removed.
    package static func listen(path: String, mode: mode_t, backlog: Int32 = 16,
                               replacingStale: (String) -> Bool) throws(UnixSocketError) -> UnixSocket {
        var (address, length) = try address(path)
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK, replacingStale(path), unlink(path) == 0 else {
                throw UnixSocketError(operation: "bind \(path) (a file is in the way)", code: EEXIST)
            }
        }
        let fd = try makeSocket()
        let socket = UnixSocket(adopting: fd)
        // No umask change (it is the whole process's: a game thread creating a file meanwhile would
        // get this mode): the socket lives in a 0700 folder its owner checked, and chmod follows.
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        let bindError = errno
        guard bound == 0 else { throw UnixSocketError(operation: "bind \(path)", code: bindError) }
        guard chmod(path, mode) == 0 else {
            let e = errno
            unlink(path)
            throw UnixSocketError(operation: "chmod \(path)", code: e)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let e = errno
            unlink(path)
            throw UnixSocketError(operation: "listen \(path)", code: e)
        }
        return socket
    }

    /// Connects to the socket at `path`, waiting at most `timeout` seconds; the connection is
    /// left non-blocking.
    package static func connect(path: String, timeout: Double = 2) throws(UnixSocketError) -> UnixSocket {
        var (address, length) = try address(path)
        let fd = try makeSocket()
        let socket = UnixSocket(adopting: fd)
        // A Unix-domain connect completes at once or fails; EAGAIN means the listener's backlog is
        // full: try again shortly, until the timeout.
        var waited = 0.0
        while true {
            let r = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
            }
            if r == 0 { return socket }
            let e = errno
            guard e == EAGAIN || e == EINTR else { throw UnixSocketError(operation: "connect \(path)", code: e) }
            guard waited < timeout else { throw UnixSocketError(operation: "connect \(path)", code: ETIMEDOUT) }
            usleep(2_000)
            waited += 0.002
        }
    }

    /// Accepts one waiting connection (non-blocking and close-on-exec from the start: `accept4`,
    /// so a child process started meanwhile by another thread never inherits it), or nil when
    /// none waits. Throws on any other failure — `EMFILE`/`ENFILE` among them, which leave the
    /// connection waiting: the caller must not poll the listener again at once (``LineServer``
    /// backs off).
    package func accept() throws(UnixSocketError) -> UnixSocket? {
        let client = earshot_accept4_cloexec_nonblock(fd)
        guard client >= 0 else {
            let e = errno
            if e == EAGAIN || e == EWOULDBLOCK || e == EINTR || e == ECONNABORTED { return nil }
            throw UnixSocketError(operation: "accept", code: e)
        }
        return UnixSocket(adopting: client)
    }

    /// The peer's credentials as the kernel recorded them at connect (`SO_PEERCRED`).
    package func peerCredentials() throws(UnixSocketError) -> PeerCredentials {
        var credentials = PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max)
        var size = socklen_t(MemoryLayout<PeerCredentials>.size)
        let r = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size)
        guard r == 0, Int(size) == MemoryLayout<PeerCredentials>.size else {
            throw UnixSocketError(operation: "getsockopt(SO_PEERCRED)", code: r == 0 ? EINVAL : errno)
        }
        return credentials
    }

    /// Sends what it can of `bytes` without blocking: the count sent (0 when the peer's buffer is
    /// full). Throws when the connection is broken.
    package func send(_ bytes: UnsafeRawBufferPointer) throws(UnixSocketError) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        if n >= 0 { return n }
        let e = errno
        if e == EAGAIN || e == EWOULDBLOCK || e == EINTR { return 0 }
        throw UnixSocketError(operation: "send", code: e)
    }

    /// Reads what is waiting, at most `buffer.count` bytes, without blocking: nil at the end of
    /// the stream (the peer closed), 0 when nothing waits.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) throws(UnixSocketError) -> Int? {
        let n = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        if n > 0 { return n }
        if n == 0 { return buffer.isEmpty ? 0 : nil }
        let e = errno
        if e == EAGAIN || e == EWOULDBLOCK || e == EINTR { return 0 }
        throw UnixSocketError(operation: "recv", code: e)
    }

    /// Waits until the socket can be read (or written), at most `timeout` seconds; false on timeout.
    package func wait(forWriting: Bool = false, timeout: Double) throws(UnixSocketError) -> Bool {
        var p = pollfd(fd: fd, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
        let ms = Int32(max(0, min(timeout, 3_600)) * 1000)
        while true {
            let r = poll(&p, 1, ms)
            if r > 0 { return true }
            if r == 0 { return false }
            if errno != EINTR { throw UnixSocketError(operation: "poll", code: errno) }
        }
    }
}

/// What `SO_PEERCRED` reports of a Unix-socket peer (the layout of Linux's `struct ucred`, which
/// Swift's Glibc module does not export).
package struct PeerCredentials: Sendable, Equatable {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32
}

/// A socket call that failed: the call and its `errno`.
package struct UnixSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    package var operation: String
    package var code: Int32

    package init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    package var description: String { "\(operation): \(String(cString: strerror(code)))" }
}
