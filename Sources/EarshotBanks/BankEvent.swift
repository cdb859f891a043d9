import Earshot
import EarshotContent
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
    /// The bank file (or a bank it includes) was read again and accepted: what changed, as entry
    /// keys (`sounds.footstep`, `buses.sfx`, `snapshots.pause`, …). In force at once after
    /// ``SoundBank/reload()``; for a watched save, from the game's next `update` (or the bank's
    /// next call).
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
