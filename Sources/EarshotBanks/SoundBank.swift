import Earshot
import EarshotContent
import Foundation

/// A sound designer's bank, loaded into an engine: the sounds, snapshots, music and reverb zones
/// a YAML file defines (the scene language without the timeline — see `Demos/Scenes/README.md`),
/// played by name from the game.
///
/// The game says *what* happens ("a footstep here", "pause"); the bank says how it sounds — which
/// clips, how varied, how loud, on which bus, how many at once. The designer tunes the bank while
/// the game runs: ``reload()`` (or `watch: true`, which reloads on every save) changes the gains,
/// limits, cooldowns, snapshots and bus settings of what is playing within one frame, without
/// restarting it, and makes added sounds playable; an edit with a problem changes nothing and is
/// reported on ``events`` as `FILE:LINE:COLUMN: key: reason`.
///
/// Several banks may be loaded into one engine at once (their ids are their own: two banks may
/// each have a `footstep`; buses are the engine's and shared). ``unload()`` gives back what the
/// bank loaded: its clips' memory, its sounds, its tracks. Every call is safe from any thread;
/// after ``unload()`` or the engine's shutdown, lookups throw ``BankError/unloaded(bank:)``.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
/// _ = try bank.play("footstep", options: SoundPlayOptions(position: Vector3(1, 0, -2)))
/// try engine.begin(try bank.snapshot("pause"), fade: 0.3)
/// bank.unload()
/// ```
public final class SoundBank: Sendable {
    /// The bank file as given.
    public let path: String
    /// The engine the bank is loaded into.
    public let engine: AudioEngine

    private let lock = NSLock()
    /// Serialises reloads (the watcher's and the game's); taken before `lock`, never inside it.
    private let reloadLock = NSLock()
    // Guarded by `lock` (a pthread mutex): nil once unloaded or the engine shut down.
    nonisolated(unsafe) private var contents: BankContents?
    // Guarded by `lock`: a watched save accepted and not yet in force (SoundBank+Reload.swift).
    nonisolated(unsafe) private var pending: BankTransaction?
    // Guarded by `lock` (a pthread mutex); stopped outside it.
    nonisolated(unsafe) private var _watcher: BankWatcher?
    private var watcher: BankWatcher? {
        lock.lock()
        defer { lock.unlock() }
        return _watcher
    }
    /// Every consumer of ``events`` (Earshot's broadcaster: each sees every event, 64 kept for
    /// one that falls behind); finished at unload and at the engine's shutdown.
    private let broadcast = EventBroadcast<BankEvent>(capacity: 64)
    private let lifetime = BankLifetime()

    /// Loads the bank at `path` into `engine`: reads and validates it (and the banks it
    /// includes), loads its clips, makes its buses, sounds and snapshots. With `watch`, the bank
    /// file and every file it includes are watched (inotify, on a thread of the bank's own that
    /// ends at ``unload()`` or the engine's shutdown) and each save reloads the bank
    /// (``reload()``), its outcome on ``events``.
    ///
    /// Throws ``BankError/invalid(_:)`` with every problem of the files
    /// (`FILE:LINE:COLUMN: key: reason`, a clip that does not load included),
    /// ``BankError/engine(_:)`` when the engine refuses (shut down, clip memory budget); nothing
    /// stays loaded then.
    public init(path: String, engine: AudioEngine, watch: Bool = false) throws(BankError) {
        self.path = path
        self.engine = engine
        let bank: SceneBank
        switch SceneBank.check(path: path) {
        case .success(let b): bank = b
        case .failure(let p): throw .invalid(p.problems)
        }
        // The first load is the first transaction: against a bank that holds nothing yet.
        var c = BankContents(bank: bank)
        let t = try prepare(bank, against: c, pending: nil)
        do throws(EarshotError) {
            try engine.attach(lifetime)
            try commit(t, to: &c)
        } catch {
            Self.release(c, engine: engine)
            t.discard(engine: engine)
            engine.detach(lifetime)
            throw .engine(error)
        }
        contents = c
        lifetime.bank = self
        if watch {
            do throws(BankWatcher.WatchError) {
                let w = try BankWatcher(files: bank.files) { [weak self] lastTry in
                    self?.reloadFromWatcher(lastTry: lastTry) ?? true
                }
                lock.lock()
                _watcher = w
                lock.unlock()
            } catch {
                unload()
                throw .engine(.invalidArgument("cannot watch \(path): \(error.reason)"))
            }
        }
        // A shutdown that came before the hook knew the bank (or that is still tearing the core
        // down, after the hook ran): end as the hook would have — the watcher too.
        if engine.isShutDown || lifetime.sawShutdown { engineShutDown() }
    }

