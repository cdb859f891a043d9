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
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
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

    /// Ctrl-C (or SIGTERM) during an offline render, decode or `play --out`: removes the half-
    /// written partial file and exits 130, so nothing is left behind (the default action killed the
    /// process and left `.NAME.partial-PID` beside the output). Live playback installs its own
    /// handler (fade out) instead.
    static func removePartialOutputOnInterrupt() {
        // Once per process: a second `signal(SIG_IGN)` would undo the handler libdispatch
        // installed for the first sources (it installs it only once), and Ctrl-C would be ignored.
        guard interruptSources.isEmpty else { return }
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                AudioFileWriter.removePartialFiles()
                let message = "\nearshot: interrupted; nothing written\n"
                message.utf8CString.withUnsafeBufferPointer { _ = write(2, $0.baseAddress, $0.count - 1) }
                _exit(130)
            }
            source.resume()
            interruptSources.append(source)
        }
    }
    nonisolated(unsafe) private static var interruptSources: [DispatchSourceSignal] = []
}
