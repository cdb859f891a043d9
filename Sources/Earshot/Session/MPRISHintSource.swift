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

/// The MPRIS watcher's loop and state; lives on its own thread only.
private final class MPRISWatcher {
    static let prefix = "org.mpris.MediaPlayer2."
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let objectPath = "/org/mpris/MediaPlayer2"

    /// One bus connection (unique name) that owns player names.
    struct Peer {
        var names: Set<String> = []
        /// nil: its process is not known yet; true: a player of this very process (never counts).
        var ignored: Bool?
        var playing = false
        /// Its `PlaybackStatus` has to be read (new, or invalidated since the last read).
        var wantsStatus = true
        /// The serial of its one outstanding query.
        var query: UInt32?
        /// No query before this time (it left the last one unanswered).
        var restUntil = 0.0
    }

    enum Question {
        case owner(name: String)
        case process(peer: String)
        case status(peer: String)
    }

    struct Outstanding {
        var question: Question
        var deadline: Double
    }

    let address: String?
    let timeout: Int32
    let settleTime: Double
    let sink: HintSink
    let stopFlag: MPRISHintSource.StopFlag
    let publish: (Bool, [String: Bool], MPRISHintSource.Counters) -> Void
    let ownPID = UInt32(getpid())
    let logger = EarshotLogging.logger("earshot.mpris")

    var connection: BusConnection?
    /// Peers by unique name, and the owner of each tracked player name.
    var peers: [String: Peer] = [:]
    var owners: [String: String] = [:]
    /// Queries sent and not yet answered, by serial.
    var outstanding: [UInt32: Outstanding] = [:]
    var counters = MPRISHintSource.Counters()
    /// Until the first scan is complete (or `scanDeadline` passes) nothing is reported.
    var scanning = false
    var scanDeadline = 0.0
    var warnedFull = false
    /// The value last reported (nil: report the next value at once).
    var reported: Bool?
    var changedSince: Double?

    init(address: String?, timeoutMilliseconds: Int32, settleTime: Double, sink: HintSink,
         stop: MPRISHintSource.StopFlag, publish: @escaping (Bool, [String: Bool], MPRISHintSource.Counters) -> Void) {
        self.address = address
        timeout = timeoutMilliseconds
        self.settleTime = settleTime
        self.sink = sink
        stopFlag = stop
        self.publish = publish
    }

