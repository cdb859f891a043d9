import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The sound manager's clip cache: preloads clips by name, shares one buffer per file, accounts
/// for memory, evicts idle clips over an optional budget, and can re-upload everything after
/// the output device is lost.
///
/// **Names and sharing.** Every clip is looked up by a name you choose. The same file preloaded
/// twice (under one name or two) shares one OpenAL buffer: files are identified by their real
/// path (symlinks resolved), bytes in memory by their content, and both by whether they were
/// loaded for positioning (mono) or not.
///
/// **Unloading.** ``unload(named:)`` forgets a name; when no name uses the clip any more its
/// buffer is released with ``AudioEngine/unload(_:)``, which first stops the voices still
/// playing it (they fade out where the engine supports fading, and are cut otherwise).
///
/// **Memory.** ``byteCount(named:)`` is what a clip takes in OpenAL's memory
/// (``ClipInfo/memoryBytes``: a stereo clip's channel buffers included), ``totalBytes`` the sum
/// over distinct clips. A clip whose decoded audio alone exceeds the ``byteBudget`` (or the
/// engine's ``AudioEngine/Configuration/maxClipBytes``) is refused before it is decoded, with
/// ``EarshotError/tooLarge(name:what:size:limit:setting:)``. With a budget, each preload that takes the total over the
/// budget evicts the least recently used *idle* clips (no voice playing them) until it fits;
/// clips being played are never evicted, so the budget can be exceeded while they play
/// (``isOverBudget`` says so). A clip's recency is refreshed by preloading it and by
/// ``clip(named:)``. Evicted clips are forgotten with all their names (``evictionCount``).
///
/// **Device loss.** The bank keeps each clip's *source* (not its decoded PCM): the path for
/// files, the encoded bytes for clips preloaded from memory. ``restoreBytes`` counts what that
/// keeps (path lengths plus encoded bytes: far less than the PCM for files, and no more than the
/// encoded size for memory). ``rebuild(on:)`` re-decodes every source into a new engine; a file
/// that vanished meanwhile is reported and dropped.
///
/// ```swift
/// let bank = ClipBank(engine: engine, byteBudget: 64 << 20)
/// try bank.preload(name: "step", path: "Assets/Sounds/step-ima4.caf")
/// for await p in bank.preload([.init(name: "coin", path: "Assets/Sounds/coin-ima4.caf")]) {
///     print("\(p.done)/\(p.total)")
/// }
/// if let step = bank.clip(named: "step") { _ = try engine.play(step) }
/// ```
public final class ClipBank: Sendable {
    /// Where a clip comes from.
    public enum Source: Sendable, Equatable {
        /// A file on disk.
        case path(String)
        /// An encoded file held in memory (`name` labels errors and ``ClipInfo/name``).
        case data([UInt8], name: String)

        var displayName: String {
            switch self {
            case .path(let p): return p
            case .data(_, let name): return name
            }
        }

        var retainedBytes: Int {
            switch self {
            case .path(let p): return p.utf8.count
            case .data(let d, _): return d.count
            }
        }

        /// Decodes the source and uploads it into `engine` (the engine's own loaders), refusing
        /// before decoding anything whose decoded audio would exceed `budget` as well as the
        /// engine's ``AudioEngine/Configuration/maxClipBytes``.
        func load(into engine: AudioEngine, forPositioning: Bool, budget: Int?) throws(EarshotError) -> Clip {
            let limit = budget.map { max(1, $0) } ?? Int.max
            let setting = "ClipBank.byteBudget"
            switch self {
            case .path(let p):
                return try engine.loadClip(path: p, forPositioning: forPositioning, maxBytes: limit, setting: setting)
            case .data(let d, let n):
                return try engine.loadClip(
                    data: d, name: n, forPositioning: forPositioning, maxBytes: limit, setting: setting)
            }
        }
    }

    /// One clip to preload.
    public struct Request: Sendable {
        public var name: String
        public var source: Source
        /// Mix down to mono for 3D positioning (see ``AudioEngine/loadClip(path:forPositioning:)``).
        public var forPositioning: Bool

        public init(name: String, path: String, forPositioning: Bool = true) {
            self.init(name: name, source: .path(path), forPositioning: forPositioning)
        }

        public init(name: String, source: Source, forPositioning: Bool = true) {
            self.name = name
            self.source = source
            self.forPositioning = forPositioning
        }
    }

    /// Progress of a batch preload: one report per finished request.
    public struct Progress: Sendable {
        /// Requests finished so far (including this one).
        public var done: Int
        /// Requests in the batch.
        public var total: Int
        /// The request's name.
        public var name: String
        /// Why the request failed, or nil when its clip is loaded.
        public var error: EarshotError?
    }

    private struct Key: Hashable {
        var identity: String
        var forPositioning: Bool
    }

    private struct Entry {
        var clip: Clip
        var names: Set<String>
        var lastUse: UInt64
        var source: Source
    }

