import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

/// Prints `earshot: message` on stderr and exits 1: the CLI's one way of failing.
func fail(_ message: String) -> Never {
    var line = "earshot: \(message)\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// Writes a line to stderr (status and progress, kept off stdout).
func note(_ message: String, newline: Bool = true) {
    var line = message + (newline ? "\n" : "")
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
