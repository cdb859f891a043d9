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

    /// Every `play:` with an `offset:` or `loops:` fits each clip it may play (a sound's: all of
    /// them), checked before anything plays: a scene whose seed picks the short clip must not
    /// fail half-way through its render.
    func checkPlayTiming(clips: [String: Clip], sounds: [String: Sound]) throws(EarshotError) {
        for e in scene.events {
            guard case .play(let p) = e.action, p.offset > 0 || p.loops > 0 else { continue }
            let candidates = sounds[p.id].map(\.definition.clips) ?? clips[p.id].map { [$0] } ?? []
            for clip in candidates {
                if p.offset * Double(clip.info.sampleRate) >= Double(clip.info.frameCount) {
                    throw .invalidScene(file: scene.file, line: e.line, column: 1, key: "play.offset",
                                        reason: "offset \(p.offset) s is not inside \(clip.info.name) (\(clip.info.duration) s)")
                }
                if clip.info.frameCount * (p.loops + 1) > Int(Int32.max) {
                    throw .invalidScene(file: scene.file, line: e.line, column: 1, key: "play.loops",
                                        reason: "\(p.loops + 1) passes of \(clip.info.name) exceed OpenAL's 2³¹ frames")
                }
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
