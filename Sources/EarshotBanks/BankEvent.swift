import Earshot
import EarshotScenes
import Foundation

/// What happened to a ``SoundBank`` after it loaded: a reload that took effect, or an edit that
/// was refused (the bank stays as it was). Delivered on ``SoundBank/events``.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine, watch: true)
/// Task {
///     for await event in bank.events {
///         print(event)   // "reloaded …" or "FILE:LINE:COLUMN: key: reason"
///     }
/// }
/// ```
public enum BankEvent: Sendable, Equatable, CustomStringConvertible {
    /// The bank file (or a bank it includes) was read again and is in force: what changed, as
    /// entry keys (`sounds.footstep`, `buses.sfx`, `snapshots.pause`, …).
    case reloaded(BankChanges)
    /// An edit was refused: the problems (each `FILE:LINE:COLUMN: key: reason`, or the engine's
    /// refusal); the bank keeps what it had.
    case rejected(BankError)

    public var description: String {
        switch self {
        case .reloaded(let c): return "reloaded \(c)"
        case .rejected(let e): return e.description
        }
    }
}

/// The entries a reload added, changed and removed, as keys (`sounds.footstep`), each sorted.
public struct BankChanges: Sendable, Equatable, CustomStringConvertible {
    public var added: [String] = []
    public var changed: [String] = []
    public var removed: [String] = []

    public init(added: [String] = [], changed: [String] = [], removed: [String] = []) {
        self.added = added
        self.changed = changed
        self.removed = removed
    }

    /// Whether the reload changed nothing.
    public var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }

    public var description: String {
        if isEmpty { return "(nothing changed)" }
        var parts: [String] = []
        if !added.isEmpty { parts.append("added " + added.joined(separator: ", ")) }
        if !changed.isEmpty { parts.append("changed " + changed.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

/// Hands every bank event to every consumer: each ``stream()`` sees every event sent after it
/// was made (its own buffer of 64; a consumer that falls behind loses its oldest). ``finish()``
/// ends them all; a stream asked for afterwards is finished at once.
final class BankEventBroadcast: Sendable {
    private struct State {
        var finished = false
        var next: UInt64 = 0
        var streams: [UInt64: AsyncStream<BankEvent>.Continuation] = [:]
    }
    // NSLock: a pthread mutex (ThreadSanitizer understands it). Never held while calling out.
    private let lock = NSLock()
    nonisolated(unsafe) private var state = State()

    func stream() -> AsyncStream<BankEvent> {
        let (stream, continuation) = AsyncStream<BankEvent>.makeStream(bufferingPolicy: .bufferingNewest(64))
        lock.lock()
        let token: UInt64? = state.finished ? nil : { state.next &+= 1; state.streams[state.next] = continuation; return state.next }()
        lock.unlock()
        guard let token else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.lock()
            let removed = self.state.streams.removeValue(forKey: token)
            self.lock.unlock()
            _ = removed
        }
        return stream
    }

    func send(_ event: BankEvent) {
        lock.lock()
        let targets = state.finished ? [] : Array(state.streams.values)
        lock.unlock()
        for c in targets { c.yield(event) }
    }

    func finish() {
        lock.lock()
        let targets = state.finished ? [] : Array(state.streams.values)
        state.finished = true
        state.streams = [:]
        lock.unlock()
        for c in targets { c.finish() }
    }

    var isFinished: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state.finished
    }
}
