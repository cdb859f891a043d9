/// The bus tree: group buses over other buses (see ``Bus``).
extension AudioEngine {
    /// Adds a bus as a child of the group bus `parent`: the group's gain, mute, pause, snapshots,
    /// ducking, filter and VCAs apply to it too (its effective gain is the product along its
    /// path), ``stopAll(on:)`` and ``setPaused(_:for:)`` on the group reach it, and its voices
    /// send to the group's effect when it has none of its own.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` when the name is taken or not valid (see
    /// ``Bus/validate()``), the parent does not exist, or the path would hold more than
    /// ``Bus/maxTreeDepth`` buses; ``EarshotError/engineShutDown`` after ``shutdown()``. Nothing
    /// changes then.
    ///
    /// ```swift
    /// let gameplay = Bus("gameplay"), footsteps = Bus("footsteps")
    /// try engine.addBus(gameplay)
    /// try engine.addBus(footsteps, parent: gameplay)
    /// try engine.setGain(0.5, for: gameplay)   // footsteps too: 0.5 × its own gain
    /// ```
    public func addBus(_ bus: Bus, parent: Bus) throws(EarshotError) {
        try bus.validate()
        try changingBuses { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            let p = try core.requireBus(parent)
            guard core.busTable.depth(of: p) < Bus.maxTreeDepth else {
                throw .invalidArgument(
                    "bus \"\(bus.name)\" under \"\(parent.name)\" would be deeper than \(Bus.maxTreeDepth) buses")
            }
            guard core.addBus(bus, parent: p) else { throw .invalidArgument("a bus named \"\(bus.name)\" exists") }
        }
    }

    /// Moves `bus` under the group bus `parent` (nil: under the master, as every built-in bus
    /// starts). Its voices and tracks take the new path's level and holds at once.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have, a parent
    /// that is the bus itself or below it (the tree would have a cycle), or a path deeper than
    /// ``Bus/maxTreeDepth``; ``EarshotError/engineShutDown`` after ``shutdown()``. Nothing
    /// changes then.
    ///
    /// ```swift
    /// let gameplay = Bus("gameplay")
    /// try engine.addBus(gameplay)
    /// try engine.setParent(gameplay, of: .sfx)   // the built-in sfx bus is now in the group
    /// ```
    public func setParent(_ parent: Bus?, of bus: Bus) throws(EarshotError) {
        try changingBuses { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            let i = try core.requireBus(bus)
            let p = try parent.map { p throws(EarshotError) in try core.requireBus(p) } ?? -1
            guard core.busTable.parents[i] != p else { return }
            try core.setBusParent(p, at: i)
        }
    }

    /// The group bus `bus` is a child of, nil for a child of the master. Throws
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    ///
    /// ```swift
    /// let group = try engine.parent(of: .sfx)   // nil: sfx is under the master
    /// ```
    public func parent(of bus: Bus) throws(EarshotError) -> Bus? {
        try withAL { () throws(EarshotError) -> Bus? in
            let p = core.busTable.parents[try core.requireBus(bus)]
            return p >= 0 ? core.busTable.buses[p] : nil
        }
    }

    /// The buses directly under `bus` (nil: under the master), in the order they were added.
    /// Throws ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    ///
    /// ```swift
    /// let top = try engine.children(of: nil)   // [sfx, music, ui, voice, ambience] and any added at the top
    /// ```
    public func children(of bus: Bus?) throws(EarshotError) -> [Bus] {
        try withAL { () throws(EarshotError) -> [Bus] in
            let p = try bus.map { b throws(EarshotError) in try core.requireBus(b) } ?? -1
            let t = core.busTable
            return t.parents.indices.filter { t.parents[$0] == p }.map { t.buses[$0] }
        }
    }
}
