/// Something that hears when the system's default output changes, or the output the engine
/// plays on goes away: the feed of the session's `routeChange` events for an engine that
/// follows the default output.
///
/// The engine starts its source once, at the end of `init`, and stops it in
/// ``AudioEngine/shutdown()``. A source reports from any thread, through the closure it was
/// started with; the engine posts ``AudioSession/Event/routeChange(_:)`` with the change's
/// reason (and, for ``AudioSession/RouteChangeReason/oldDeviceUnavailable``, holds the audio
/// when ``AudioSession/pausesWhenOutputGoesAway`` is set). Reports after shutdown are ignored.
/// A source only reports: moving the engine's stream to the new output is the sound server's
/// job. `start` and `stop` must not block for long; a source does its work (I/O, IPC) on its
/// own thread, never the caller's or the mixer's, and nothing it started outlives `stop`.
///
/// On Linux a live `.systemDefault` engine that ``AudioEngine/Configuration/followsDefaultOutput``
/// listens to the PulseAudio server's events (PipeWire's PulseAudio server included) unless
/// ``AudioEngine/Configuration/defaultOutputSource`` names another source: one for another sound
/// system, or a test's.
///
/// ```swift
/// import Synchronization
///
/// final class HeadphoneJack: DefaultOutputSource {
///     private let report = Mutex<(@Sendable (DefaultOutputChange) -> Void)?>(nil)
///     func start(reportingTo report: @escaping @Sendable (DefaultOutputChange) -> Void) {
///         self.report.withLock { $0 = report }
///     }
///     func stop() { report.withLock { $0 = nil } }
///     /// Called by the platform's own notification.
///     func unplugged() {
///         report.withLock { $0 }?(DefaultOutputChange(reason: .oldDeviceUnavailable, output: "speakers"))
///     }
/// }
/// var configuration = AudioEngine.Configuration()
/// configuration.defaultOutputSource = HeadphoneJack()
/// ```
public protocol DefaultOutputSource: AnyObject, Sendable {
    /// Starts watching; changes go to `report` until ``stop()``.
    func start(reportingTo report: @escaping @Sendable (DefaultOutputChange) -> Void)
    /// Stops watching and releases what `start` acquired (bounded: never hangs). Idempotent.
    func stop()
}

/// One change of the output the engine plays on, as a ``DefaultOutputSource`` reports it.
public struct DefaultOutputChange: Sendable, Equatable, CustomStringConvertible {
    /// Why: ``AudioSession/RouteChangeReason/newDeviceAvailable`` when the user picked another
    /// default output, ``AudioSession/RouteChangeReason/oldDeviceUnavailable`` when the output the
    /// engine was on went away (it is on the default now).
    public var reason: AudioSession.RouteChangeReason
    /// The output the engine plays on now, in the sound server's words (a PulseAudio sink name).
    public var output: String

    /// A change to report: its reason and the output the engine is on now.
    public init(reason: AudioSession.RouteChangeReason, output: String) {
        self.reason = reason
        self.output = output
    }

    /// `"playing on a new output device; now on headphones"`: for logs.
    public var description: String { "\(reason); now on \(output)" }
}

/// How ``AudioEngine/Configuration`` holds its ``AudioEngine/Configuration/defaultOutputSource``:
/// two configurations are equal when they hold the same source object (or none).
struct DefaultOutputSourceReference: Sendable, Equatable {
    let source: (any DefaultOutputSource)?

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.source === rhs.source }
}
