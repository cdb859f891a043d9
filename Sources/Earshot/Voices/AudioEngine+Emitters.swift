extension AudioEngine {
    // MARK: Emitters

    /// Runs `body` under the AL lock with a live emitter's index; nil (and `body` not run) for
    /// another engine's emitter, a removed one, or after shutdown.
    func withIndex<T>(of emitter: Emitter, _ body: (Int) -> T) -> T? {
        guard emitter.link === link else { return nil }
        return withAL {
            guard !core.isShutDown, let i = core.pool.emitterIndex(emitter.id) else { return nil }
            return body(i)
        }
    }

    /// A setter's change of `emitter` by its index, when the new value is `valid`: invalid values
    /// and stale handles are ignored, never passed to OpenAL.
    func change(_ emitter: Emitter, if valid: Bool, _ body: (Int) -> Void) {
        guard valid else { return }
        withIndex(of: emitter, body)
    }

    /// Creates an emitter with `properties` (invalid values throw ``EarshotError/invalidArgument(_:)``).
    public func makeEmitter(_ properties: SpatialProperties = SpatialProperties()) throws(EarshotError) -> Emitter {
        guard properties.isValid else { throw .invalidArgument("emitter properties \(properties)") }
        let id = try withAL { () throws(EarshotError) -> EmitterID in
            guard !core.isShutDown else { throw .engineShutDown }
            return core.pool.makeEmitter(properties)
        }
        return Emitter(engine: self, id: id)
    }

    /// Removes an emitter; voices following it stop with the steal fade. A stale handle does nothing.
    public func removeEmitter(_ emitter: Emitter) {
        withIndex(of: emitter) { core.pool.removeEmitter($0) }
    }

    /// An emitter's properties, or nil once removed.
    public func properties(of emitter: Emitter) -> SpatialProperties? {
        withIndex(of: emitter) { core.pool.emitterProperties($0) }
    }

    /// Replaces an emitter's properties (invalid values are ignored).
    public func setProperties(_ properties: SpatialProperties, of emitter: Emitter) {
        change(emitter, if: properties.isValid) { core.pool.setEmitter($0, properties) }
    }

    /// Moves an emitter (non-finite positions are ignored).
    public func setPosition(_ position: Vector3, of emitter: Emitter) {
        change(emitter, if: position.isFinite) { core.pool.setEmitterPosition($0, position) }
    }

    /// Runs `body` with one lock held for many emitter and voice moves: the way to move thousands
    /// of emitters per frame.
    ///
    /// ```swift
    /// let crowd = try (0..<1_000).map { _ in try engine.makeEmitter(SpatialProperties()) }
    /// let positions = (0..<1_000).map { Vector3(Float($0 % 40), 0, -Float($0 / 40)) }
    /// engine.batch { frame in
    ///     for (emitter, p) in zip(crowd, positions) { frame.setPosition(p, of: emitter) }
    /// }
    /// ```
    ///
    /// The ``Batch`` is valid only inside `body`, while the lock is held: one kept and used after
    /// `batch` returned would touch the engine without its lock, so that use traps
    /// (a precondition on the batch's validity, checked by every method).
    public func batch<R>(_ body: (inout Batch) throws -> R) rethrows -> R {
        try withAL {
            // An odd epoch marks the batch open; closing it makes every copy of it invalid.
            core.batchEpoch &+= 1
            defer { core.batchEpoch &+= 1 }
            var b = Batch(core: core, link: link, epoch: core.batchEpoch)
            return try body(&b)
        }
    }

    /// Changes made inside ``AudioEngine/batch(_:)``; only valid inside that call.
    ///
    /// Using a batch after its `batch { }` call returned is a programmer error and traps.
    public struct Batch {
        let core: EngineCore
        /// The engine's link: handles of another engine are ignored like stale ones.
        let link: EngineLink
        let epoch: UInt64

        /// Whether this batch's `batch { }` call is still running (its lock held).
        var isValid: Bool { core.batchEpoch == epoch }

        @inline(__always)
        private func checkValid() {
            precondition(isValid, "an AudioEngine.Batch was used after its batch { } call returned")
        }

        /// Moves an emitter (non-finite positions and stale handles are ignored).
        public mutating func setPosition(_ position: Vector3, of emitter: Emitter) {
            checkValid()
            guard position.isFinite, emitter.link === link, !core.isShutDown,
                  let i = core.pool.emitterIndex(emitter.id) else { return }
            core.pool.setEmitterPosition(i, position)
        }

        /// Moves an emitter and sets its velocity (for the Doppler effect): non-finite values and
        /// stale handles are ignored. An unchanged velocity costs what a plain move costs.
        public mutating func setPosition(_ position: Vector3, velocity: Vector3, of emitter: Emitter) {
            checkValid()
            guard position.isFinite, velocity.isFinite, emitter.link === link, !core.isShutDown,
                  let i = core.pool.emitterIndex(emitter.id) else { return }
            core.pool.setEmitterPosition(i, position, velocity: velocity)
        }

        /// Replaces an emitter's spatial properties (invalid ones and stale handles are ignored).
        public mutating func setProperties(_ properties: SpatialProperties, of emitter: Emitter) {
            checkValid()
            guard properties.isValid, emitter.link === link, !core.isShutDown,
                  let i = core.pool.emitterIndex(emitter.id) else { return }
            core.pool.setEmitter(i, properties)
        }

        /// Moves a positioned voice (non-finite positions and stale handles are ignored).
        public mutating func setPosition(_ position: Vector3, of voice: Voice) {
            checkValid()
            guard position.isFinite, voice.link === link, !core.isShutDown else { return }
            core.pool.setPosition(voice.id, position)
        }
    }
}
