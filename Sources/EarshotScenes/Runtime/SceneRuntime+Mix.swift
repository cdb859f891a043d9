import Earshot

// The mix of a scene at run time: its buses' sidechain ducking and its snapshots.
extension SceneRuntime {
    /// Makes the scene's snapshots and sets every `ducks:` of its buses.
    func applyMixSettings() throws(EarshotError) {
        for s in scene.snapshots { mixSnapshots[s.id] = s.snapshot }
        for b in scene.buses {
            for d in b.ducks { try engine.setDucking(d.ducking, of: Bus(d.target), by: Bus(b.name)) }
        }
    }

    /// Every `play:` with an `offset:` or `loops:` fits each clip it may play (a sound's: all of
    /// them) as loaded, checked before anything plays by the engine's own rule
    /// (``PlayResolver/startFrame(offset:clipFrames:sampleRate:clipName:)``,
    /// ``PlayResolver/checkPasses(loopCount:clipFrames:clipName:)``): a scene whose seed picks the
    /// short clip must not fail half-way through its render. `validate` checks the same against
    /// the clips' headers; this catches a clip whose header states no length, or that changed
    /// since. Its error names the event's line.
    func checkPlayTiming(clips: [String: Clip]) throws(EarshotError) {
        let soundClips = Dictionary(scene.sounds.map { ($0.id, $0.clips) }, uniquingKeysWith: { first, _ in first })
        for e in scene.events + scene.followUps.map(\.event) {
            guard case .play(let p) = e.action, p.offset > 0 || p.loops > 0 else { continue }
            for id in soundClips[p.id] ?? [p.id] {
                guard let info = clips[id]?.info else { continue }
                let name = "clip \(id)"   // as validate names it
                do throws(EarshotError) {
                    _ = try PlayResolver.startFrame(
                        offset: p.offset, clipFrames: info.frameCount, sampleRate: info.sampleRate, clipName: name)
                    try PlayResolver.checkPasses(loopCount: p.loops, clipFrames: info.frameCount, clipName: name)
                } catch {
                    throw .invalidArgument("\(scene.file):\(e.line): the play of \(p.id): \(SceneParser.reason(error))")
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