    var stopped: Bool { stopFlag.raised.load(ordering: .relaxed) }
    var timeoutSeconds: Double { Double(timeout) / 1000 }

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
            let alive = c.readWrite(timeoutMilliseconds: waitMilliseconds())
            var lost = !alive
            var touched = false
            while let message = c.pop() {
                if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" { lost = true }
                else if message.isReply { touched = answer(message) || touched }
                else if message.isSignal { touched = handle(message) || touched }
            }
            if lost || !c.isConnected {
                disconnected()
                continue
            }
            touched = expire() || touched
            touched = ask() || touched
            if !finishScan(), touched { changed() }
            if stopFlag.pauseRequested.exchange(false, ordering: .relaxed) { pausePlayers() }
            reportIfSettled()
        }
        connection = nil
        publish(false, [:], MPRISHintSource.Counters())
    }

    /// Reports the first scan at once when it is complete (nothing outstanding) or overdue:
    /// activation waits for this report. True when it reported.
    private func finishScan() -> Bool {
        guard scanning, outstanding.isEmpty || Clocks.monotonic() >= scanDeadline else { return false }
        scanning = false
        reported = nil
        changedSince = nil
        report()
        return true
    }

    /// How long the next read may wait: until the next query deadline, rest end or settle end
    /// (at most 100 ms, at least 1 ms).
    private func waitMilliseconds() -> Int32 {
        let now = Clocks.monotonic()
        var next = now + 0.1
        if let since = changedSince { next = min(next, since + settleTime) }
        for q in outstanding.values { next = min(next, q.deadline) }
        for p in peers.values where p.query == nil && needsQuery(p) { next = min(next, p.restUntil) }
        if scanning { next = min(next, scanDeadline) }
        return Int32(max(1, min(100, ((next - now) * 1000).rounded(.up))))
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
        peers = [:]
        owners = [:]
        outstanding = [:]
        counters = MPRISHintSource.Counters()
        warnedFull = false
        reported = nil
        changedSince = nil
        scanning = true
        // Each step (owner, process, status) may take up to a timeout.
        scanDeadline = Clocks.monotonic() + 3 * timeoutSeconds
        let lookups = MPRISHintSource.maxPeers * MPRISHintSource.maxNamesPerPeer
        for name in names.lazy.filter({ $0.hasPrefix(Self.prefix) }).prefix(lookups) {
            send(.owner(name: name), to: BusConnection.busName, path: BusConnection.busPath, interface: BusConnection.busName,
                 member: "GetNameOwner", values: [.string(name)])
        }
        publishPlayers()
        _ = finishScan()   // no players: reported without waiting for a read
    }

    private func disconnected() {
        connection = nil
        peers = [:]
        owners = [:]
        outstanding = [:]
        scanning = false
        reported = nil
        changedSince = nil
        publish(false, [:], MPRISHintSource.Counters())
        sink.reportUnavailable("the session bus went away")
    }

    // MARK: Queries (never waited for)

    @discardableResult
    private func send(_ question: Question, to destination: String, path: String, interface: String, member: String,
                      values: [DBusValue]) -> UInt32? {
        guard let c = connection, let serial = try? c.send(destination: destination, path: path, interface: interface,
                                                           member: member, values: values) else { return nil }
        outstanding[serial] = Outstanding(question: question, deadline: Clocks.monotonic() + timeoutSeconds)
        counters.queriesSent += 1
        return serial
    }

    private func needsQuery(_ p: Peer) -> Bool { p.ignored == nil || (p.ignored == false && p.wantsStatus) }

    /// Sends each idle peer that needs one its next query (its process, then its status).
    private func ask() -> Bool {
        let now = Clocks.monotonic()
        var touched = false
        for (owner, p) in peers where p.query == nil && needsQuery(p) && now >= p.restUntil {
            let serial: UInt32?
            if p.ignored == nil {
                serial = send(.process(peer: owner), to: BusConnection.busName, path: BusConnection.busPath,
                              interface: BusConnection.busName, member: "GetConnectionUnixProcessID", values: [.string(owner)])
            } else {
                peers[owner]?.wantsStatus = false
                serial = send(.status(peer: owner), to: owner, path: Self.objectPath, interface: "org.freedesktop.DBus.Properties",
                              member: "Get", values: [.string(Self.playerInterface), .string("PlaybackStatus")])
            }
            if let serial { peers[owner]?.query = serial } else { peers[owner]?.restUntil = now + MPRISHintSource.unresponsiveRetry }
            touched = true
        }
        return touched
    }

    /// Applies the answer to one of our queries; late answers (timed out, peer gone) are dropped.
    private func answer(_ m: DBusIncoming) -> Bool {
        guard let q = outstanding.removeValue(forKey: m.replySerial) else { return false }
        let value: DBusValue? = m.isError ? nil : m.arguments.first
        switch q.question {
        case .owner(let name):
            if let owner = value?.string, !owner.isEmpty, owners[name] == nil { add(name, owner: owner) }
        case .process(let owner):
            guard peers[owner]?.query == m.replySerial else { return true }
            peers[owner]?.query = nil
            if case .uint32(let pid)? = value { peers[owner]?.ignored = pid == ownPID } else { peers[owner]?.ignored = false }
        case .status(let owner):
            guard peers[owner]?.query == m.replySerial else { return true }
            peers[owner]?.query = nil
            peers[owner]?.playing = value?.string == "Playing"
        }
        return true
    }

    /// Queries past their deadline: the peer counts as not playing and rests.
    private func expire() -> Bool {
        let now = Clocks.monotonic()
        var touched = false
        for (serial, q) in outstanding where q.deadline <= now {
            outstanding[serial] = nil
            counters.timeouts += 1
            touched = true
            switch q.question {
            case .owner:
                break
            case .process(let owner):
                guard peers[owner]?.query == serial else { continue }
                peers[owner]?.query = nil
                peers[owner]?.ignored = false
            case .status(let owner):
                guard peers[owner]?.query == serial else { continue }
                peers[owner]?.query = nil
                peers[owner]?.playing = false
                peers[owner]?.restUntil = now + MPRISHintSource.unresponsiveRetry
            }
        }
        return touched
    }

    // MARK: Names and signals

    /// Tracks `name` as owned by `owner`, within the limits.
    private func add(_ name: String, owner: String) {
        if peers[owner] == nil {
            guard peers.count < MPRISHintSource.maxPeers else { return full("\(MPRISHintSource.maxPeers) peers", name) }
            peers[owner] = Peer()
        }
        guard peers[owner]?.names.count ?? 0 < MPRISHintSource.maxNamesPerPeer else {
            return full("\(MPRISHintSource.maxNamesPerPeer) names of \(owner)", name)
        }
        peers[owner]?.names.insert(name)
        owners[name] = owner
    }

    private func full(_ what: String, _ name: String) {
        counters.ignoredPeers += 1
        if !warnedFull {
            warnedFull = true
            logger.warning("MPRIS: already tracking \(what); \(name) is ignored (logged once per connection)")
        }
    }

    /// Stops tracking `name`; a peer left with no name is dropped with its outstanding query.
    private func remove(_ name: String) {
        guard let owner = owners.removeValue(forKey: name) else { return }
        peers[owner]?.names.remove(name)
        guard let p = peers[owner], p.names.isEmpty else { return }
        if let serial = p.query { outstanding[serial] = nil }
        peers[owner] = nil
    }

    private func handle(_ m: DBusIncoming) -> Bool {
        switch (m.interface, m.member) {
        case ("org.freedesktop.DBus", "NameOwnerChanged"):
            guard m.sender == BusConnection.busName,
                  m.arguments.count == 3, let name = m.arguments[0].string, name.hasPrefix(Self.prefix),
                  let newOwner = m.arguments[2].string else { return false }
            remove(name)
            if !newOwner.isEmpty { add(name, owner: newOwner) }
            return true
        case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
            guard m.path == Self.objectPath, m.arguments.count >= 2, m.arguments[0].string == Self.playerInterface,
                  peers[m.sender] != nil else { return false }
            counters.signals += 1
            if let status = m.arguments[1].dictionary?["PlaybackStatus"]?.string {
                peers[m.sender]?.playing = status == "Playing"
            } else if m.arguments.count > 2, m.arguments[2].strings?.contains("PlaybackStatus") == true {
                // Coalesced: one flag, read once the outstanding query (or the rest) is over.
                if let p = peers[m.sender], p.query != nil || p.wantsStatus || p.restUntil > Clocks.monotonic() { counters.coalesced += 1 }
                peers[m.sender]?.wantsStatus = true
            }
            return true
        default:
            return false
        }
    }

    // MARK: Reporting

    /// Sends `Pause` to every player name of every other peer that is playing, without waiting
    /// (the new status arrives as a signal).
    private func pausePlayers() {
        guard let c = connection else { return }
        for p in peers.values where p.ignored == false && p.playing {
            for name in p.names {
                _ = try? c.send(destination: name, path: Self.objectPath, interface: Self.playerInterface, member: "Pause", values: [])
            }
        }
    }

    private var value: Bool { peers.values.contains { $0.ignored == false && $0.playing } }

    private func changed() {
        publishPlayers()
        guard !scanning else { return }
        if value == reported { changedSince = nil } else if changedSince == nil { changedSince = Clocks.monotonic() }
    }

    private func reportIfSettled() {
        guard !scanning, let since = changedSince, Clocks.monotonic() - since >= settleTime else { return }
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
        for p in peers.values where p.ignored == false {
            for name in p.names { visible[name] = p.playing }
        }
        counters.peers = peers.count
        counters.outstanding = outstanding.count
        publish(connection != nil, visible, counters)
    }
}
