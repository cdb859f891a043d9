/// Several listeners (split screen): see <doc:SeveralListeners>.
extension AudioEngine {
    /// The most listeners an engine has at once.
    public static let maxListeners = ListenerTable.maxListeners

    /// Every listener, the first (``listener``, OpenAL's) first. Each voice is heard from its
    /// nearest listener (weights and the hand-over: <doc:SeveralListeners>); one mix, one source
    /// per voice.
    ///
    /// Setting replaces them all (1…``maxListeners``; the first stays the first and the others
    /// keep their ``ListenerID``s in order); an empty list, too many or an invalid listener is
    /// ignored and logged, as ``listener`` does — ``setListeners(_:)`` throws instead.
    ///
    /// ```swift
    /// engine.listeners = [Listener(position: Vector3(-50, 0, 0)), Listener(position: Vector3(50, 0, 0))]
    /// ```
    public var listeners: [Listener] {
        get { withAL { core.listeners.listeners } }
        set {
            do throws(EarshotError) {
                try setListeners(newValue)
            } catch {
                logger.warning("ignored listeners: \(error.description)")
            }
        }
    }

    /// The handles of ``listeners``, in the same order (the first names ``listener``).
    public var listenerIDs: [ListenerID] {
        withAL { core.listeners.serials }.map { ListenerID(engine: self, id: $0) }
    }

    /// Replaces every listener (see ``listeners``). Throws ``EarshotError/invalidArgument(_:)``
    /// for none, more than ``maxListeners`` or an invalid one (``Listener/isValid``), and
    /// ``EarshotError/engineShutDown`` after shutdown.
    public func setListeners(_ all: [Listener]) throws(EarshotError) {
        guard (1...Self.maxListeners).contains(all.count) else {
            throw .invalidArgument("\(all.count) listeners (an engine has 1…\(Self.maxListeners))")
        }
        for (i, l) in all.enumerated() where !l.isValid {
            throw .invalidArgument("listener \(i + 1): \(l) (values finite, at and up not zero nor parallel, gain ≥ 0, weight 0…1)")
        }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            core.listeners.replaceAll(all, host: core)
        }
    }

    /// Adds a listener; its handle. Throws ``EarshotError/invalidArgument(_:)`` for an invalid
    /// listener or past ``maxListeners``, ``EarshotError/engineShutDown`` after shutdown.
    public func addListener(_ l: Listener) throws(EarshotError) -> ListenerID {
        guard l.isValid else { throw .invalidArgument("listener \(l)") }
        let serial = try withAL { () throws(EarshotError) -> UInt32 in
            guard !core.isShutDown else { throw .engineShutDown }
            return try core.listeners.add(l, host: core)
        }
        return ListenerID(engine: self, id: serial)
    }

    /// Removes a listener: the voices it heard are heard from the nearest of the others. The
    /// first listener cannot be removed (give it weight 0): ``EarshotError/invalidArgument(_:)``,
    /// as for a removed one; ``EarshotError/wrongEngine`` for another engine's handle.
    public func removeListener(_ id: ListenerID) throws(EarshotError) {
        try withListener(id) { () throws(EarshotError) in try core.listeners.remove(serial: id.id, host: core) }
    }

    /// Moves, turns or re-weights a listener (its position, velocity, orientation, gain —
    /// the first's only — and weight). Errors as ``removeListener(_:)``, and
    /// ``EarshotError/invalidArgument(_:)`` for an invalid listener.
    public func setListener(_ l: Listener, for id: ListenerID) throws(EarshotError) {
        guard l.isValid else { throw .invalidArgument("listener \(l)") }
        try withListener(id) { () throws(EarshotError) in try core.listeners.set(l, serial: id.id, host: core) }
    }

    /// A listener's values. Errors as ``removeListener(_:)``.
    public func listener(_ id: ListenerID) throws(EarshotError) -> Listener {
        try withListener(id) { () throws(EarshotError) -> Listener in
            guard let l = core.listeners.listener(serial: id.id) else { throw ListenerTable.removed }
            return l
        }
    }

    /// Runs `body` under the AL lock for a handle of this engine, before shutdown.
    private func withListener<T>(_ id: ListenerID, _ body: () throws(EarshotError) -> T) throws(EarshotError) -> T {
        guard id.link === link else { throw .wrongEngine }
        return try withAL { () throws(EarshotError) -> T in
            guard !core.isShutDown else { throw .engineShutDown }
            return try body()
        }
    }
}