    /// Unloads the bank when the game lets go of it without ``unload()``.
    deinit { unload() }

    // MARK: Playing

    /// Plays the sound `name` (its clip picked, varied and limited as the bank says) with
    /// `options`; nil when the sound's limit, its cooldown or a full voice pool refused the play.
    ///
    /// Throws ``BankError/unknownName(bank:kind:name:nearest:)`` for a name the bank does not
    /// define (with the nearest it does), ``BankError/engine(_:)`` for options the engine
    /// refuses, ``BankError/unloaded(bank:)`` after ``unload()``.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
    /// if let step = try bank.play("footstep", options: SoundPlayOptions(position: Vector3(0, 0, -1))) {
    ///     print(step.status)   // real
    /// }
    /// ```
    @discardableResult
    public func play(_ name: String, options: SoundPlayOptions = SoundPlayOptions()) throws(BankError) -> Voice? {
        var sound = try self.sound(name)
        for attempt in 0..<2 {
            do throws(EarshotError) {
                let voice = try engine.play(sound, options: options)
                return voice.status == .refused ? nil : voice
            } catch {
                // A reload or unload removed it meanwhile: as the bank is now.
                guard error == .soundRemoved, attempt == 0 else { throw .engine(error) }
                sound = try self.sound(name)
            }
        }
        return nil
    }

    /// The engine sound `name` (for `AudioEngine.play(_:options:)` and
    /// `AudioEngine.instanceCount(of:)`). After a reload that changed it, ask again: a handle
    /// kept from before plays with the gain, pitch, bus and priority it had.
    public func sound(_ name: String) throws(BankError) -> Sound {
        try lookup("sound", name) { $0.sounds }
    }

    /// The snapshot `name`, for `AudioEngine.begin(_:fade:intensity:)` and
    /// `AudioEngine.end(_:fade:)`.
    public func snapshot(_ name: String) throws(BankError) -> Snapshot {
        try lookup("snapshot", name) { $0.snapshots }
    }

    /// The reverb zone `name`, for `AudioEngine.setReverbZones(_:)`. A reload that changes it
    /// changes it in the engine's zones too, where the game put it.
    public func zone(_ name: String) throws(BankError) -> ReverbZone {
        try lookup("zone", name) { $0.zones }
    }

    /// The music track `name`, loaded (streamed) at the first call with the bank's volume, loops,
    /// rate and bus, and the same track at every later call; ``unload()`` stops it.
    public func music(_ name: String) throws(BankError) -> MusicTrack {
        try madeOnce("music track", name, kept: \.tracks, from: \.music) { (m) throws(EarshotError) in
            let track = try engine.loadMusic(path: m.path, bus: Bus(m.bus))
            try m.apply(to: track)
            return track
        }
    }

    /// What `make` makes of the definition `name` (a music track, a music set) at the first call,
    /// kept in `kept` and returned again at every later call until ``unload()``.
    func madeOnce<Definition, Made>(
        _ kind: String, _ name: String, kept: WritableKeyPath<BankContents, [String: Made]>,
        from definitions: KeyPath<BankContents, [String: Definition]>,
        _ make: (Definition) throws(EarshotError) -> Made
    ) throws(BankError) -> Made {
        try withContents { (contents: inout BankContents?) throws(BankError) -> Made in
            guard var c = contents else { throw .unloaded(bank: path) }
            if let made = c[keyPath: kept][name] { return made }
            let table = c[keyPath: definitions]
            guard let definition = table[name] else {
                throw .unknownName(
                    bank: path, kind: kind, name: name, nearest: SceneBank.nearestName(to: name, among: table.keys))
            }
            do throws(EarshotError) {
                let made = try make(definition)
                c[keyPath: kept][name] = made
                contents = c
                return made
            } catch {
                throw .engine(error)
            }
        }
    }