    private struct State {
        var engine: AudioEngine
        var entries: [Key: Entry] = [:]
        var names: [String: Key] = [:]
        var tick: UInt64 = 0
        var evictions = 0
    }

    /// The byte budget for decoded audio, or nil for none.
    public let byteBudget: Int?
    private let state: Locked<State>

    /// A bank that loads into `engine`, with an optional budget in bytes of decoded audio.
    public init(engine: AudioEngine, byteBudget: Int? = nil) {
        precondition(byteBudget.map { $0 >= 0 } ?? true, "ClipBank: a negative byte budget")
        self.byteBudget = byteBudget
        state = Locked(State(engine: engine))
    }

    /// The engine clips are loaded into.
    public var engine: AudioEngine { state.withLock { $0.engine } }

    // MARK: Preloading

    /// Preloads a file under `name` (or returns the clip already loaded for it).
    @discardableResult
    public func preload(name: String, path: String, forPositioning: Bool = true) throws(EarshotError) -> Clip {
        try preload(Request(name: name, path: path, forPositioning: forPositioning))
    }

    /// Preloads an encoded file held in memory under `name`.
    @discardableResult
    public func preload(name: String, data: [UInt8], forPositioning: Bool = true) throws(EarshotError) -> Clip {
        try preload(Request(name: name, source: .data(data, name: name), forPositioning: forPositioning))
    }

    /// Preloads one request. Throws the decoder's or the engine's error, or
    /// ``EarshotError/invalidArgument(_:)`` when `name` already names a different clip.
    @discardableResult
    public func preload(_ request: Request) throws(EarshotError) -> Clip {
        let key = Self.key(for: request)
        // Fast path: already loaded under this name or another.
        let existing = try state.withLock { (s) throws(EarshotError) -> Clip? in
            try Self.checkName(request.name, key: key, in: s)
            return Self.attach(request.name, to: key, in: &s)
        }
        if let existing { return existing }

        // Decode and upload outside the bank's lock: other lookups go on meanwhile.
        let engine = self.engine
        let clip = try request.source.load(into: engine, forPositioning: request.forPositioning, budget: byteBudget)

        var duplicate: Clip?
        let result = try state.withLock { (s) throws(EarshotError) -> Clip in
            do throws(EarshotError) {
                try Self.checkName(request.name, key: key, in: s)
            } catch {
                duplicate = clip
                throw error
            }
            if let theirs = Self.attach(request.name, to: key, in: &s) {
                // Another thread loaded the same file meanwhile: keep theirs.
                duplicate = clip
                return theirs
            }
            s.tick += 1
            s.entries[key] = Entry(clip: clip, names: [request.name], lastUse: s.tick, source: request.source)
            s.names[request.name] = key
            evictIfOverBudget(&s, keeping: key)
            return clip
        }
        if let duplicate { engine.unload(duplicate) }
        return result
    }

    /// Preloads a batch in order on the calling thread, reporting after each request. Failures
    /// are reported (and returned) without stopping the batch.
    @discardableResult
    public func preload(_ requests: [Request], progress: (Progress) -> Void) -> [Progress] {
        var failures: [Progress] = []
        for i in requests.indices {
            let report = preload(requests, at: i)
            if report.error != nil { failures.append(report) }
            progress(report)
        }
        return failures
    }

    /// Preloads `requests[i]` and reports it as request `i + 1` of the batch.
    private func preload(_ requests: [Request], at i: Int) -> Progress {
        var report = Progress(done: i + 1, total: requests.count, name: requests[i].name, error: nil)
        do throws(EarshotError) {
            try preload(requests[i])
        } catch {
            report.error = error
        }
        return report
    }

