internal import EarshotLinux
import Foundation
import Synchronization

/// The engine's live monitor (see <doc:MonitoringARunningGame>): an ``EngineSubsystem`` attached
/// when ``AudioEngine/Configuration/monitor`` or `EARSHOT_MONITOR=1` asks for it.
///
/// The game's side never waits for a client. While a client is connected, `update` copies the
/// engine's state (``MonitorCapture``, bounded) at the monitor's rate into a one-slot mailbox and
/// wakes the monitor's thread (one byte into a pipe); that thread (`earshot.monitor`,
/// `EarshotLinux`'s ``LineServer``) turns it into a JSON line and writes it to every client
/// without blocking, dropping clients that do not keep up. With no client connected the hooks
/// cost one atomic load each. ``shutdown(_:)`` says `bye`, ends the thread, closes every
/// connection and removes the socket file.
///
/// Locks: `game` (the game thread's timings), `outbox` (the mailbox and the event log) and
/// `observerToken` are leaves; the capture takes the AL lock, then music's lock, as any
/// subsystem does, with none of the monitor's held.
final class MonitorSubsystem: EngineSubsystem {
    /// The socket's path (removed at shutdown).
    let path: String
    private let server: LineServer
    /// Microseconds between frames (1 / rate).
    private let interval = Atomic<Int>(Int(1e6 / MonitorProtocol.defaultRate))
    private let game = Locked(GameSide())
    private let outbox = Locked(Outbox())
    private let observerToken = Locked<UInt64?>(nil)
    /// Whether `observerToken` holds one: read on every frame without taking its lock.
    private let observing = Atomic<Bool>(false)
    /// The server thread's own: voice names by id from the last frame (for ended voices' names).
    private let names = Locked<[String: String]>([:])
    private let hello: Locked<MonitorHello>

    private struct GameSide {
        var cpuAtBegin = 0.0
        var renderCPUAtBegin = 0.0
        var lastCapture = -Double.infinity
        var updates = 0
        var updateMs = 0.0
        var renderMs: Double?
        var lastLimitedFrames = 0
        var lastSession: MonitorFrame.Session?
    }

    /// What the game hands the monitor's thread: the newest capture and what goes with it.
    private struct Outbox {
        var capture: MonitorCapture?
        var spare: MonitorCapture?
        var extras = Extras()
        var events: [MonitorFrame.EventRow] = []
        var eventsDropped = 0
        var seq = 0
        var audioTime = 0.0
    }

    private struct Extras {
        var output = ""
        var updateMs = 0.0
        var renderMs: Double?
        var updates = 0
        var monitorMs = 0.0
        var tracks: [MonitorFrame.TrackRow] = []
        var sets: [MonitorFrame.MusicSetRow] = []
        var session: MonitorFrame.Session?
        var limiter = MonitorFrame.Limiter(limitedFrames: 0, deepestDB: 0, active: false)
    }

    private let started = Clocks.monotonic()

    /// How long a client with bytes waiting may read nothing before it is closed, seconds
    /// (``LineServer/Limits/stuckTimeout``, 5 s). Tests shorten it for monitors started afterwards.
    static let stuckTimeout = Locked(5.0)

    private init(path: String, listener: UnixSocket, hello: MonitorHello) throws(UnixSocketError) {
        self.path = path
        self.hello = Locked(hello)
        let weakSelf = WeakBox()
        var limits = LineServer.Limits()
        limits.maxLineBytes = MonitorProtocol.maxRequestBytes
        limits.stuckTimeout = Self.stuckTimeout.withLock { $0 }
        server = try LineServer(
            listener: listener, path: path, allowedUID: geteuid(), limits: limits,
            greeting: { weakSelf.monitor?.greeting() ?? [] },
            answer: { line in weakSelf.monitor?.answer(line) ?? .close(nil) },
            overlong: {
                MonitorMessage.error("a request longer than the \(MonitorProtocol.maxRequestBytes - 1) bytes allowed")
                    .encoded() + [0x0A]
            },
            next: { weakSelf.monitor?.nextFrame() })
        weakSelf.monitor = self
    }

    /// A weak way from the server's closures back to the monitor (the server outlives no monitor).
    // @unchecked Sendable: `monitor` is written once, in the monitor's init before the server's
    // thread starts, then only read; weak references are loaded atomically by the runtime.
    private final class WeakBox: @unchecked Sendable {
        weak var monitor: MonitorSubsystem?
    }

