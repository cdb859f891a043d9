import Earshot

/// A scene's ambisonic beds (`beds:`): opened with the scene, played, stopped and turned by its
/// bed events (the parser adds a play at each bed's `start:`).
extension SceneRuntime {
    /// Opens every bed of the scene (nothing plays yet).
    func loadBeds() throws(EarshotError) {
        for b in scene.beds {
            beds[b.id] = try engine.openBed(path: b.path, options: b.options)
            bedVolumes[b.id] = b.volume
        }
    }

    /// Runs a bed event.
    func run(bed id: String, _ action: SceneBedAction) throws(EarshotError) {
        guard let bed = beds[id] else {
            preconditionFailure("scene bed \(id) was validated but not opened")  // trap: parser invariant
        }
        let volume = bedVolumes[id] ?? 1
        switch action {
        case .play(let fade):
            if bed.isPlaying {
                bed.fade(to: volume, duration: fade)
            } else {
                if fade > 0 { bed.fade(to: 0, duration: 0) }
                try bed.play()
                bed.fade(to: volume, duration: fade)
            }
        case .stop(let fade):
            if bed.isPlaying { bed.fade(to: 0, duration: max(fade, 0.02), stopsAtEnd: true) } else { bed.stop() }
        case .yaw(let degrees, let ramp):
            bed.setYaw(degrees, ramp: ramp)
        }
    }
}
