import ArgumentParser
import Earshot
#if canImport(Glibc)
import Glibc
#endif

/// Prints `earshot: message` on stderr and exits 1: the CLI's one way of failing.
func fail(_ message: String) -> Never {
    var line = "earshot: \(EarshotError.oneLine(message))\n"   // one line, whatever a name holds
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// Fails with the CLI's wording of a library error (``EarshotError/cliDescription``).
func fail(_ error: EarshotError) -> Never {
    fail(error.cliDescription)
}

extension EarshotError {
    /// The error as the CLI says it: the library speaks of library calls (`Output.loopback`,
    /// `OutputDevice.playbackDeviceNames()`); the command line names its own flags and commands
    /// instead. One line.
    var cliDescription: String { cliDescription(outFlag: "--out") }

    /// ``cliDescription`` for a command whose offline flag is `outFlag` (`audition` takes `-o`).
    func cliDescription(outFlag: String) -> String {
        switch self {
        case .noOutputDevice(let detail):
            return "no audio output device (use \(outFlag) FILE.wav to render offline)" + (detail.isEmpty ? "" : "; \(detail)")
        case .deviceNotFound(let name):
            return "no playback device named \"\(name)\" (run `earshot devices` to list them)"
        case .noInputDevice(let detail):
            return "no audio input device could be opened" + (detail.isEmpty ? "" : ": \(detail)") + " (run `earshot devices` to list inputs)"
        default:
            return description
        }
    }
}

/// Writes a line to stderr (status and progress, kept off stdout).
func note(_ message: String, newline: Bool = true) {
    var line = message + (newline ? "\n" : "")
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
