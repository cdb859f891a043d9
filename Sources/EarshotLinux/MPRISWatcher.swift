import Dispatch
import Foundation
import Logging
import Synchronization

/// The MPRIS watcher's loop and state (``MPRISMonitor`` runs it); lives on its own thread only,
/// the `earshot.mpris` thread, and shares nothing but what it reports and publishes.
///
/// Any `org.mpris.MediaPlayer2.*` player of another process whose `PlaybackStatus` is `Playing`
/// counts as playing; players of this process are ignored (the bus daemon's
/// `GetConnectionUnixProcessID`). How it watches, over a private libdbus connection
/// (``BusConnection``):
/// 1. connects to the address with libdbus's exit-on-disconnect turned off, so a vanishing bus
///    never ends the process;
/// 2. adds its match rules *first* — `NameOwnerChanged` for the `org.mpris.MediaPlayer2`
///    namespace and `PropertiesChanged` on `/org/mpris/MediaPlayer2` — so that no change between
///    the scan and the first signal is missed;
/// 3. lists the names on the bus and, for each player, maps it to its unique name
///    (`GetNameOwner`), asks the bus for its process (`GetConnectionUnixProcessID`) and reads
///    `PlaybackStatus` (`Properties.Get`); this first report ends the first scan (what the audio
///    session's activation waits for);
/// 4. follows signals: signals come from unique names (`:1.x`), mapped back to players through
///    `NameOwnerChanged` (an empty new owner: the player vanished, its state is dropped); a
///    status listed as *invalidated* is read again.
///
/// No query ever blocks the loop: every question to a player or to the bus (after the
/// connection's own `Hello`, `AddMatch` and `ListNames`) is sent without waiting, and its answer
/// is picked out of the incoming messages by its serial. Each peer has at most one query
/// outstanding; invalidations that arrive meanwhile are coalesced into one flag; a query
/// unanswered after the call timeout counts the player as not playing and the peer rests
/// ``MPRISMonitor/unresponsiveRetry``. The limits are ``MPRISMonitor/maxPeers`` and
/// ``MPRISMonitor/maxNamesPerPeer``. Without a bus it reports itself unavailable and connects
/// again with a growing delay (0.5 s … 10 s).
final class MPRISWatcher {
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
    let report: @Sendable (Bool) -> Void
    let unavailable: @Sendable (String) -> Void
    let stopFlag: MPRISMonitor.StopFlag
    let publish: (Bool, [String: Bool], MPRISMonitor.Counters) -> Void
    let ownPID = UInt32(getpid())
    let logger: Logger

    var connection: BusConnection?
    /// Peers by unique name, and the owner of each tracked player name.
    var peers: [String: Peer] = [:]
    var owners: [String: String] = [:]
    /// Queries sent and not yet answered, by serial.
    var outstanding: [UInt32: Outstanding] = [:]
    var counters = MPRISMonitor.Counters()
    /// Until the first scan is complete (or `scanDeadline` passes) nothing is reported.
    var scanning = false
    var scanDeadline = 0.0
    var warnedFull = false
    /// The value last reported (nil: report the next value at once).
    var reported: Bool?
    var changedSince: Double?

    init(address: String?, timeoutMilliseconds: Int32, settleTime: Double, report: @escaping @Sendable (Bool) -> Void,
         unavailable: @escaping @Sendable (String) -> Void, stop: MPRISMonitor.StopFlag, logger: Logger,
         publish: @escaping (Bool, [String: Bool], MPRISMonitor.Counters) -> Void) {
        self.address = address
        timeout = timeoutMilliseconds
        self.settleTime = settleTime
        self.report = report
        self.unavailable = unavailable
        stopFlag = stop
        self.logger = logger
        self.publish = publish
    }

