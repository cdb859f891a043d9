import Dispatch
import Earshot
import Foundation

/// Checks on the files a command is about to write, made before any work is done.
enum OutputGuard {
    /// The canonical path of `path`: symlinks and `..` resolved through its folder, so an output
    /// that does not exist yet compares with the inputs it would overwrite.
    static func canonical(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        if FileManager.default.fileExists(atPath: path) { return url.resolvingSymlinksInPath().path }
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent)
            .path
    }

    /// Fails (exit 1) when `output` is one of `inputs` (or the same file under another name), or
    /// when two outputs are one file.
    static func refuseOverwriting(_ outputs: [String], inputs: [String]) {
        let sources = Dictionary(inputs.map { (canonical($0), $0) }, uniquingKeysWith: { a, _ in a })
        var seen: [String: String] = [:]
        for output in outputs {
            let c = canonical(output)
            if let input = sources[c] { fail("\(output): refusing to write over an input (\(input))") }
            if let other = seen[c] { fail("\(output): the same file as \(other); give each output its own name") }
            seen[c] = output
        }
    }

    /// Fails (exit 1) unless `path`'s folder exists and can be written — checked before a long
    /// render, not after it.
    static func requireWritableFolder(_ path: String) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            fail("\(path): cannot write: the folder \(folder) does not exist")
        }
        guard FileManager.default.isWritableFile(atPath: folder) else {
            fail("\(path): cannot write: the folder \(folder) is not writable")
        }
    }

    /// A problem with writing a file at `path` that no check of its folder sees: it is a folder
    /// (or a device, a socket …). Nil when `path` does not exist or is a file or a symlink.
    static func notAFileProblem(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG, S_IFLNK: return nil
        case S_IFDIR: return "\(path): cannot write: it is a folder (give a file name)"
        default: return "\(path): cannot write: it is not a regular file"
        }
    }

    /// The signals whose default action ends the process and that can be caught: each one, during
    /// an offline render, decode, `record` or `play --out`, removes the half-written temporary
    /// files and exits 128 + the signal's number, so nothing is left behind (the default action
    /// killed the process and left `.NAME.partial-PID` beside the output).
    ///
    /// SIGPIPE is ignored instead: libdispatch installs a handler for it but its source did not
    /// fire reliably, and a closed pipe then shows as a write error — stdout's is exit 1
    /// (``StandardOutput``). A render never writes to a pipe, so it just completes.
    static let fatalSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,
                                        SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF]

    /// Installs the clean-up for every one of ``fatalSignals``. Live playback installs its own
    /// handler for SIGINT/SIGTERM (fade out) instead.
    static func removePartialOutputOnInterrupt() {
        // Once per process: a second `signal(SIG_IGN)` would undo the handler libdispatch
        // installed for the first sources (it installs it only once), and Ctrl-C would be ignored.
        guard interruptSources.isEmpty else { return }
        signal(SIGPIPE, SIG_IGN)
        for sig in fatalSignals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                let (_, committed) = PartialFile.removeTemporaries()
                let what =
                    sig == SIGINT ? "interrupted" : "stopped by signal \(sig) (\(String(cString: strsignal(sig))))"
                let message =
                    "\nearshot: \(what); "
                    + (committed > 0 ? "outputs already complete were kept\n" : "nothing written\n")
                message.utf8CString.withUnsafeBufferPointer { _ = write(2, $0.baseAddress, $0.count - 1) }
                _exit(128 + sig)
            }
            source.resume()
            interruptSources.append(source)
        }
        // libdispatch installs its handlers on its own thread, after `resume()` returns; until
        // then the signals are ignored (SIG_IGN above) and would be lost. Wait (at most a second)
        // until every one has a handler, so that no output is written before the clean-up holds.
        for _ in 0..<1_000 {
            let pending = fatalSignals.contains { sig in
                var action = sigaction()
                sigaction(sig, nil, &action)
                let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
                return handler == 0 || handler == 1   // SIG_DFL or SIG_IGN
            }
            if !pending { break }
            usleep(1_000)
        }
    }
    nonisolated(unsafe) private static var interruptSources: [DispatchSourceSignal] = []
}
