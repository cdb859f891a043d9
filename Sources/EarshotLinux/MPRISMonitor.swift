import Dispatch
import Foundation
import Logging
import Synchronization

/// Whether a media player of another process is playing, on one D-Bus bus: the MPRIS watcher
/// (``MPRISWatcher``, which says how it watches) run on a thread of its own, `earshot.mpris`,
/// never the caller's. Started and stopped from any thread.
///
/// It knows nothing of Earshot: it reports through two closures, on its own thread — whether
/// another process's player plays (settled: a change is reported once it has held for
/// `settleTime`), or why it cannot watch (no bus, the bus went away). Earshot's
/// `MPRISHintSource` adapts it to the audio session's hint sources.
package final class MPRISMonitor: Sendable {

    /// How long a peer whose query timed out waits before it is asked again, in seconds.
    package static let unresponsiveRetry = 1.0
    /// The most peers (bus connections owning `org.mpris.MediaPlayer2.*` names) tracked at once.
    package static let maxPeers = 32
    /// The most player names tracked per peer.
    package static let maxNamesPerPeer = 4

    /// The bus to watch; nil: `DBUS_SESSION_BUS_ADDRESS` of this process, read at each start.
    package let busAddress: String?
    /// The timeout of every D-Bus call, in seconds (0.01…5).
    package let callTimeout: Double
    /// How long a change must hold before it is reported, in seconds (0…2).
    package let settleTime: Double

    private let logger: Logger
    private let status = Guarded<Status>(Status())
    private let run = Guarded<Run?>(nil)

    struct Status: Sendable {
        var connected = false
        var players: [String: Bool] = [:]
        var counters = Counters()
    }

    /// What the watcher holds and has done (for tests and diagnostics).
    package struct Counters: Sendable, Equatable {
        /// Peers tracked now, and queries outstanding now (at most one per peer, plus the
        /// first scan's owner lookups).
        package var peers = 0
        package var outstanding = 0
        /// Totals since the watcher connected.
        package var signals = 0
        package var coalesced = 0
        package var queriesSent = 0
        package var timeouts = 0
        package var ignoredPeers = 0
    }

    private struct Run: Sendable {
        let stop: StopFlag
        let done: DispatchSemaphore
    }

    /// What the caller's threads tell the watcher's loop (atomics: read on every turn).
    final class StopFlag: Sendable {
        let raised = Atomic<Bool>(false)
        /// Set by ``requestPause()``; the watcher pauses the playing players.
        let pauseRequested = Atomic<Bool>(false)
    }

    /// - Parameters:
    ///   - busAddress: the bus to watch (a test's private bus); nil: the session bus of
    ///     `DBUS_SESSION_BUS_ADDRESS`.
    ///   - callTimeout: seconds each D-Bus call may take (0.01…5; clamped, 0.25 if not finite).
    ///   - settleTime: seconds a change must hold before it is reported (0…2; clamped, 0.15 if
    ///     not finite).
    ///   - logger: where the watcher's one warning (too many players to track) goes.
    package init(busAddress: String?, callTimeout: Double, settleTime: Double, logger: Logger) {
        self.busAddress = busAddress
        self.callTimeout = callTimeout.isFinite ? min(max(callTimeout, 0.01), 5) : 0.25
        self.settleTime = settleTime.isFinite ? min(max(settleTime, 0), 2) : 0.15
        self.logger = logger
    }

    deinit { stop() }

    /// Whether the watcher is connected to the bus now.
    package var isConnected: Bool { status.withLock { $0.connected } }

    /// The players seen now (well-known names such as `org.mpris.MediaPlayer2.mpv`, this
    /// process's excluded) and whether each is playing.
    package var players: [String: Bool] { status.withLock { $0.players } }

    /// The watcher's counters now.
    package var counters: Counters { status.withLock { $0.counters } }

    /// Starts the watcher thread (nothing when it runs already). `report` and `unavailable` are
    /// called on that thread until ``stop()``; the first call of either ends the first scan.
    package func start(report: @escaping @Sendable (Bool) -> Void, unavailable: @escaping @Sendable (String) -> Void) {
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
        let logger = logger
        let thread = Thread { [weak self] in
            let watcher = MPRISWatcher(
                address: address, timeoutMilliseconds: timeout, settleTime: settle,
                report: report, unavailable: unavailable, stop: flag, logger: logger,
                publish: { connected, players, counters in
                    self?.status.withLock { $0 = Status(connected: connected, players: players, counters: counters) }
                })
            watcher.run()
            done.signal()
        }
        thread.name = "earshot.mpris"
        thread.start()
    }

    /// Asks every other player that is playing to pause (MPRIS `Pause`), on the watcher's
    /// thread, as soon as it is connected. Players of this process are left alone; nothing
    /// happens while the monitor is stopped. The calls are sent without waiting for answers.
    package func requestPause() {
        run.withLock { $0 }?.stop.pauseRequested.store(true, ordering: .relaxed)
    }

    /// Stops the watcher thread and closes its connection; waits at most 2 s (a call in flight
    /// lasts at most ``callTimeout``, a read at most 20 ms). Idempotent.
    package func stop() {
        guard let r = run.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        r.stop.raised.store(true, ordering: .relaxed)
        if r.done.wait(timeout: .now() + 2) == .timedOut {
            logger.warning("the MPRIS watcher did not stop within 2 s; leaving it to finish on its own")
        }
        status.withLock { $0 = Status() }
    }
}
