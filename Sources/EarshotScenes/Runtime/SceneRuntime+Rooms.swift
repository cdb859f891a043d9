import Earshot

/// The scene's rooms at run time: its geometry set at the start, its `portal:` events.
extension SceneRuntime {
    /// Hands the scene's rooms and portals to the engine (nothing when it has none).
    func startRooms() throws(EarshotError) {
        guard !scene.geometry.isEmpty else { return }
        try engine.setGeometry(scene.geometry)
    }

    /// `{ portal: ID, open: 0…1, ramp: s }`: the door swings in playback time.
    func runPortal(_ id: String, open: Float, ramp: Double) throws(EarshotError) {
        try engine.setPortalOpenness(id, to: open, ramp: ramp)
    }
}
