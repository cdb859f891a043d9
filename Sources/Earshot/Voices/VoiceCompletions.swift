/// The tasks awaiting voices' ends (``Voice/finished``): an ``EngineSubsystem`` that resumes each
/// with its voice's end reason when the engine delivers the ends (after the update or render
/// that saw them), and every one still waiting with ``VoiceEndReason/engineShutDown`` at shutdown.
///
/// Its lock is a leaf: registering runs inside the AL lock (so that a voice cannot end between
/// being marked awaited and its waiter being filed), resuming outside every lock.
///
/// ```swift
/// let waiters = VoiceCompletions()
/// assert(waiters.waitingCount == 0)
/// ```
final class VoiceCompletions: EngineSubsystem {
    private struct State {
        var waiting: [VoiceID: [CheckedContinuation<VoiceEndReason?, Never>]] = [:]
        var finished = false
    }
    private let state = Locked(State())

    /// Tasks waiting now.
    var waitingCount: Int { state.withLock { $0.waiting.values.reduce(0) { $0 + $1.count } } }

    /// Files `continuation` under voice `id`; false (nothing filed) once the engine shuts down.
    func register(_ id: VoiceID, _ continuation: CheckedContinuation<VoiceEndReason?, Never>) -> Bool {
        state.withLock { s in
            guard !s.finished else { return false }
            s.waiting[id, default: []].append(continuation)
            return true
        }
    }

    /// Resumes the waiters of each ended voice with its reason (no lock held).
    func resume(_ ends: [(id: VoiceID, reason: VoiceEndReason)]) {
        guard !ends.isEmpty else { return }
        let ready = state.withLock { s in
            ends.flatMap { end in (s.waiting.removeValue(forKey: end.id) ?? []).map { ($0, end.reason) } }
        }
        for (continuation, reason) in ready { continuation.resume(returning: reason) }
    }

    /// Every waiter resumes with ``VoiceEndReason/engineShutDown``; later ones at once.
    func shutdown(_ engine: AudioEngine) {
        let all = state.withLock { s in
            s.finished = true
            defer { s.waiting = [:] }
            return s.waiting.values.flatMap { $0 }
        }
        for continuation in all { continuation.resume(returning: .engineShutDown) }
    }
}
