import Synchronization

/// Driving the ``EngineSubsystem``s: the list, subsystems attached later, and the bus changes the
/// core gathered, handed over outside the AL lock.
extension AudioEngine {
    /// Adds a subsystem after the engine's own (``subsystems``): from now on every hook reaches
    /// it too, after them. For parts of the package outside this target (designer banks, a
    /// monitor) that follow the engine's frames, renders, device and shutdown.
    ///
    /// Throws ``EarshotError/engineShutDown`` once ``shutdown()`` has begun (the subsystem would
    /// never hear its end).
    ///
    /// ```swift
    /// final class FrameCounter: EngineSubsystem {
    ///     let frames = Locked(0)
    ///     func endFrame(_ engine: AudioEngine, changes: BusChanges) { frames.withLock { $0 += 1 } }
    /// }
    /// try engine.attach(FrameCounter())
    /// ```
    package func attach(_ subsystem: any EngineSubsystem) throws(EarshotError) {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        guard !shutDownStarted.load(ordering: .acquiring) else { throw .engineShutDown }
        attachedSubsystems.withLock { $0.append(subsystem) }
        hasAttachedSubsystems.store(true, ordering: .releasing)
    }

    /// Removes a subsystem ``attach(_:)`` added (by identity; one not attached is ignored): its
    /// hooks are not called from the next one on. For parts that end before the engine (a bank
    /// unloaded).
    package func detach(_ subsystem: any EngineSubsystem) {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        let empty = attachedSubsystems.withLock { list -> Bool in
            list.removeAll { $0 === subsystem }
            return list.isEmpty
        }
        // None left: the hooks cost one atomic load again, as before the first attach.
        if empty { hasAttachedSubsystems.store(false, ordering: .releasing) }
    }

    /// Calls `body` on every subsystem in hook order: the engine's own, then the attached ones
    /// (read once, outside their lock while `body` runs). Until one is attached this is a loop
    /// over a constant array and one atomic load.
    @inline(__always)
    func eachSubsystem(_ body: (any EngineSubsystem) -> Void) {
        for subsystem in subsystems { body(subsystem) }
        guard hasAttachedSubsystems.load(ordering: .acquiring) else { return }
        for subsystem in attachedSubsystems.withLock({ $0 }) { body(subsystem) }
    }

    /// Runs `body` under the AL lock (as ``withAL(_:)``), then tells every subsystem how the
    /// buses changed meanwhile — a bus gain, a mute, a pause, a snapshot, a stop — so that, for
    /// one, music tracks on a bus take its new level in the same call. Every public bus setter
    /// goes through here; a change made in a plain `withAL` reaches the subsystems at the end of
    /// the next ``update(deltaTime:)``.
    ///
    /// Call it holding no lock (the subsystems take their own, then the AL lock).
    func changingBuses<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        ALGlobal.lock.assertNotHeld("changingBuses inside the AL lock: the subsystems take their locks before it")
        var changes = BusChanges()
        defer {
            if !changes.isEmpty { eachSubsystem { $0.busesChanged(self, changes) } }
        }
        return try withAL { () throws(E) -> R in
            defer { changes = core.takeBusChanges() }
            return try body()
        }
    }
}
