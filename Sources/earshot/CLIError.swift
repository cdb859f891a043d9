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
            return "no audio output device (use \(outFlag) FILE.wav to render offline)"
                + (detail.isEmpty ? "" : "; \(detail)")
        case .deviceNotFound(let name):
            return "no playback device named \"\(name)\" (run `earshot devices` to list them)"
        case .noInputDevice(let detail):
            return "no audio input device could be opened" + (detail.isEmpty ? "" : ": \(detail)")
                + " (run `earshot devices` to list inputs)"
        default:
            return description
        }
    }
}

/// Writes a line to stderr (status and progress, kept off stdout). `message` is escaped to one
/// line (``EarshotError/oneLine(_:)``: a sound id, a bank name or a file name cannot clear the
/// screen, set the title, write the clipboard or forge a line); `prefix` and `suffix` are the
/// command's own terminal controls (`\r` to redraw a progress line), written as they are.
func note(_ message: String, newline: Bool = true, prefix: String = "", suffix: String = "") {
    var line = prefix + EarshotError.oneLine(message) + suffix + (newline ? "\n" : "")
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Prints a line of text output on stdout, escaped to one line as ``note(_:newline:prefix:suffix:)``
/// escapes: every line the CLI prints holds names from files and banks.
func say(_ line: String) {
    Swift.print(EarshotError.oneLine(line))
}

/// Prints JSON on stdout. The serializers escape C0 controls; DEL and the C1 controls (which
/// some terminals obey: U+009B is a CSI) are escaped too, which is valid JSON for the same text.
func sayJSON(_ text: String) {
    guard text.unicodeScalars.contains(where: { $0.value >= 0x7F && $0.value <= 0x9F }) else {
        return Swift.print(text)
    }
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value >= 0x7F && scalar.value <= 0x9F {
            out += "\\u00" + String(scalar.value, radix: 16, uppercase: true)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    Swift.print(out)
}
