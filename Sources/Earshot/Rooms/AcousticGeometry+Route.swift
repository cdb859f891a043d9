/// The way sound takes through a geometry, for tools that draw it (a plot's map) without an engine.
extension AcousticGeometry {
    /// The way from `emitter` to `listener` with the portals' openness as set, as the engine
    /// would hear it (with the default distance model and curve): its points, the emitter first,
    /// the listener last — through each opening it crosses when the portals carry it, the
    /// straight line when the two share a room or only the walls do. Empty for an invalid geometry.
    ///
    /// ```swift
    /// let g = AcousticGeometry(
    ///     rooms: [Room(id: "a", min: Vector3(-10, 0, -5), max: Vector3(0, 3, 5)),
    ///             Room(id: "b", min: Vector3(0, 0, -5), max: Vector3(10, 3, 5))],
    ///     portals: [Portal(id: "door", between: "a", and: "b", center: Vector3(0, 1, 3), width: 1, height: 2,
    ///                      normal: Vector3(1, 0, 0))])
    /// let way = g.route(from: Vector3(5, 1, 0), to: Vector3(-5, 1, 0))   // 3 points: through the door post
    /// ```
    public func route(from emitter: Vector3, to listener: Vector3) -> [Vector3] {
        guard emitter.isFinite, listener.isFinite, (try? validated()) != nil else { return [] }
        let p = Propagator(self)
        let lr = p.lookup.room(at: listener), er = p.lookup.room(at: emitter)
        p.prepare(listener: listener, room: lr)
        let r = p.propagate(emitter, room: er, listener: listener, room: lr) { at in
            1 / max(1, (at - listener).length)
        }
        guard r.kind == .portals else { return [emitter, listener] }
        return [emitter] + p.tracedPoints + [listener]
    }
}
