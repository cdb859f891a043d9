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
///    (`GetNameOwner`) and reads `PlaybackStatus` (`Properties.Get`); this first report is what
///    ``AudioSession/activate()`` waits for;
/// 4. follows signals: signals come from unique names (`:1.x`), mapped back to players through
///    `NameOwnerChanged` (an empty new owner: the player vanished); a status listed as
///    *invalidated* is read again — without waiting: the `Get` is sent and its answer handled
///    when it arrives, at most one query per player in flight, further signals folded into one
///    more query. A peer that floods signals and never answers costs one query per timeout and
///    never delays another player (a real player's `Playing` still raises the hint within
///    0.5 s while such a peer sends 100 signals a second). At most 256 players are tracked.
///
/// Every call times out after ``callTimeout`` (default 0.25 s). A change is reported once it has
/// held for ``settleTime`` (default 0.15 s): mpv-mpris, for one, reports `Playing` for ~60 ms
/// when an idle player starts, which must not duck the music. With no bus, or when the bus goes
/// away, the source reports itself unavailable (the hint input is off, the engine runs on) and
/// tries to connect again with a growing delay (0.5 s … 10 s).
///
/// ```swift
/// engine.session.enableSystemHints()          // the same as:
/// engine.session.addHintSource(MPRISHintSource())
/// ```
public final class MPRISHintSource: SecondaryAudioHintSource, @unchecked Sendable {
    public let name = "mpris"
    /// The bus to watch; nil: `DBUS_SESSION_BUS_ADDRESS` of this process.
    public let busAddress: String?
    /// The timeout of every D-Bus call, in seconds.
    public let callTimeout: Double
    /// How long a change must hold before it is reported, in seconds.
    public let settleTime: Double

    private let status = Locked<Status>(Status())
    private let run = Locked<Run?>(nil)
    private let logger = EarshotLogging.logger("earshot.mpris")

    struct Status: Sendable {
        var connected = false
        var players: [String: Bool] = [:]
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
                                       stop: flag, publish: { connected, players in
                                           self?.status.withLock { $0 = Status(connected: connected, players: players) }
                                       })
            watcher.run()
            done.signal()
        }
        thread.name = "earshot.mpris"
        thread.start()
    }

    /// Asks every other player that is playing to pause (MPRIS `Pause`), on the watcher's
    /// thread, as soon as it is connected: ``AudioSession/activate()`` calls it in a category
    /// that does not mix with others. Players of this process are left alone. Nothing happens
    /// while the source is stopped.
    public func silenceOthers() {
        run.withLock { $0 }?.stop.pauseRequested.store(true, ordering: .relaxed)
    }

    /// Stops the watcher thread and closes its connection; waits at most 2 s (a call in flight
    /// lasts at most ``callTimeout``).
    public func stop() {
        guard let r = run.withLock({ r -> Run? in defer { r = nil }; return r }) else { return }
        r.stop.raised.store(true, ordering: .relaxed)
        if r.done.wait(timeout: .now() + 2) == .timedOut {
            logger.warning("the MPRIS watcher did not stop within 2 s; leaving it to finish on its own")
        }
        status.withLock { $0 = Status() }
    }
}

/// The MPRIS watcher's loop and state; lives on its own thread only.
private final class MPRISWatcher {
    static let prefix = "org.mpris.MediaPlayer2."
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let objectPath = "/org/mpris/MediaPlayer2"

    struct Player {
        var owner: String
        var playing: Bool
        /// A player of this very process: never counts.
        var ignored: Bool
    }

    let address: String?
    let timeout: Int32
    let settleTime: Double
    let sink: HintSink
    let stopFlag: MPRISHintSource.StopFlag
    let publish: (Bool, [String: Bool]) -> Void
    let ownPID = UInt32(getpid())

    var connection: BusConnection?
    var players: [String: Player] = [:]
    /// The most players tracked at once; names beyond it are ignored (a peer registering
    /// thousands of names cannot grow the watcher without bound).
    static let maxPlayers = 256
    /// `PlaybackStatus` queries in flight, by player name: at most one per player. A signal that
    /// arrives while one is outstanding sets `again` (signals are coalesced: one more query
    /// when it is answered or times out); a peer that never answers costs one query per timeout.
    struct Query {
        var serial: UInt32
        var sentAt: Double
        var again: Bool
    }
    var queries: [String: Query] = [:]
    /// The value last reported (nil: report the next value at once).
    var reported: Bool?
    var changedSince: Double?

