// stdout is a C global that Swift 6 will not let code read; @preconcurrency makes it readable
// here. Only `flushOrFail` touches it, on the main thread or in exit's handlers after it.
@preconcurrency import Glibc

/// The check that what a command printed reached standard output.
enum StandardOutput {
    /// Flushes stdout; on an error (now or in an earlier write: `ferror`), says so on stderr and
    /// exits 1 at once (`_exit`: safe inside an `atexit` handler).
    static func flushOrFail() {
        errno = 0
        guard fflush(stdout) != 0 || ferror(stdout) != 0 else { return }
        let reason = errno != 0 ? String(cString: strerror(errno)) : "write error"
        var line = "earshot: cannot write to standard output: \(reason)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        _exit(1)
    }
}
