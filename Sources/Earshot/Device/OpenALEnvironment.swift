import COpenAL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What Earshot sets up in the process before OpenAL Soft reads its configuration, which it does
/// once, at the process's first device open or device enumeration (`alc_initconfig`).
///
/// Two things, each only for that first call:
/// - **Quiet system libraries** (``EarshotLogging``): `ALSOFT_LOGLEVEL=0` and libasound's error
///   lines routed to the `earshot.alsa` debug log, unless the user set `ALSOFT_LOGLEVEL`.
/// - **Following the default output** (``AudioEngine/Configuration/followsDefaultOutput``):
///   OpenAL Soft 1.19.1 opens its PulseAudio stream unmovable (`[pulse] allow-moves = false`),
///   so a game keeps playing on the old output when the user picks another one. Earshot does not
///   touch the user's configuration files: it writes a generated file and points
///   `ALSOFT_CONF` at it for the first open. OpenAL Soft 1.19.1 (`Alc/alconfig.c`,
///   `ReadALConfig`) loads, in order, `/etc/openal/alsoft.conf`, `alsoft.conf` in each
///   `$XDG_CONFIG_DIRS` (default `/etc/xdg`), `~/.alsoftrc`, `$XDG_CONFIG_HOME/alsoft.conf`
///   (default `~/.config/alsoft.conf`), `alsoft.conf` next to the executable, and last the file
///   named by `ALSOFT_CONF`; a later file overrides only the keys it sets. The generated file
///   holds the user's own `ALSOFT_CONF` file first (when they set one), then
///   `[pulse]` / `allow-moves = true`: every other setting of every layer is kept. Afterwards
///   the environment is restored and the file removed (OpenAL has read it).
///
/// The choice is process-wide, made by the first open: it follows the default unless that open
/// is a real device with `followsDefaultOutput == false` or a named device (`.device(name)`),
/// which pins it. (PulseAudio 16 moves even a stream opened on a named sink when moves are
/// allowed, so a process that follows cannot pin a later device, and the other way round.)
enum OpenALEnvironment {
    private static let prepared = Locked<Bool>(false)
    /// Whether the process's OpenAL streams may move with the default output (decided once).
    private static let movesAllowed = Locked<Bool?>(nil)

    /// Whether OpenAL Soft was set up by Earshot to follow the default output (nil: not yet,
    /// or OpenAL was initialised before Earshot's first call).
    static var followsDefaultOutput: Bool? { movesAllowed.withLock { $0 } }

    /// Runs `body` — the process's first OpenAL call that reads the configuration, and every
    /// later one — with the environment prepared on the first call.
    static func prepare<R, E: Error>(allowMoves: Bool = true, _ body: () throws(E) -> R) throws(E) -> R {
        let first = prepared.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return try body() }
        var restore: [() -> Void] = []
        if getenv("ALSOFT_LOGLEVEL") == nil {
            setenv("ALSOFT_LOGLEVEL", "0", 0)
            restore.append { unsetenv("ALSOFT_LOGLEVEL") }
            _ = earshot_route_alsa_errors { message in
                guard let message else { return }
                EarshotLogging.alsaLogger.debug("\(String(cString: message))")
            }
        }
        var moves = false
        if allowMoves, let conf = writeMovableConfiguration() {
            moves = true
            let userConf = getenv("ALSOFT_CONF").map { String(cString: $0) }
            setenv("ALSOFT_CONF", conf, 1)
            restore.append {
                if let userConf { setenv("ALSOFT_CONF", userConf, 1) } else { unsetenv("ALSOFT_CONF") }
                unlink(conf)
            }
        }
        movesAllowed.withLock { $0 = moves }
        defer { for r in restore.reversed() { r() } }
        return try body()
    }

    /// Writes the generated configuration (the user's `ALSOFT_CONF` file, then
    /// `[pulse] allow-moves = true`) to a private file; nil when it cannot be written.
    private static func writeMovableConfiguration() -> String? {
        var text = ""
        if let user = getenv("ALSOFT_CONF").map({ String(cString: $0) }), !user.isEmpty {
            // Read by what is read (a /proc file or a device says 0 bytes): a user file larger
            // than OpenAL configurations ever are (1 MiB) is left in place untouched, and the
            // process then does not follow the default output; one that cannot be read is left out.
            switch Result(catching: { () throws(EarshotError) in try FileBytes.read(path: user, limit: 1 << 20) }) {
            case .success(let data): text += String(decoding: data, as: UTF8.self) + "\n"
            case .failure(.tooLarge): return nil
            case .failure: break
            }
        }
        text += "# Written by Earshot for OpenAL Soft's first device open, then removed:\n"
        text += "# follow the system's default output (AudioEngine.Configuration.followsDefaultOutput).\n"
        text += "[pulse]\nallow-moves = true\n"
        let directory = getenv("XDG_RUNTIME_DIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? NSTemporaryDirectory()
        var template = Array((directory + "/earshot-alsoft-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return nil }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let ok = text.utf8CString.withUnsafeBufferPointer { buf -> Bool in
            let n = buf.count - 1
            return write(fd, buf.baseAddress, n) == n
        }
        close(fd)
        guard ok else { unlink(path); return nil }
        return path
    }
}