    /// Preloads a batch on a background task; the stream yields one ``Progress`` per request
    /// (done/total, and the error of a failed request) and finishes after the last one.
    /// Cancelling the consuming task stops the batch after the request in flight.
    public func preload(_ requests: [Request]) -> AsyncStream<Progress> {
        let (stream, continuation) = AsyncStream<Progress>.makeStream(bufferingPolicy: .unbounded)
        let task = Task.detached { [self] in
            for i in requests.indices {
                if Task.isCancelled { break }
                continuation.yield(preload(requests, at: i))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    // MARK: Lookup

    /// The clip loaded under `name`, or nil. Refreshes its recency for the budget.
    public func clip(named name: String) -> Clip? {
        state.withLock { s in
            guard let key = s.names[name], var entry = s.entries[key] else { return nil }
            s.tick += 1
            entry.lastUse = s.tick
            s.entries[key] = entry
            return entry.clip
        }
    }

    /// Names currently loaded, sorted.
    public var names: [String] { state.withLock { $0.names.keys.sorted() } }

    /// Distinct clips (buffers) loaded.
    public var clipCount: Int { state.withLock { $0.entries.count } }

    /// Bytes of OpenAL memory behind `name` (``ClipInfo/memoryBytes``), or nil when the name is
    /// not loaded.
    public func byteCount(named name: String) -> Int? {
        state.withLock { s in s.names[name].flatMap { s.entries[$0]?.clip.info.memoryBytes } }
    }

    /// Bytes of OpenAL memory the bank's clips take (``ClipInfo/memoryBytes``), each shared clip
    /// counted once.
    public var totalBytes: Int { state.withLock { Self.total($0) } }

    /// Bytes kept to rebuild the clips after a device loss (paths and encoded in-memory files).
    public var restoreBytes: Int { state.withLock { s in s.entries.values.reduce(0) { $0 + $1.source.retainedBytes } } }

    /// Whether playing clips keep the total above the budget.
    public var isOverBudget: Bool { state.withLock { s in byteBudget.map { Self.total(s) > $0 } ?? false } }

    /// Clips evicted by the budget so far.
    public var evictionCount: Int { state.withLock { $0.evictions } }

    // MARK: Unloading

    /// Forgets `name`; when no other name shares its clip, the clip is unloaded (its voices are
    /// stopped first by the engine). Returns whether the name was loaded.
    @discardableResult
    public func unload(named name: String) -> Bool {
        state.withLock { s in
            guard let key = s.names.removeValue(forKey: name), var entry = s.entries[key] else { return false }
            entry.names.remove(name)
            if entry.names.isEmpty {
                s.entries[key] = nil
                s.engine.unload(entry.clip)
            } else {
                s.entries[key] = entry
            }
            return true
        }
    }

    /// Unloads every clip (stopping the voices playing them) and forgets every name.
    public func unloadAll() {
        state.withLock { s in
            for entry in s.entries.values { s.engine.unload(entry.clip) }
            s.entries.removeAll()
            s.names.removeAll()
        }
    }

    // MARK: Device loss

    /// Re-decodes every clip from its kept source and uploads it into `engine` (a new engine
    /// after the device was lost, or the same one once it is usable again), replacing the
    /// handles. Returns the clips that could not be restored, by name; they are dropped.
    @discardableResult
    public func rebuild(on engine: AudioEngine) -> [String: EarshotError] {
        state.withLock { s in
            var failures: [String: EarshotError] = [:]
            let old = s.engine
            s.engine = engine
            for (key, var entry) in s.entries {
                old.unload(entry.clip)
                do throws(EarshotError) {
                    entry.clip = try entry.source.load(
                        into: engine, forPositioning: key.forPositioning, budget: byteBudget)
                    s.entries[key] = entry
                } catch {
                    for name in entry.names {
                        failures[name] = error
                        s.names[name] = nil
                    }
                    s.entries[key] = nil
                }
            }
            return failures
        }
    }

    // MARK: Internals

    private static func total(_ s: State) -> Int {
        s.entries.values.reduce(0) { $0 + $1.clip.info.memoryBytes }
    }

    /// Files `name` under the clip already loaded for `key` (marking it used) and returns it;
    /// nil when nothing is loaded for `key`.
    private static func attach(_ name: String, to key: Key, in s: inout State) -> Clip? {
        guard var entry = s.entries[key] else { return nil }
        s.tick += 1
        entry.lastUse = s.tick
        entry.names.insert(name)
        s.entries[key] = entry
        s.names[name] = key
        return entry.clip
    }

    private static func checkName(_ name: String, key: Key, in s: State) throws(EarshotError) {
        if let bound = s.names[name], bound != key {
            throw .invalidArgument(
                "clip name \"\(name)\" already names \(s.entries[bound]?.source.displayName ?? "another clip"); unload it first"
            )
        }
    }

    /// Evicts least recently used idle clips (never `keeping`) until the total fits the budget.
    private func evictIfOverBudget(_ s: inout State, keeping: Key) {
        guard let budget = byteBudget else { return }
        var total = Self.total(s)
        guard total > budget else { return }
        let candidates = s.entries.filter { $0.key != keeping }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (key, entry) in candidates {
            guard total > budget else { break }
            if s.engine.isClipInUse(entry.clip) { continue }
            s.engine.unload(entry.clip)
            for name in entry.names { s.names[name] = nil }
            s.entries[key] = nil
            s.evictions += 1
            total -= entry.clip.info.memoryBytes
        }
    }

    private static func key(for request: Request) -> Key {
        switch request.source {
        case .path(let p):
            var resolved = p
            if let r = realpath(p, nil) {
                resolved = String(cString: r)
                free(r)
            }
            return Key(identity: "path:" + resolved, forPositioning: request.forPositioning)
        case .data(let d, _):
            // FNV-1a over the content: the same bytes under two names share one buffer.
            var h: UInt64 = 0xcbf29ce484222325
            d.withUnsafeBufferPointer { b in
                for byte in b { h = (h ^ UInt64(byte)) &* 0x100000001b3 }
            }
            return Key(identity: "data:\(d.count):\(String(h, radix: 16))", forPositioning: request.forPositioning)
        }
    }
}