    init(address: String?, timeoutMilliseconds: Int32, settleTime: Double, sink: HintSink,
         stop: MPRISHintSource.StopFlag, publish: @escaping (Bool, [String: Bool]) -> Void) {
        self.address = address
        timeout = timeoutMilliseconds
        self.settleTime = settleTime
        self.sink = sink
        stopFlag = stop
        self.publish = publish
    }

    var stopped: Bool { stopFlag.raised.load(ordering: .relaxed) }

    func run() {
        var backoff = 0.5
        while !stopped {
            guard let c = connection else {
                do throws(DBusFailure) {
                    try connect()
                    backoff = 0.5
                } catch {
                    sink.reportUnavailable(error.message)
                    sleep(seconds: backoff)
                    backoff = min(backoff * 2, 10)
                }
                continue
            }
            let wait: Int32 = changedSince == nil ? 100 : 20
            let alive = c.readWrite(timeoutMilliseconds: wait)
            var lost = !alive
            while let message = c.pop() {
                if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" { lost = true }
                else if message.isSignal { handle(message) }
                else if message.isReply { answered(message) }
            }
            expireQueries()
            if lost || !c.isConnected {
                disconnected()
                continue
            }
            if stopFlag.pauseRequested.exchange(false, ordering: .relaxed) { pausePlayers() }
            reportIfSettled()
        }
        connection = nil
        publish(false, [:])
    }

    /// Sends `Pause` to every other player that is playing (the new status arrives as a signal).
    private func pausePlayers() {
        guard let c = connection else { return }
        for (name, p) in players where p.playing && !p.ignored {
            _ = try? c.call(destination: name, path: Self.objectPath, interface: Self.playerInterface,
                            member: "Pause", arguments: [], timeoutMilliseconds: timeout)
        }
    }

    private func sleep(seconds: Double) {
        var slept = 0.0
        while slept < seconds, !stopped {
            usleep(20_000)
            slept += 0.02
        }
    }

