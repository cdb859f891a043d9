internal import EarshotLinux

/// The secondary-audio hint from media players on the session D-Bus (MPRIS): Earshot's hint
/// source on Linux.
///
/// Any `org.mpris.MediaPlayer2.*` player of another process whose `PlaybackStatus` is
/// `Playing` turns the hint on; when none plays (paused, stopped, or gone from the bus) it turns
/// off. Players of this process are ignored.
///
/// It watches on its own thread (`earshot.mpris`), never the game's or the mixer's, over a
/// private libdbus connection (the `EarshotLinux` target, below the engine). No query ever
/// blocks the watcher: every question to a player is sent without waiting and its answer picked
/// out by its serial. A query unanswered after ``callTimeout`` (default 0.25 s) counts the
/// player as not playing, and that peer is asked again no sooner than ``unresponsiveRetry``
/// (1 s) later — so a peer that floods invalidations and never answers costs one small query a
/// second and no memory, and never delays other players. At most ``maxPeers`` (32) connections,
/// each with at most ``maxNamesPerPeer`` (4) player names, are tracked; players beyond that are
/// ignored (logged) until tracked ones vanish. A change is reported once it has held for
/// ``settleTime`` (default 0.15 s): mpv-mpris, for one, reports `Playing` for ~60 ms when an
/// idle player starts, which must not duck the music. With no bus, or when the bus goes away,
/// the source reports itself unavailable (the hint input is off, the engine runs on) and tries
/// to connect again with a growing delay (0.5 s … 10 s).
///
/// Another platform, or a test, supplies its own ``SecondaryAudioHintSource`` instead.
///
/// ```swift
/// engine.session.enableSystemHints()          // the same as:
/// engine.session.addHintSource(MPRISHintSource())
/// ```
public final class MPRISHintSource: SecondaryAudioHintSource, Sendable {
    /// `"mpris"`, in logs and ``AudioSession/hintSources``.
    public let name = "mpris"
    /// The bus to watch; nil: `DBUS_SESSION_BUS_ADDRESS` of this process.
    public var busAddress: String? { monitor.busAddress }
    /// The timeout of every D-Bus call, in seconds.
    public var callTimeout: Double { monitor.callTimeout }
    /// How long a change must hold before it is reported, in seconds.
    public var settleTime: Double { monitor.settleTime }

    /// How long a peer whose query timed out waits before it is asked again, in seconds.
    public static let unresponsiveRetry = MPRISMonitor.unresponsiveRetry
    /// The most peers (bus connections owning `org.mpris.MediaPlayer2.*` names) tracked at once.
    public static let maxPeers = MPRISMonitor.maxPeers
    /// The most player names tracked per peer.
    public static let maxNamesPerPeer = MPRISMonitor.maxNamesPerPeer

    private let monitor: MPRISMonitor

    /// - Parameters:
    ///   - busAddress: the bus to watch (a test's private bus); nil: the session bus of
    ///     `DBUS_SESSION_BUS_ADDRESS`.
    ///   - callTimeout: seconds each D-Bus call may take (0.01…5; clamped).
    ///   - settleTime: seconds a change must hold before it is reported (0…2; clamped).
    public init(busAddress: String? = nil, callTimeout: Double = 0.25, settleTime: Double = 0.15) {
        monitor = MPRISMonitor(busAddress: busAddress, callTimeout: callTimeout, settleTime: settleTime,
                               logger: EarshotLogging.logger("earshot.mpris"))
    }

    /// Whether the watcher is connected to the bus now.
    public var isConnected: Bool { monitor.isConnected }

    /// The players seen now (well-known names such as `org.mpris.MediaPlayer2.mpv`, this
    /// process's excluded) and whether each is playing.
    public var players: [String: Bool] { monitor.players }

    /// The watcher's counters now (tests and diagnostics).
    var counters: MPRISMonitor.Counters { monitor.counters }

    /// Starts the watcher thread (nothing when it runs already); it reports to `sink` until
    /// ``stop()``.
    public func start(reportingTo sink: HintSink) {
        monitor.start(report: { sink.report(otherAudioPlaying: $0) }, unavailable: { sink.reportUnavailable($0) })
    }

    /// Asks every other player that is playing to pause (MPRIS `Pause`), on the watcher's
    /// thread, as soon as it is connected: ``AudioSession/activate()`` calls it in a category
    /// that does not mix with others. Players of this process are left alone. Nothing happens
    /// while the source is stopped. The calls are sent without waiting for their answers.
    public func silenceOthers() {
        monitor.requestPause()
    }

    /// Stops the watcher thread and closes its connection; waits at most 2 s (a call in flight
    /// lasts at most ``callTimeout``).
    public func stop() {
        monitor.stop()
    }
}