    private func lookup<T>(
        _ kind: String, _ name: String, _ table: (BankContents) -> [String: T]
    ) throws(BankError) -> T {
        flushPending()
        lock.lock()
        defer { lock.unlock() }
        guard let c = contents else { throw .unloaded(bank: path) }
        let entries = table(c)
        if let found = entries[name] { return found }
        throw .unknownName(
            bank: path, kind: kind, name: name, nearest: SceneBank.nearestName(to: name, among: entries.keys))
    }

    // MARK: What the bank holds

    /// The bank as last read (nil after ``unload()``).
    public var definition: SceneBank? { read { $0.bank } }
    /// The sounds' names, sorted (empty after ``unload()``).
    public var soundNames: [String] { read { $0.sounds.keys.sorted() } ?? [] }
    /// The snapshots' names, sorted.
    public var snapshotNames: [String] { read { $0.snapshots.keys.sorted() } ?? [] }
    /// The music tracks' names, sorted.
    public var musicNames: [String] { read { $0.music.keys.sorted() } ?? [] }
    /// The reverb zones' names, sorted.
    public var zoneNames: [String] { read { $0.zones.keys.sorted() } ?? [] }
    /// The bank's rooms and portals (`rooms:`, `portals:`), checked as the engine checks them,
    /// for the game to hand to `AudioEngine.setGeometry(_:)` (empty when it has none, and after
    /// ``unload()``). A reload changes what this returns; the game sets it again.
    public var geometry: AcousticGeometry { read { $0.geometry } ?? AcousticGeometry() }
    /// Bytes of OpenAL memory the bank's clips take (``ClipInfo/memoryBytes``: a stereo clip's
    /// channel buffers included; 0 after ``unload()``).
    public var clipBytes: Int { read { $0.clipBytes } ?? 0 }
    /// Whether the bank is loaded (false after ``unload()`` and the engine's shutdown).
    public var isLoaded: Bool { read { _ in true } ?? false }

    private func read<T>(_ body: (BankContents) -> T) -> T? {
        flushPending()
        lock.lock()
        defer { lock.unlock() }
        return contents.map(body)
    }

    // MARK: Events and the end

    /// The bank's events: each reload that took effect, each edit refused (with its
    /// `FILE:LINE:COLUMN: key: reason`). Every call returns a stream of its own that sees every
    /// event from then on (each consumer gets them all); the streams finish at ``unload()`` and
    /// at the engine's shutdown, and one asked for afterwards is finished at once.
    public var events: AsyncStream<BankEvent> { broadcast.stream() }

    /// Gives back what the bank loaded: stops the watch, removes its sounds (their voices stop
    /// with their clips), stops its music tracks, ends its active snapshots, takes its zones out
    /// of the engine's, removes the duckings it set, unloads its clips (their memory is freed)
    /// takes away its line table (if the engine still has it) and finishes ``events``. Buses it added stay (the engine cannot remove a bus). Idempotent.
    public func unload() {
        watcher?.stop()
        lock.lock()
        let c = contents
        let t = pending
        contents = nil
        pending = nil
        _watcher = nil
        lock.unlock()
        if let c { Self.release(c, engine: engine) }
        if !engine.isShutDown { t?.discard(engine: engine) }
        broadcast.finish()
        engine.detach(lifetime)
    }

    /// Everything `c` put in the engine, taken out (nothing when the engine is shut down).
    static func release(_ c: BankContents, engine: AudioEngine) {
        guard !engine.isShutDown else { return }
        for s in c.sounds.values { engine.removeSound(s) }
        for t in c.tracks.values { t.stop() }
        for t in c.retiredTracks { t.stop() }
        for s in c.sets.values { s.stop() }
        let active = Set(engine.activeSnapshots)
        for s in c.snapshots.values where active.contains(s.name) { engine.end(s) }
        let zones = engine.reverbZones
        let kept = zones.filter { c.zones[$0.name] != $0 }
        if kept.count != zones.count { try? engine.setReverbZones(kept) }
        for pair in c.duckings { try? engine.setDucking(nil, of: Bus(pair.target), by: Bus(pair.source)) }
        for name in c.busCurves { try? engine.setCurves([], for: Bus(name)) }
        releaseDialogue(c, engine: engine)   // SoundBank+Dialogue.swift
        for clip in c.clipsByPath.values { engine.unload(clip) }
    }

