import Dispatch
import Foundation
import Logging
import Synchronization

/// The secondary-audio hint from media players on the session D-Bus (MPRIS).
///
/// Any `org.mpris.MediaPlayer2.*` player of another process whose `PlaybackStatus` is
/// `Playing` turns the hint on; when none plays (paused, stopped, or gone from the bus) it turns
/// off. Players of this process are ignored (the bus daemon's `GetConnectionUnixProcessID`).
///
/// How it watches, on its own thread (`earshot.mpris`), never the game's or the mixer's, over a
/// private libdbus connection (through the `CDBus` module):
/// 1. connects to `busAddress` (or `DBUS_SESSION_BUS_ADDRESS`) with libdbus's exit-on-disconnect
///    turned off, so a vanishing bus never ends the game;
/// 2. adds its match rules *first* — `NameOwnerChanged` for the `org.mpris.MediaPlayer2`
///    namespace and `PropertiesChanged` on `/org/mpris/MediaPlayer2` — so that no change between
///    the scan and the first signal is missed;
/// 3. lists the names on the bus and, for each player, maps it to its unique name
///    (`GetNameOwner`), asks the bus for its process (`GetConnectionUnixProcessID`) and reads
///    `PlaybackStatus` (`Properties.Get`); this first report is what ``AudioSession/activate()``
///    waits for;
/// 4. follows signals: signals come from unique names (`:1.x`), mapped back to players through
///    `NameOwnerChanged` (an empty new owner: the player vanished, its state is dropped); a
///    status listed as *invalidated* is read again.
///
/// No query ever blocks the watcher: every question to a player or to the bus (after the
/// connection's own `Hello`, `AddMatch` and `ListNames`) is sent without waiting, and its answer
/// is picked out of the incoming messages by its serial. Each peer (unique name) has at most one
/// query outstanding; status invalidations that arrive meanwhile are coalesced into one flag and
/// read once more when the answer comes. A query unanswered after ``callTimeout`` (default
/// 0.25 s) counts the player as not playing, and that peer is asked again no sooner than
/// ``unresponsiveRetry`` (1 s) later — so a peer that floods invalidations and never answers
/// costs one small query a second and no memory, and never delays other players. At most
/// ``maxPeers`` (32) connections, each with at most ``maxNamesPerPeer`` (4) player names, are
/// tracked; players beyond that are ignored (logged) until tracked ones vanish. A change is reported once it has
/// held for ``settleTime`` (default 0.15 s): mpv-mpris, for one, reports `Playing` for ~60 ms
/// when an idle player starts, which must not duck the music. With no bus, or when the bus goes
/// away, the source reports itself unavailable (the hint input is off, the engine runs on) and
/// tries to connect again with a growing delay (0.5 s … 10 s).
///
/// ```swift
/// engine.session.enableSystemHints()          // the same as:
/// engine.session.addHintSource(MPRISHintSource())
/// ```
public final class MPRISHintSource: SecondaryAudioHintSource, Sendable {
    public let name = "mpris"
    /// The bus to watch; nil: `DBUS_SESSION_BUS_ADDRESS` of this process.
    public let busAddress: String?
    /// The timeout of every D-Bus call, in seconds.
    public let callTimeout: Double
    /// How long a change must hold before it is reported, in seconds.
    public let settleTime: Double

    /// How long a peer whose query timed out waits before it is asked again, in seconds.
    public static let unresponsiveRetry = 1.0
    /// The most peers (bus connections owning `org.mpris.MediaPlayer2.*` names) tracked at once.
    public static let maxPeers = 32
    /// The most player names tracked per peer.
    public static let maxNamesPerPeer = 4

    private let status = Locked<Status>(Status())
    private let run = Locked<Run?>(nil)
    private let logger = EarshotLogging.logger("earshot.mpris")

    struct Status: Sendable {
        var connected = false
        var players: [String: Bool] = [:]
        var counters = Counters()
    }

    /// What the watcher holds and has done (for tests and diagnostics).
    struct Counters: Sendable, Equatable {
        /// Peers tracked now, and queries outstanding now (at most one per peer, plus the
        /// first scan's owner lookups).
        var peers = 0
        var outstanding = 0
        /// Totals since the watcher connected.
        var signals = 0
        var coalesced = 0
        var queriesSent = 0
        var timeouts = 0
        var ignoredPeers = 0
    }

    private struct Run {
        let stop: StopFlag
        let done: DispatchSemaphore
    }

    final class StopFlag: Sendable {
        let raised = Atomic<Bool>(false)
        /// Set by ``MPRISHintSource/silenceOthers()``; the watcher pauses the playing players.
        let pauseRequested = Atomic<Bool>(false)
    }

    /// - Parameters:
    ///   - busAddress: the bus to watch (a test's private bus); nil: the session bus of
    ///     `DBUS_SESSION_BUS_ADDRESS`.
    ///   - callTimeout: seconds each D-Bus call may take (0.01…5; clamped).
    ///   - settleTime: seconds a change must hold before it is reported (0…2; clamped).
    public init(busAddress: String? = nil, callTimeout: Double = 0.25, settleTime: Double = 0.15) {
        self.busAddress = busAddress
        self.callTimeout = callTimeout.isFinite ? min(max(callTimeout, 0.01), 5) : 0.25
        self.settleTime = settleTime.isFinite ? min(max(settleTime, 0), 2) : 0.15
    }

    deinit { stop() }

    /// Whether the watcher is connected to the bus now.
    public var isConnected: Bool { status.withLock { $0.connected } }

    /// The players seen now (well-known names such as `org.mpris.MediaPlayer2.mpv`, this
    /// process's excluded) and whether each is playing.
    public var players: [String: Bool] { status.withLock { $0.players } }

    /// The watcher's counters now.
    var counters: Counters { status.withLock { $0.counters } }

    public func start(reportingTo sink: HintSink) {
        let flag = StopFlag()
        let done = DispatchSemaphore(value: 0)
        let startNow = run.withLock { r -> Bool in
            guard r == nil else { return false }
            r = Run(stop: flag, done: done)
            return true
        }
        guard startNow else { return }
        let address = busAddress ?? ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        let timeout = Int32((callTimeout * 1000).rounded())
        let settle = settleTime
        let thread = Thread { [weak self] in
            let watcher = MPRISWatcher(address: address, timeoutMilliseconds: timeout, settleTime: settle, sink: sink,
                                       stop: flag, publish: { connected, players, counters in
                                           self?.status.withLock { $0 = Status(connected: connected, players: players, counters: counters) }
                                       })
            watcher.run()
            done.signal()
        }
        thread.name = "earshot.mpris"
        thread.start()
    }

    /// Stops the watcher thread and closes its connection; waits at most 2 s (a call in flight
    /// lasts at most ``callTimeout``).
    /// Asks every other player that is playing to pause (MPRIS `Pause`), on the watcher's
    /// thread, as soon as it is connected: ``AudioSession/activate()`` calls it in a category
    /// that does not mix with others. Players of this process are left alone. Nothing happens
    /// while the source is stopped. The calls are sent without waiting for their answers.
    public func silenceOthers() {
        run.withLock { $0 }?.stop.pauseRequested.store(true, ordering: .relaxed)
    }

    public func stop() {
        guard let r = run.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        r.stop.raised.store(true, ordering: .relaxed)
        if r.done.wait(timeout: .now() + 2) == .timedOut {
            logger.warning("the MPRIS watcher did not stop within 2 s; leaving it to finish on its own")
        }
        status.withLock { $0 = Status() }
    }
}
