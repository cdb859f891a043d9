import Dispatch
import Foundation
import Logging
import Synchronization

/// The MPRIS watcher's loop and state (``MPRISHintSource`` runs it); lives on its own thread
/// only, the `earshot.mpris` thread, and shares nothing but what it reports through its sink.
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
    /// (at most 20 ms, at least 1 ms). The cap is how long ``MPRISHintSource/stop()`` — and so
    /// the engine's shutdown — can wait for the loop to notice it (100 ms before issue 23).
    private func waitMilliseconds() -> Int32 {
        let now = Clocks.monotonic()
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
