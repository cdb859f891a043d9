/// Hands every event to every consumer: each call of ``stream()`` returns a stream of its own
/// that sees every event sent after it was made, with a bounded buffer of its own.
///
/// The engine's streams (``AudioEngine/voiceEvents``, ``AudioEngine/deviceEvents``,
/// ``AudioEngine/markers``, ``AudioSession/events``) are made here, and those of the package's
/// other targets (a sound bank's events). ``finish()`` (the engine's ``AudioEngine/shutdown()``)
/// ends every stream — a `for await` loop over one ends — and a stream asked for afterwards is
/// already finished. A consumer that falls behind loses its own oldest events once `capacity`
/// are waiting (`bufferingNewest`); the others are not affected. A stream whose consumer stops
/// (its loop breaks, its task is cancelled, it is released) is forgotten at once.
///
/// Observers (closures) registered with ``observe(_:)`` are called for every event on the thread
/// that sends it, outside the broadcaster's lock, until ``finish()``.
package final class EventBroadcast<Event: Sendable>: Sendable {
    private struct State {
        var finished = false
        var next: UInt64 = 0
        var streams: [UInt64: AsyncStream<Event>.Continuation] = [:]
        var observers: [(token: UInt64, call: @Sendable (Event) -> Void)] = []
    }

    private let state = Locked<State>(State())
    /// Events a stream keeps for a consumer that has not read them; then its oldest drop.
    let capacity: Int

    package init(capacity: Int) {
        precondition(capacity > 0, "EventBroadcast needs room for at least one event")
        self.capacity = capacity
    }

    /// A new stream that sees every event sent from now on (finished already after ``finish()``).
    package func stream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(capacity))
        let token = state.withLock { s -> UInt64? in
            guard !s.finished else { return nil }
            s.next &+= 1
            s.streams[s.next] = continuation
            return s.next
        }
        guard let token else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            // Called by finish() too (under no lock of ours: finish() ends the streams after
            // letting go of it).
            let removed = self?.state.withLock { $0.streams.removeValue(forKey: token) }
            _ = removed   // released here, outside the lock
        }
        return stream
    }

    /// Calls `call` for every event until ``finish()`` (or ``removeObserver(_:)`` with the token
    /// returned; nil after ``finish()``).
    @discardableResult
    func observe(_ call: @escaping @Sendable (Event) -> Void) -> UInt64? {
        state.withLock { s in
            guard !s.finished else { return nil }
            s.next &+= 1
            s.observers.append((s.next, call))
            return s.next
        }
    }

    /// Forgets the observer `observe` returned `token` for (the monitor's, while no client listens).
    func removeObserver(_ token: UInt64) {
        let removed = state.withLock { s in
            s.observers.firstIndex { $0.token == token }.map { s.observers.remove(at: $0) }
        }
        _ = removed   // released here, outside the lock
    }

    /// Whether anybody would receive an event (a stream or an observer).
    var hasConsumers: Bool { state.withLock { !$0.streams.isEmpty || !$0.observers.isEmpty } }

    /// Streams still open (consumers that have not stopped) plus observers, for tests.
    var consumerCount: Int { state.withLock { $0.streams.count + $0.observers.count } }

    /// Hands `event` to every stream and observer; nothing after ``finish()``. Returns whether it
    /// was sent (false: finished).
    @discardableResult
    package func send(_ event: Event) -> Bool {
        send([event])
    }

    /// Hands `events`, in order, to every stream and observer.
    @discardableResult
    package func send(_ events: [Event]) -> Bool {
        // Yielding under the lock keeps the order the same for every stream and makes finish()
        // a clean cut: an event is either in a stream before its end or nowhere.
        let observers = state.withLock { s -> [(token: UInt64, call: @Sendable (Event) -> Void)]? in
            guard !s.finished else { return nil }
            for continuation in s.streams.values {
                for event in events { continuation.yield(event) }
            }
            return s.observers
        }
        guard let observers else { return false }
        for observer in observers {
            for event in events { observer.call(event) }
        }
        return true
    }

    /// Ends every stream (each consumer reads what is buffered, then its loop ends) and drops the
    /// observers; later streams are finished at once and later events dropped. Idempotent.
    package func finish() {
        let ending = state.withLock { s -> [AsyncStream<Event>.Continuation] in
            guard !s.finished else { return [] }
            s.finished = true
            let all = Array(s.streams.values)
            s.observers = []
            return all
        }
        for continuation in ending { continuation.finish() }
    }
}
