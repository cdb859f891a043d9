import Earshot

// The mix of a scene at run time: its buses' sidechain ducking and its snapshots.
extension SceneRuntime {
    /// Makes the scene's snapshots and sets every `ducks:` of its buses.
    func applyMixSettings() throws(EarshotError) {
        for s in scene.snapshots {
            var gains: [Bus: Double] = [:]
            for (bus, db) in s.gains { gains[Bus(bus)] = db }
            var filters: [Bus: LowPassFilter] = [:]
            for (bus, filter) in s.filters { filters[Bus(bus)] = filter }
            mixSnapshots[s.id] = Snapshot(s.id, busGains: gains, busFilters: filters)
        }
        for b in scene.buses {
            for d in b.ducks {
                let ducking = Ducking(level: d.level, attack: d.attack, release: d.release, threshold: d.threshold, hold: d.hold)
                try engine.setDucking(ducking, of: Bus(d.target), by: Bus(b.name))
            }
        }
    }

    /// A `snapshot:` event.
    func runSnapshot(_ id: String, begins: Bool, fade: Double, intensity: Float) throws(EarshotError) {
        guard let snapshot = mixSnapshots[id] else {
            preconditionFailure("scene snapshot \(id) was validated but not made")  // trap: parser invariant
        }
        if begins {
            try engine.begin(snapshot, fade: fade, intensity: intensity)
        } else {
            engine.end(snapshot, fade: fade)
        }
    }
}