    /// Seconds on the monotonic clock (`CLOCK_MONOTONIC`, as Earshot's `Clocks.monotonic()`,
    /// which this target, below Earshot, cannot call).
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
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
                    unavailable(error.message)
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
        publish(false, [:], MPRISMonitor.Counters())
    }

    /// Reports the first scan at once when it is complete (nothing outstanding) or overdue:
    /// activation waits for this report. True when it reported.
    private func finishScan() -> Bool {
        guard scanning, outstanding.isEmpty || Self.now() >= scanDeadline else { return false }
        scanning = false
        reported = nil
        changedSince = nil
        reportValue()
        return true
    }

    /// How long the next read may wait: until the next query deadline, rest end or settle end
    /// (at most 20 ms, at least 1 ms). The cap is how long ``MPRISMonitor/stop()`` — and so
    /// the engine's shutdown — can wait for the loop to notice it.
    private func waitMilliseconds() -> Int32 {
        let now = Self.now()
        var next = now + 0.02
        if let since = changedSince { next = min(next, since + settleTime) }
        for q in outstanding.values { next = min(next, q.deadline) }
        for p in peers.values where p.query == nil && needsQuery(p) { next = min(next, p.restUntil) }
        if scanning { next = min(next, scanDeadline) }
        return Int32(max(1, min(20, ((next - now) * 1000).rounded(.up))))
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
        for rule in [
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'",
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(Self.objectPath)'",
        ] {
            _ = try c.callBus("AddMatch", [rule], timeoutMilliseconds: timeout)
        }
        let names = try c.callBus("ListNames", timeoutMilliseconds: timeout).first?.strings ?? []
        connection = c
        peers = [:]
        owners = [:]
        outstanding = [:]
        counters = MPRISMonitor.Counters()
        warnedFull = false
        reported = nil
        changedSince = nil
        scanning = true
        // Each step (owner, process, status) may take up to a timeout.
        scanDeadline = Self.now() + 3 * timeoutSeconds
        let lookups = MPRISMonitor.maxPeers * MPRISMonitor.maxNamesPerPeer
        for name in names.lazy.filter({ $0.hasPrefix(Self.prefix) }).prefix(lookups) {
            send(
                .owner(name: name), to: BusConnection.busName, path: BusConnection.busPath,
                interface: BusConnection.busName,
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
        publish(false, [:], MPRISMonitor.Counters())
        unavailable("the session bus went away")
    }

    // MARK: Queries (never waited for)

    @discardableResult
    private func send(_ question: Question, to destination: String, path: String, interface: String, member: String,
                      values: [DBusValue]) -> UInt32? {
        guard let c = connection, let serial = try? c.send(destination: destination, path: path, interface: interface,
                                                           member: member, values: values) else { return nil }
        outstanding[serial] = Outstanding(question: question, deadline: Self.now() + timeoutSeconds)
        counters.queriesSent += 1
        return serial
    }

    private func needsQuery(_ p: Peer) -> Bool { p.ignored == nil || (p.ignored == false && p.wantsStatus) }

    /// Sends each idle peer that needs one its next query (its process, then its status).
    private func ask() -> Bool {
        let now = Self.now()
        var touched = false
        for (owner, p) in peers where p.query == nil && needsQuery(p) && now >= p.restUntil {
            let serial: UInt32?
            if p.ignored == nil {
                serial = send(
                    .process(peer: owner), to: BusConnection.busName, path: BusConnection.busPath,
                    interface: BusConnection.busName, member: "GetConnectionUnixProcessID", values: [.string(owner)])
            } else {
                peers[owner]?.wantsStatus = false
                serial = send(
                    .status(peer: owner), to: owner, path: Self.objectPath,
                    interface: "org.freedesktop.DBus.Properties",
                    member: "Get", values: [.string(Self.playerInterface), .string("PlaybackStatus")])
            }
            if let serial {
                peers[owner]?.query = serial
            } else {
                peers[owner]?.restUntil = now + MPRISMonitor.unresponsiveRetry
            }
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
            if case .uint32(let pid)? = value {
                peers[owner]?.ignored = pid == ownPID
            } else {
                peers[owner]?.ignored = false
            }
        case .status(let owner):
            guard peers[owner]?.query == m.replySerial else { return true }
            peers[owner]?.query = nil
            peers[owner]?.playing = value?.string == "Playing"
        }
        return true
    }

    /// Queries past their deadline: the peer counts as not playing and rests.
    private func expire() -> Bool {
        let now = Self.now()
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
                peers[owner]?.restUntil = now + MPRISMonitor.unresponsiveRetry
            }
        }
        return touched
    }

    // MARK: Names and signals

    /// Tracks `name` as owned by `owner`, within the limits.
    private func add(_ name: String, owner: String) {
        if peers[owner] == nil {
            guard peers.count < MPRISMonitor.maxPeers else { return full("\(MPRISMonitor.maxPeers) peers", name) }
            peers[owner] = Peer()
        }
        guard peers[owner]?.names.count ?? 0 < MPRISMonitor.maxNamesPerPeer else {
            return full("\(MPRISMonitor.maxNamesPerPeer) names of \(owner)", name)
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
                if let p = peers[m.sender], p.query != nil || p.wantsStatus || p.restUntil > Self.now() {
                    counters.coalesced += 1
                }
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
                _ = try? c.send(
                    destination: name, path: Self.objectPath, interface: Self.playerInterface, member: "Pause",
                    values: [])
            }
        }
    }

    private var value: Bool { peers.values.contains { $0.ignored == false && $0.playing } }

    private func changed() {
        publishPlayers()
        guard !scanning else { return }
        if value == reported { changedSince = nil } else if changedSince == nil { changedSince = Self.now() }
    }

    private func reportIfSettled() {
        guard !scanning, let since = changedSince, Self.now() - since >= settleTime else { return }
        if value != reported { reportValue() }
        changedSince = nil
    }

    private func reportValue() {
        let v = value
        reported = v
        publishPlayers()
        report(v)
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