    /// The engine shuts down: the watch ends and the events finish (the engine's objects are
    /// gone with it).
    func engineShutDown() {
        watcher?.stop()
        lock.lock()
        contents = nil
        pending = nil
        _watcher = nil   // stopped: a reload after this must not touch its closed descriptors
        lock.unlock()
        broadcast.finish()
    }

    // MARK: Reloading (SoundBank+Reload.swift)

    /// `body` on what the bank holds, with a pending save applied first.
    func withContents<R>(_ body: (inout BankContents?) throws(BankError) -> R) throws(BankError) -> R {
        flushPending()
        lock.lock()
        defer { lock.unlock() }
        return try body(&contents)
    }

    /// What the bank holds, without applying a pending save (for the reload itself).
    func storedContents() -> BankContents? {
        lock.lock()
        defer { lock.unlock() }
        return contents
    }

    func pendingTransaction() -> BankTransaction? {
        lock.lock()
        defer { lock.unlock() }
        return pending
    }

    /// Makes `t` the pending save; false when the bank is no longer loaded. The caller holds the
    /// reload lock, so that no commit comes between its reading of the pending save and this.
    func replacePending(with t: BankTransaction) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard contents != nil else { return false }
        pending = t
        return true
    }

    func withStoredContents<R>(_ body: (inout BankContents?, inout BankTransaction?) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&contents, &pending)
    }

    /// A game's call into the bank sees every save accepted before it: a pending one is applied
    /// first (waiting for a reload being prepared, as any call waits for the bank's lock).
    private func flushPending() {
        lock.lock()
        let waiting = pending != nil
        lock.unlock()
        guard waiting else { return }
        reloadLock.lock()
        let error = commitPending()
        reloadLock.unlock()
        if let error { send(.rejected(.engine(error))) }
    }

    /// The start of the game's frame (`AudioEngine.update`): a pending save goes in force, before
    /// the frame's mix. Never waits: while a reload is being prepared (it would replace the pending
    /// one) the save waits for the next frame.
    func frameStarted() {
        guard reloadLock.try() else { return }
        let error = commitPending()
        reloadLock.unlock()
        if let error { send(.rejected(.engine(error))) }
    }

    /// Sends `event` to ``events`` and to the engine's monitor (`earshot monitor` shows reloads).
    func send(_ event: BankEvent) {
        broadcast.send(event)
        let file = (path as NSString).lastPathComponent
        switch event {
        case .reloaded(let changes):
            engine.noteMonitorEvent(kind: "bank-reloaded", name: file, detail: changes.description)
        case .rejected(let error):
            let first = error.description.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init)
            engine.noteMonitorEvent(kind: "bank-rejected", name: file, detail: first)
        }
    }
    func watch(_ files: [String]) { watcher?.setFiles(files) }
    func serialised<R>(_ body: () -> R) -> R {
        reloadLock.lock()
        defer { reloadLock.unlock() }
        return body()
    }
}

/// The bank's hook into its engine's life (Earshot's `EngineSubsystem`, attached at load,
/// detached at unload): a watched save is applied at the start of a frame, and the engine's
/// shutdown ends the bank's watch and events.
final class BankLifetime: EngineSubsystem {
    private let lock = NSLock()
    // Guarded by `lock`; weak: the engine's list of subsystems must not keep the bank alive.
    nonisolated(unsafe) private weak var _bank: SoundBank?

    // Guarded by `lock`: the engine's shutdown ran this hook (perhaps before `bank` was set).
    nonisolated(unsafe) private var _shutDown = false

    var bank: SoundBank? {
        get { lock.lock(); defer { lock.unlock() }; return _bank }
        set { lock.lock(); _bank = newValue; lock.unlock() }
    }

    /// Whether the engine's shutdown has run this hook.
    var sawShutdown: Bool { lock.lock(); defer { lock.unlock() }; return _shutDown }

    func beginFrame(_ engine: AudioEngine) { bank?.frameStarted() }

    func shutdown(_ engine: AudioEngine) {
        lock.lock()
        _shutDown = true
        let bank = _bank
        lock.unlock()
        bank?.engineShutDown()
    }
}
