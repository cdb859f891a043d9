/// Rooms, portals and walls: the level's acoustic geometry (see the "Rooms and portals" article).
extension AudioEngine {
    /// The geometry in use (portals' openness at their targets); empty when none is set.
    public var geometry: AcousticGeometry {
        withAL { core.isShutDown ? .empty : core.rooms.geometry }
    }

    /// Replaces the level's rooms and portals at once (``AcousticGeometry/empty``: none, every
    /// voice heard as in a free field again). Checked first (``AcousticGeometry/validated()``):
    /// a bad geometry throws ``EarshotError/invalidArgument(_:)`` and changes nothing, as does
    /// an ``EarshotError/openAL(operation:code:)`` when the rooms' reverbs find no effect slot
    /// (`AL_OUT_OF_MEMORY`); after ``shutdown()`` it throws ``EarshotError/engineShutDown``. The next ``update(deltaTime:)``
    /// hears every positioned voice through it.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// try engine.setGeometry(AcousticGeometry(
    ///     rooms: [Room(id: "west", min: Vector3(-10, 0, -5), max: Vector3(0, 3, 5)),
    ///             Room(id: "east", min: Vector3(0, 0, -5), max: Vector3(10, 3, 5), walls: .wood)],
    ///     portals: [Portal(id: "door", between: "west", and: "east", center: Vector3(0, 1, 3),
    ///                      width: 1, height: 2, normal: Vector3(1, 0, 0))]))
    /// try engine.setPortalOpenness("door", to: 0, ramp: 0.5)   // the door swings shut
    /// ```
    public func setGeometry(_ geometry: AcousticGeometry) throws(EarshotError) {
        let checked = try geometry.validated()
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            try install(checked)
        }
    }

    /// Adds a room, or replaces the one with its id (its walls destroyed, its reverb changed).
    public func setRoom(_ room: Room) throws(EarshotError) {
        try changeGeometry { g in
            if let i = g.rooms.firstIndex(where: { $0.id == room.id }) { g.rooms[i] = room } else { g.rooms.append(room) }
        }
    }

    /// Removes a room and the portals that join it; an unknown id throws ``EarshotError/invalidArgument(_:)``.
    public func removeRoom(_ id: String) throws(EarshotError) {
        try changeGeometry { g throws(EarshotError) in
            guard g.rooms.contains(where: { $0.id == id }) else { throw .invalidArgument("no room \"\(id)\"") }
            g.rooms.removeAll { $0.id == id }
            g.portals.removeAll { $0.roomA == id || $0.roomB == id }
        }
    }

    /// Adds a portal, or replaces the one with its id (its openness taken at once).
    public func setPortal(_ portal: Portal) throws(EarshotError) {
        try changeGeometry { g in
            if let i = g.portals.firstIndex(where: { $0.id == portal.id }) { g.portals[i] = portal } else { g.portals.append(portal) }
        }
    }

    /// Removes a portal; an unknown id throws ``EarshotError/invalidArgument(_:)``.
    public func removePortal(_ id: String) throws(EarshotError) {
        try changeGeometry { g throws(EarshotError) in
            guard g.portals.contains(where: { $0.id == id }) else { throw .invalidArgument("no portal \"\(id)\"") }
            g.portals.removeAll { $0.id == id }
        }
    }

    /// Opens or closes portal `id` to `openness` (0…1) over `ramp` seconds of playback (0: at
    /// once; the ramp stands still while nothing plays, as fades do). An unknown id, a value
    /// out of range or a negative or non-finite ramp throws ``EarshotError/invalidArgument(_:)``.
    public func setPortalOpenness(_ id: String, to openness: Float, ramp: Double = 0) throws(EarshotError) {
        guard openness.isFinite, (0...1).contains(openness) else {
            throw .invalidArgument("portal \(id): openness \(openness) must be 0…1")
        }
        guard ramp.isFinite, ramp >= 0, ramp <= 3600 else {
            throw .invalidArgument("portal \(id): ramp \(ramp) s must be 0…3600")
        }
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            guard let k = core.rooms.propagator?.geometry.portals.firstIndex(where: { $0.id == id }) else {
                throw .invalidArgument("no portal \"\(id)\"")
            }
            core.rooms.setOpenness(portal: k, openness, ramp: ramp)
        }
    }

    /// The curve of the loss where a path bends round a portal's edge (``DiffractionCurve``).
    /// An invalid curve is ignored.
    public var diffractionCurve: DiffractionCurve {
        get { withAL { core.rooms.curve } }
        set { if newValue.isValid { withAL { core.rooms.setCurve(newValue) } } }
    }

    /// The room holding `position` (the innermost); nil outside every room or with no geometry.
    public func room(at position: Vector3) -> String? {
        guard position.isFinite else { return nil }
        return withAL {
            guard !core.isShutDown, let p = core.rooms.propagator else { return nil }
            let r = p.lookup.room(at: position)
            return r < p.geometry.rooms.count ? p.geometry.rooms[r].id : nil
        }
    }

    /// How a positioned voice is heard through the rooms, as of the last ``update(deltaTime:)``;
    /// nil with no geometry, for a panned or ended voice, or before its first update.
    public func propagation(of voice: Voice) -> Propagation? {
        guard voice.link === link else { return nil }
        return withAL {
            guard !core.isShutDown, let slot = core.slot(of: voice.id) else { return nil }
            return core.rooms.propagation(ofSlot: slot, generation: voice.id.generation)
        }
    }

    /// One change of the geometry as a whole: read, changed, checked, set — or nothing.
    private func changeGeometry(_ change: (inout AcousticGeometry) throws(EarshotError) -> Void) throws(EarshotError) {
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            var g = core.rooms.geometry
            try change(&g)
            try install(try g.validated())
        }
    }

    /// Sets a checked geometry (AL lock held): the rooms' reverb zones first, as their effect
    /// slots are the one part that can fail (AL out of memory: it throws, nothing changed),
    /// then the rooms, which cannot.
    private func install(_ checked: AcousticGeometry) throws(EarshotError) {
        try core.environment.setRoomZones(RoomStage.reverbZones(of: checked), core: core)
        core.rooms.setGeometry(checked, capacity: core.voiceCapacity)
    }
}