    /// Opens the socket and starts the thread for `engine`.
    static func start(for engine: AudioEngine, output: String, sampleRate: Int) throws(EarshotError) -> MonitorSubsystem
    {
        let path = try MonitorSocketPath.makeForEngine()
        let hello = MonitorHello(
            pid: Int(getpid()), process: processName(), earshot: EarshotVersion.string, output: output,
            sampleRate: sampleRate, loopback: engine.isLoopback, rate: MonitorProtocol.defaultRate)
        do {
            // Only this process's own name is ever replaced: a socket left by an earlier process
            // with the same id (that process is gone, or it would be us).
            let listener = try UnixSocket.listen(path: path, mode: 0o600) { _ in true }
            let monitor = try MonitorSubsystem(path: path, listener: listener, hello: hello)
            monitor.server.start(name: "earshot.monitor")
            return monitor
        } catch {
            throw .monitor("cannot open \(path): \(error)")
        }
    }

    static func processName() -> String {
        let comm = (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8)) ?? ""
        let name = comm.trimmingCharacters(in: .whitespacesAndNewlines)
        return name.isEmpty ? ProcessInfo.processInfo.processName : name
    }

    /// Clients connected now.
    var clientCount: Int { server.clientCount }
    /// The server's counters (tests).
    var counters: LineServer.Counters { server.counters }

    // MARK: Hooks (the game's thread)

    func beginFrame(_ engine: AudioEngine) {
        guard server.clientCount > 0 else { return }
        let cpu = Clocks.threadCPU()
        game.withLock { $0.cpuAtBegin = cpu }
    }

    func endFrame(_ engine: AudioEngine, changes: BusChanges) {
        guard server.clientCount > 0 else {
            if observing.load(ordering: .relaxed) { stopObserving(engine) }
            return
        }
        let cpu = Clocks.threadCPU()
        let now = Clocks.monotonic()
        let step = Double(interval.load(ordering: .relaxed)) / 1e6
        let due = game.withLock { g -> Bool in
            g.updates += 1
            if g.cpuAtBegin > 0 { g.updateMs = (cpu - g.cpuAtBegin) * 1000 }
            guard now - g.lastCapture >= step * 0.999 else { return false }
            g.lastCapture = now
            return true
        }
        if !observing.load(ordering: .relaxed) { startObserving(engine) }
        guard due else { return }
        capture(engine)
    }

    func willRender(_ engine: AudioEngine, frames: Int) {
        guard server.clientCount > 0 else { return }
        let cpu = Clocks.threadCPU()
        game.withLock { $0.renderCPUAtBegin = cpu }
    }

    func didRender(_ engine: AudioEngine, _ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
        guard server.clientCount > 0 else { return }
        let cpu = Clocks.threadCPU()
        game.withLock { g in
            if g.renderCPUAtBegin > 0 { g.renderMs = (cpu - g.renderCPUAtBegin) * 1000 }
        }
    }

    func deviceLost(_ engine: AudioEngine) {
        note(kind: "device-lost", detail: nil)
    }

    func deviceRestored(_ engine: AudioEngine, _ restoration: DeviceRestoration) {
        hello.withLock { $0.output = restoration.device }
        note(kind: "device-restored", detail: restoration.device)
    }

    func shutdown(_ engine: AudioEngine) {
        stopObserving(engine)
        server.stop(lastWords: MonitorMessage.bye.encoded() + [0x0A])
    }

    // MARK: Capturing

    private func capture(_ engine: AudioEngine) {
        let cpu0 = Clocks.threadCPU()
        var capture = outbox.withLock { o -> MonitorCapture in
            defer { o.spare = nil }
            return o.spare ?? MonitorCapture()
        }
        let output: String? = engine.withAL {
            guard !engine.core.isShutDown else { return nil }
            capture.fill(from: engine.core)
            return engine.core.device.name
        }
        guard let output else { return }
        let music: any MonitorMusicSource = engine.musicSystem
        let tracks = music.monitorTracks(host: engine)
        let sets = music.monitorSets()
        let session = engine.sessionSlot.existing.map { s in
            MonitorFrame.Session(
                category: s.category.rawValue, active: s.isActive, otherAudio: s.secondaryAudioShouldBeSilencedHint,
                interrupted: s.isInterrupted, duckDB: MonitorNames.decibels(s.musicDuckGain))
        }
        let (limited, deepest) = engine.limiter.withLock { ($0.limitedFrames, $0.deepestReductionDecibels) }
        let monitorMs = (Clocks.threadCPU() - cpu0) * 1000
        var sessionEdges: [String] = []
        let extras = game.withLock { g -> Extras in
            defer {
                g.updates = 0
                g.lastLimitedFrames = limited
                g.lastSession = session
            }
            if let s = session, let before = g.lastSession {
                if s.interrupted != before.interrupted {
                    sessionEdges.append(s.interrupted ? "interruption began" : "interruption ended")
                }
                if s.otherAudio != before.otherAudio {
                    sessionEdges.append(s.otherAudio ? "other audio started" : "other audio stopped")
                }
                if s.category != before.category { sessionEdges.append("category \(s.category)") }
            }
            return Extras(
                output: output, updateMs: g.updateMs, renderMs: engine.isLoopback ? g.renderMs : nil,
                updates: g.updates,
                monitorMs: monitorMs, tracks: tracks, sets: sets, session: session,
                limiter: .init(
                    limitedFrames: limited, deepestDB: Double(deepest), active: limited > g.lastLimitedFrames))
        }
        let time = capture.audioTime
        outbox.withLock { o in
            o.audioTime = time
            for edge in sessionEdges { Self.append(.init(time: time, kind: "session", detail: edge), to: &o) }
            if let old = o.capture { o.spare = old }
            o.capture = capture
            o.extras = extras
        }
        server.wake()
    }

    private static func append(_ event: MonitorFrame.EventRow, to o: inout Outbox) {
        if o.events.count < MonitorProtocol.maxEvents { o.events.append(event) } else { o.eventsDropped += 1 }
    }

    /// An event of the engine's own or of a feature above it (a bank's reload), in the next frame.
    func note(kind: String, name: String? = nil, detail: String?) {
        outbox.withLock { o in Self.append(.init(time: o.audioTime, kind: kind, name: name, detail: detail), to: &o) }
    }

    private func startObserving(_ engine: AudioEngine) {
        let token = engine.voiceEventBroadcast.observe { [weak self] event in self?.noteVoiceEvent(event) }
        let extra = observerToken.withLock { t -> UInt64? in
            guard t == nil else { return token }
            t = token
            observing.store(token != nil, ordering: .relaxed)
            return nil
        }
        if let extra { engine.voiceEventBroadcast.removeObserver(extra) }
    }

    private func stopObserving(_ engine: AudioEngine) {
        if let token = observerToken.withLock({ t in
            defer { t = nil; observing.store(false, ordering: .relaxed) }; return t
        }) {
            engine.voiceEventBroadcast.removeObserver(token)
        }
    }

    private func noteVoiceEvent(_ event: VoiceEvent) {
        let id = event.voice.id == .refused ? nil : "\(event.voice.id.index).\(event.voice.id.generation)"
        let row = MonitorFrame.EventRow(time: event.audioTime, kind: event.reason.rawValue,
                                        name: event.sound.map(MonitorNames.name(of:)), voice: id)
        outbox.withLock { Self.append(row, to: &$0) }
    }

    // MARK: The monitor's thread

    private func greeting() -> [UInt8] {
        var h = hello.withLock { $0 }
        h.rate = 1e6 / Double(interval.load(ordering: .relaxed))
        return MonitorMessage.hello(h).encoded() + [0x0A]
    }

    private func answer(_ line: ArraySlice<UInt8>) -> LineServer.Answer {
        do {
            switch try MonitorRequest.parse(line: line) {
            case .ping: return .reply(MonitorMessage.pong.encoded() + [0x0A])
            case .pause: return .mute(true, reply: nil)
            case .resume: return .mute(false, reply: nil)
            case .rate(let hz):
                interval.store(Int(1e6 / hz), ordering: .relaxed)
                return .none
            }
        } catch {
            return .close(MonitorMessage.error(error.description).encoded() + [0x0A])
        }
    }

    /// The newest capture as a frame line, or nil when none is waiting.
    private func nextFrame() -> [UInt8]? {
        let taken = outbox.withLock { o -> (MonitorCapture, Extras, [MonitorFrame.EventRow], Int, Int)? in
            guard let c = o.capture else { return nil }
            o.capture = nil
            o.seq += 1
            defer {
                o.events.removeAll(keepingCapacity: true)
                o.eventsDropped = 0
            }
            return (c, o.extras, o.events, o.eventsDropped, o.seq)
        }
        guard let (capture, extras, events, dropped, seq) = taken else { return nil }
        let frame = makeFrame(capture, extras, events: events, dropped: dropped, seq: seq)
        outbox.withLock { o in if o.spare == nil { o.spare = capture } }
        return MonitorMessage.frame(frame).encoded() + [0x0A]
    }

    private func makeFrame(
        _ c: MonitorCapture, _ x: Extras, events: [MonitorFrame.EventRow], dropped: Int, seq: Int
    ) -> MonitorFrame {
        var voiceNames: [String: String] = [:]
        voiceNames.reserveCapacity(c.voices.count)
        let voices = c.voices.map { v -> MonitorFrame.VoiceRow in
            let id = "\(v.index).\(v.generation)"
            let clip = MonitorNames.fileName(v.clip)
            let info = v.soundKey == 0 ? nil : c.sounds[v.soundKey]
            let sound = info?.name
            let name = sound ?? clip
            voiceNames[id] = name
            let distance = v.position.map { p -> Double in
                let d = p - c.listener
                return Double((d.x * d.x + d.y * d.y + d.z * d.z).squareRoot())
            }
            return MonitorFrame.VoiceRow(
                id: id, name: name, clip: clip, sound: sound,
                bus: v.bus < c.busNames.count ? c.busNames[v.bus] : "?",
                state: ["real", "virtual", "paused", "pending"][Int(min(v.state, 3))],
                gainDB: MonitorNames.decibels(v.gain), audibilityDB: MonitorNames.decibels(v.audibility),
                distance: distance.map(Self.finite),
                position: v.position.map {
                    [Self.finite(Double($0.x)), Self.finite(Double($0.y)), Self.finite(Double($0.z))]
                },
                age: Self.finite(v.age),
                variation: v.variation >= 0 ? Int(v.variation) + 1 : nil,
                variations: v.variation >= 0 ? info?.clipIDs.count : nil,
                layer: v.layer >= 0 ? Int(v.layer) + 1 : nil, layers: v.layer >= 0 ? info?.clipIDs.count : nil,
                leader: v.leader.map { "\($0.index).\($0.generation)" },
                room: v.room.map {
                    MonitorFrame.RoomRow(room: $0.room, listenerRoom: $0.listenerRoom, via: $0.via.rawValue, path: $0.path,
                                         length: Self.finite(Double($0.length)), diffractionDB: Self.finite(Double($0.diffractionDB)),
                                         opennessDB: Self.finite(Double($0.opennessDB)), transmissionDB: Self.finite(Double($0.transmissionDB)))
                })
        }
        let named = names.withLock { previous -> [MonitorFrame.EventRow] in
            defer { previous = voiceNames }
            return events.map { e in
                guard e.name == nil, let id = e.voice else { return e }
                var e = e
                e.name = voiceNames[id] ?? previous[id]
                return e
            }
        }
        var engine = MonitorFrame.Engine(
            output: x.output, sampleRate: c.sampleRate, audioTime: c.audioTime, updateMs: x.updateMs,
            renderMs: x.renderMs,
            updates: x.updates, monitorMs: x.monitorMs, realVoices: c.counts.real,
            virtualVoices: c.counts.live - c.counts.real,
            freeSources: c.counts.freeSources, voiceSources: c.counts.sources, steals: c.counts.steals,
            refusals: c.counts.refusals,
            limiter: x.limiter, deviceLost: c.deviceLost)
        engine.masterMomentaryLUFS = c.masterLoudness.momentary
        engine.masterShortTermLUFS = c.masterLoudness.shortTerm
        return MonitorFrame(
            seq: seq, time: Clocks.monotonic() - started, engine: engine, voices: voices,
            voicesOmitted: max(0, c.counts.live - voices.count), buses: c.buses, snapshots: c.snapshots,
            parameters: c.parameters.isEmpty ? nil : c.parameters,
            music: .init(tracks: x.tracks, sets: x.sets.isEmpty ? nil : x.sets), zones: c.zones,
            roomReverbs: c.roomReverbs.map { $0.map(MonitorFrame.RoomReverbRow.init) },
            session: x.session, events: named, eventsDropped: dropped)
    }

    private static func finite(_ x: Double) -> Double { x.isFinite ? min(max(x, -1e12), 1e12) : 0 }
}
