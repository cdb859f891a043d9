internal import CCloseOnExec
#if canImport(Glibc)
import Glibc
#endif

/// A pipe that wakes a thread sleeping in `poll(2)`: ``wake()`` writes one byte (from any thread,
/// never blocking), the thread polls ``readEnd`` and ``drain()``s it. Both ends are made
/// non-blocking and close-on-exec by `pipe2(2)` itself, so no child process started meanwhile by
/// another thread inherits them. Closed once, by ``close()`` or when released.
package final class WakePipe: @unchecked Sendable {
    // @unchecked Sendable: the descriptors are written once (init) and at `close()`, which its
    // owner calls once the thread that polls it has ended; `wake()` and `drain()` are plain
    // non-blocking syscalls.
    package private(set) var readEnd: Int32
    package private(set) var writeEnd: Int32

    package init() throws(UnixSocketError) {
        var fds: [Int32] = [-1, -1]
        guard earshot_pipe2_cloexec_nonblock(&fds) == 0 else { throw UnixSocketError(operation: "pipe2", code: errno) }
        readEnd = fds[0]
        writeEnd = fds[1]
    }

    deinit { close() }

    /// One byte into the pipe: the polling thread wakes. A full pipe already wakes it.
    package func wake() {
        guard writeEnd >= 0 else { return }
        var b: UInt8 = 1
        _ = write(writeEnd, &b, 1)
    }

    /// Reads every waiting byte (the pipe is non-blocking: never waits).
    package func drain() {
        guard readEnd >= 0 else { return }
        var sink = [UInt8](repeating: 0, count: 256)
        while sink.withUnsafeMutableBytes({ read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    package func close() {
        if readEnd >= 0 { _ = Glibc.close(readEnd) }
        if writeEnd >= 0 { _ = Glibc.close(writeEnd) }
        readEnd = -1
        writeEnd = -1
    }
}