    private func connect() throws(DBusFailure) {
        guard let address, !address.isEmpty else {
            throw DBusFailure(name: "NoBus", message: "no session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
        }
        let c = try BusConnection(address: address, timeoutMilliseconds: timeout)
        // Match rules first: a player that changes while we scan is then seen by a signal.
        for rule in ["type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'",
                     "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(Self.objectPath)'"] {
            _ = try c.callBus("AddMatch", [rule], timeoutMilliseconds: timeout)
        }
        let names = try c.callBus("ListNames", timeoutMilliseconds: timeout).first?.strings ?? []
        connection = c
        players = [:]
        queries = [:]
        // The first scan reads each status in turn (activation waits for an accurate first
        // report); every later read is a query the watcher does not wait for.
        for name in names where name.hasPrefix(Self.prefix) { track(name, owner: nil, waitForStatus: true) }
        reported = nil
        changedSince = nil
        report()   // the first scan is reported at once: activation waits for it
    }

    private func disconnected() {
        connection = nil
        players = [:]
        queries = [:]
        reported = nil
        changedSince = nil
        publish(false, [:])
        sink.reportUnavailable("the session bus went away")
    }

    /// Maps a player to its owner (owner nil: ask the bus, which always answers) and reads its
    /// status: waiting for it during the first scan, as a query otherwise.
    private func track(_ name: String, owner: String?, waitForStatus: Bool) {
        guard let c = connection else { return }
        guard players[name] != nil || players.count < Self.maxPlayers else { return }
        guard let owner = owner ?? (try? c.callBus("GetNameOwner", [name], timeoutMilliseconds: timeout))?.first?.string else {
            players[name] = nil   // gone already
            return
        }
        var pid: UInt32?
        if case .uint32(let p)? = (try? c.callBus("GetConnectionUnixProcessID", [owner], timeoutMilliseconds: timeout))?.first {
            pid = p
        }
        if pid == ownPID {
            players[name] = Player(owner: owner, playing: false, ignored: true)
            return
        }
        if waitForStatus {
            players[name] = Player(owner: owner, playing: readStatus(name) == "Playing", ignored: false)
        } else {
            players[name] = Player(owner: owner, playing: players[name]?.playing ?? false, ignored: false)
            requestStatus(name)
        }
    }

    /// Asks a player for its `PlaybackStatus` without waiting: at most one query per player; a
    /// request while one is in flight is folded into one more query after it.
    private func requestStatus(_ name: String) {
        if queries[name] != nil {
            queries[name]?.again = true
            return
        }
        guard let serial = connection?.send(destination: name, path: Self.objectPath, interface: "org.freedesktop.DBus.Properties",
                                            member: "Get", arguments: [Self.playerInterface, "PlaybackStatus"]) else { return }
        queries[name] = Query(serial: serial, sentAt: Clocks.monotonic(), again: false)
    }

    /// A query answered: the status is taken (an error leaves it as it was), and a folded
    /// request is sent now.
    private func answered(_ m: DBusIncoming) {
        guard let (name, query) = queries.first(where: { $0.value.serial == m.replySerial }) else { return }
        queries[name] = nil
        if !m.isError, players[name] != nil, let status = m.arguments.first?.string {
            players[name]?.playing = status == "Playing"
            changed()
        }
        if query.again, players[name] != nil { requestStatus(name) }
    }

    /// Queries older than the call timeout are given up (the player keeps its last status);
    /// a folded request is sent again.
    private func expireQueries() {
        guard !queries.isEmpty else { return }
        let now = Clocks.monotonic(), limit = Double(timeout) / 1000
        for (name, query) in queries where now - query.sentAt > limit {
            queries[name] = nil
            if query.again, players[name] != nil { requestStatus(name) }
        }
    }

    /// A player's `PlaybackStatus`, nil when it does not answer in time.
    private func readStatus(_ destination: String) -> String? {
        guard let c = connection else { return nil }
        let reply = try? c.call(destination: destination, path: Self.objectPath, interface: "org.freedesktop.DBus.Properties",
                                member: "Get", arguments: [Self.playerInterface, "PlaybackStatus"], timeoutMilliseconds: timeout)
        return reply?.first?.string
    }

    private func handle(_ m: DBusIncoming) {
        switch (m.interface, m.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            guard m.arguments.count == 3, let name = m.arguments[0].string, name.hasPrefix(Self.prefix),
                  let newOwner = m.arguments[2].string else { return }
            if newOwner.isEmpty {
                players[name] = nil
                queries[name] = nil
            } else {
                track(name, owner: newOwner, waitForStatus: false)
            }
            changed()
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard m.path == Self.objectPath, m.arguments.count >= 2, m.arguments[0].string == Self.playerInterface else { return }
            let changedProperties = m.arguments[1].dictionary ?? [:]
            let invalidated = m.arguments.count > 2 ? (m.arguments[2].strings ?? []) : []
            for (name, p) in players where p.owner == m.sender && !p.ignored {
                if let status = changedProperties["PlaybackStatus"]?.string {
                    players[name]?.playing = status == "Playing"
                } else if invalidated.contains("PlaybackStatus") {
                    requestStatus(name)   // never waits: a peer that does not answer cannot stall the watcher
                }
            }
            changed()
        default:
            break
        }
    }

    private var value: Bool { players.values.contains { $0.playing && !$0.ignored } }

    private func changed() {
        publishPlayers()
        if value == reported { changedSince = nil } else if changedSince == nil { changedSince = Clocks.monotonic() }
    }

    private func reportIfSettled() {
        guard let since = changedSince, Clocks.monotonic() - since >= settleTime else { return }
        if value != reported { report() }
        changedSince = nil
    }

    private func report() {
        let v = value
        reported = v
        publishPlayers()
        sink.report(otherAudioPlaying: v)
    }

    private func publishPlayers() {
        var visible: [String: Bool] = [:]
        for (name, p) in players where !p.ignored { visible[name] = p.playing }
        publish(connection != nil, visible)
    }
}
