import COpenAL
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// How much Earshot says, and how much it lets OpenAL Soft and ALSA say, on the process's stderr.
///
/// A library is quiet unless asked. Earshot logs through swift-log (labels `earshot.engine`,
/// `earshot.device`, `earshot.session`, `earshot.mpris`, `earshot.alsa`) at ``level``, default
/// `.warning`: only what needs the user's attention (a lost device, a hint source gone) is
/// logged; engine starts, route changes and resets are `.debug` and `.notice`. Set the level
/// before creating engines; the application's `LoggingSystem.bootstrap` decides where the
/// lines go.
///
/// The system libraries under OpenAL write to stderr on their own: opening the default device on
/// a machine without a sound card prints eight `ALSA lib …` lines (libasound) and an
/// `AL lib: (EE) …` line (OpenAL Soft) before Earshot can report
/// ``EarshotError/noOutputDevice(detail:)``. Unless the user has set `ALSOFT_LOGLEVEL` (then
/// both libraries speak as configured), the first device Earshot opens (see `OpenALEnvironment`):
/// - sets `ALSOFT_LOGLEVEL=0` for OpenAL Soft, which reads it once, at its first device open,
///   and removes it from the environment again right after (child processes do not inherit it);
/// - routes libasound's error messages (`snd_lib_error_set_handler`, process-wide) to the
///   `earshot.alsa` logger at `.debug`, so `EARSHOT_LOG=debug earshot …` still shows them.
///
/// ```swift
/// EarshotLogging.level = .debug     // everything Earshot has to say, e.g. while developing
/// let engine = try AudioEngine()
/// ```
public enum EarshotLogging {
    private static let state = Locked<Logger.Level>(.warning)
    private static let prepared = Locked<Bool>(false)

    /// The level of the loggers Earshot creates from now on (default `.warning`).
    public static var level: Logger.Level {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// A logger for `label` at ``level``.
    static func logger(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }

    /// Where libasound's messages go (created on first message, at the level then in force).
    static let alsaLogger = logger("earshot.alsa")
}
