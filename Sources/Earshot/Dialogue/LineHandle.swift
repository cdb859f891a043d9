/// A line said with ``AudioEngine/say(_:by:)``: await ``finished``, or ``stop()`` or ``skip()`` it.
///
/// ```swift
/// let line = try engine.say("intro.guard.01")
/// print(line.locale, line.text)
/// line.skip()
/// let outcome = await line.finished   // .skipped
/// ```
public final class LineHandle: Sendable {
    /// The engine-wide number of this line (``SubtitleEvent``s carry it).
    public let id: UInt64
    /// The line's key.
    public let key: String
    /// The speaker's name.
    public let speaker: String
    /// The locale whose file plays.
    public let locale: String
    /// The subtitle text.
    public let text: String
    /// The file that plays.
    public let path: String
    /// Set when the file is a fallback's: "intro.guard.01: no fr-CA or fr file, playing en".
    public let warning: String?

    private struct State {
        var outcome: LineOutcome?
        var waiters: [CheckedContinuation<LineOutcome, Never>] = []
    }
    private let state = Locked(State())
    private weak let system: DialogueSystem?

    init(id: UInt64, resolved: ResolvedLine, warning: String?, system: DialogueSystem) {
        self.id = id
        key = resolved.line.key
        speaker = resolved.line.speaker
        locale = resolved.locale
        text = resolved.text
        path = resolved.path
        self.warning = warning
        self.system = system
    }

    /// How the line ended, once it has (``LineOutcome``); returns at once if it already has.
    public var finished: LineOutcome {
        get async {
            await withCheckedContinuation { (c: CheckedContinuation<LineOutcome, Never>) in
                let now = state.withLock { s -> LineOutcome? in
                    if let o = s.outcome { return o }
                    s.waiters.append(c)
                    return nil
                }
                if let now { c.resume(returning: now) }
            }
        }
    }

    /// The outcome so far (nil while queued or playing).
    public var outcome: LineOutcome? { state.withLock { $0.outcome } }

    /// Ends the line now with a short fade (``DialogueTable/cutFade``), or takes it out of its
    /// speaker's queue; its subtitle hides. Nothing once it has ended.
    public func stop() { system?.end(id, as: .stopped) }

    /// As ``stop()``, for a player's "skip": the speaker's next line starts at once.
    public func skip() { system?.end(id, as: .skipped) }

    /// Sets the outcome once and wakes every waiter; false if it was already set.
    @discardableResult
    func resolve(_ outcome: LineOutcome) -> Bool {
        let waiters = state.withLock { s -> [CheckedContinuation<LineOutcome, Never>]? in
            guard s.outcome == nil else { return nil }
            s.outcome = outcome
            defer { s.waiters = [] }
            return s.waiters
        }
        guard let waiters else { return false }
        for w in waiters { w.resume(returning: outcome) }
        return true
    }
}
