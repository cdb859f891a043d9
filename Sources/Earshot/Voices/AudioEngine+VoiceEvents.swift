extension AudioEngine {
    /// Ended voices, as they end (delivered after `update` and `render`).
    ///
    /// Every read returns a new stream, and every stream sees every event: two consumers each
    /// get all of them. A consumer that falls behind keeps its newest 1024 events; older ones
    /// drop, for it alone. A stream whose consumer stops (its loop breaks, its task is cancelled)
    /// is forgotten. ``shutdown()`` finishes every stream — a `for await` loop ends after the
    /// events already buffered — and a stream read after shutdown is finished at once.
    ///
    /// ```swift
    /// Task {
    ///     for await event in engine.voiceEvents where event.reason == .finished {
    ///         print("a voice finished")
    ///     }
    ///     print("the engine was shut down")
    /// }
    /// ```
    public var voiceEvents: AsyncStream<VoiceEvent> { voiceEventBroadcast.stream() }

    /// Calls `observer` for every ended voice (as ``voiceEvents`` carries them), on the thread that
    /// calls ``update(deltaTime:)`` or ``render(frames:)``, right after it — before the next render:
    /// what a synchronous game loop or a scene player reacts to in the same frame. Until
    /// ``shutdown()``. The observer must not block; it may call the engine.
    ///
    /// ```swift
    /// engine.observeVoiceEvents { event in
    ///     if event.reason == .finished { print("ended at \(event.audioTime) s of output") }
    /// }
    /// ```
    public func observeVoiceEvents(_ observer: @escaping @Sendable (VoiceEvent) -> Void) {
        voiceEventBroadcast.observe(observer)
    }

    /// Hands ended voices to the event streams, outside the AL lock. Called by `update` and
    /// `render` when their pass left ended voices behind.
    func deliverVoiceEvents() {
        var awaited: [(id: VoiceID, reason: VoiceEndReason)] = []
        defer { completions.resume(awaited) }   // the tasks awaiting `finished`, outside the lock
        guard voiceEventBroadcast.hasConsumers else {
            // Nobody listens: drop the records so they cannot pile up.
            withAL {
                core.pool.drainEnded { _, _, _, _ in }
                awaited = core.pool.takeAwaitedEnds()
            }
            return
        }
        var ended: [VoiceEvent] = []
        withAL {
            // Engine clock to audio clock: they differ by the time the output was held so far.
            let audioNow = core.audioTime()
            let held = core.now - audioNow
            core.pool.drainEnded { id, reason, key, time in
                ended.append(VoiceEvent(voice: Voice(engine: self, id: id), reason: reason,
                                        sound: core.sounds.sound(forKey: key),
                                        audioTime: max(0, min(audioNow, time - held))))
            }
            awaited = core.pool.takeAwaitedEnds()
        }
        voiceEventBroadcast.send(ended)
    }

    /// What ``Voice/finished`` waits on: the voice's end reason once it ends (at once when it has
    /// ended already; nil when it ended so long ago that its slot has ended another voice
    /// since), ``VoiceEndReason/engineShutDown`` when the engine shuts down first.
    func finished(_ voice: Voice) async -> VoiceEndReason? {
        guard voice.link === link else { return nil }
        if voice.id == .refused { return .refused }
        return await withCheckedContinuation { (continuation: CheckedContinuation<VoiceEndReason?, Never>) in
            let now: VoiceEndReason?? = withAL {
                guard !core.isShutDown else { return .some(.engineShutDown) }
                if core.timelines.awaitEnd(voice.id) {   // a timeline's whole (Timelines/)
                    return completions.register(voice.id, continuation) ? .none : .some(.engineShutDown)
                }
                switch core.pool.awaitEnd(voice.id) {
                case .ended(let reason):
                    return .some(reason)
                case .live:
                    // Filed inside the AL lock: the voice cannot end before its waiter is known.
                    return completions.register(voice.id, continuation) ? .none : .some(.engineShutDown)
                }
            }
            if let reason = now { continuation.resume(returning: reason) }
        }
    }
}
