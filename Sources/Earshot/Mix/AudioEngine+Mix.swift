/// Snapshots: mix states begun and ended with a fade (see ``Snapshot`` for how they combine).
extension AudioEngine {
    /// Begins a snapshot: over `fade` seconds its weight ramps from 0 to `intensity`, linearly,
    /// and its bus gains and filters with it.
    ///
    /// Beginning a snapshot whose name is already active retargets it from where it is: its
    /// weight ramps from its present value to `intensity` over `fade` (an ending one is kept),
    /// its gains and filters become those of `snapshot` (at once, at the present weight), and it
    /// becomes the most recently begun (its filters lie on top).
    ///
    /// Fades run on the engine clock (samples rendered on a loopback engine), advanced by
    /// ``update(deltaTime:)`` and by each snapshot call, and stand still while an audio-session
    /// interruption holds the audio (``AudioSession/beginInterruption()``). A fade of 0 applies at
    /// once; music tracks take the ``Bus/music`` bus's new level at once as well.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for an empty name, a bus the engine does not
    /// have, a gain above +24 dB or NaN, filter gains outside 0…1, a fade that is negative or not
    /// finite, or an intensity outside 0…1; ``EarshotError/engineShutDown`` after ``shutdown()``.
    ///
    /// ```swift
    /// let combat = Snapshot("combat", busGains: [.music: 3, .ui: -6])
    /// try engine.begin(combat, fade: 2, intensity: 0.5)   // tension rises
    /// try engine.begin(combat, fade: 0.5)                 // the fight is on: full intensity
    /// ```
    public func begin(_ snapshot: Snapshot, fade: Double = 0, intensity: Float = 1) throws(EarshotError) {
        try snapshot.validate()
        try Self.checkFade(fade)
        try Self.checkIntensity(intensity)
        try changingBuses { () throws(EarshotError) in   // tracks take the level now
            guard !core.isShutDown else { throw .engineShutDown }
            try core.mixer.begin(snapshot, fade: fade, intensity: intensity, host: core)
        }
    }

    /// Ends the active snapshot named like `snapshot`: its weight ramps from where it is to 0
    /// over `fade` seconds, and it is removed once there (at once for a fade of 0).
    ///
    /// A snapshot that is not active (or an unknown name) is left alone; a negative or
    /// non-finite fade ends it at once; after ``shutdown()`` nothing happens. Beginning it
    /// again while it fades out brings it back from where it is.
    ///
    /// ```swift
    /// let menu = Snapshot("pause menu", busGains: [.sfx: -12])
    /// try engine.begin(menu, fade: 0.2)
    /// engine.end(menu, fade: 0.5)
    /// ```
    public func end(_ snapshot: Snapshot, fade: Double = 0) {
        let seconds = fade.isFinite && fade > 0 ? fade : 0
        changingBuses {
            guard !core.isShutDown else { return }
            core.mixer.end(named: snapshot.name, fade: seconds, host: core)
        }
    }

    /// Ramps an active snapshot's intensity (its weight) from where it is to `intensity` over
    /// `fade` seconds, linearly.
    ///
    /// A snapshot that is not active, or is ending, is left alone (begin it again to bring back
    /// one that is ending). Throws ``EarshotError/invalidArgument(_:)`` for an intensity outside
    /// 0…1 or a negative or non-finite fade, and ``EarshotError/engineShutDown`` after
    /// ``shutdown()``.
    ///
    /// ```swift
    /// let storm = Snapshot("storm", busGains: [.sfx: -6], busFilters: [.music: LowPassFilter(gain: 1, gainHF: 0.3)])
    /// try engine.begin(storm, intensity: 0.2)
    /// try engine.setIntensity(0.8, of: storm, fade: 5)   // the storm builds up
    /// ```
    public func setIntensity(_ intensity: Float, of snapshot: Snapshot, fade: Double = 0) throws(EarshotError) {
        try Self.checkFade(fade)
        try Self.checkIntensity(intensity)
        try changingBuses { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            core.mixer.setIntensity(intensity, named: snapshot.name, fade: fade, host: core)
        }
    }

    /// The names of the active snapshots, in the order they were begun (one begun again counts
    /// from then). A snapshot fading out after ``end(_:fade:)`` is listed until it is removed.
    /// Empty after ``shutdown()``.
    ///
    /// ```swift
    /// if engine.activeSnapshots.contains("underwater") { print("the sfx are muffled") }
    /// ```
    public var activeSnapshots: [String] {
        withAL { core.isShutDown ? [] : core.mixer.activeSnapshotNames }
    }

    /// The combined factor of the active snapshots on `bus` (linear: 1 for none, 0.25 for
    /// −12 dB), as last applied — by ``update(deltaTime:)`` or a snapshot call. Throws
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    ///
    /// ```swift
    /// let dB = 20 * log10(Double(try engine.snapshotGain(for: .sfx)))
    /// print("snapshots take sfx to \(dB) dB")
    /// ```
    public func snapshotGain(for bus: Bus) throws(EarshotError) -> Float {
        try withAL { () throws(EarshotError) -> Float in core.buses[try core.requireBus(bus)].snapshot }
    }

    static func checkFade(_ fade: Double) throws(EarshotError) {
        guard fade.isFinite, fade >= 0 else { throw .invalidArgument("fade \(fade) s must be finite and ≥ 0") }
    }

    static func checkIntensity(_ intensity: Float) throws(EarshotError) {
        guard intensity.isFinite, (0...1).contains(intensity) else {
            throw .invalidArgument("snapshot intensity \(intensity) is outside 0…1")
        }
    }
}

/// Sidechain ducking between buses (see ``Ducking``).
extension AudioEngine {
    /// Makes bus `source` duck bus `target` while `source`'s level is above
    /// ``Ducking/threshold``, replaces that ducking (it goes on from where it is), or (nil)
    /// removes it (the target releases over the ducking's release first).
    ///
    /// Once set, each ``update(deltaTime:)`` measures the source (``level(of:)``) and moves the
    /// target's sidechain factor (``sidechainGain(for:)``); the target's voices and, for
    /// ``Bus/music``, its tracks follow. Several sources may duck one target (the lowest factor
    /// wins), and the factor combines with the audio session's duck (the lower wins). Nothing
    /// costs a frame anything until a ducking is set.
    ///
    /// A group target ducks every bus below it; a group source is measured over every bus below
    /// it. Throws ``EarshotError/invalidArgument(_:)`` for an unknown bus, `source == target`, one
    /// of them below the other in the bus tree (it would duck itself), or a number outside its range (see ``Ducking``); ``EarshotError/engineShutDown`` after
    /// ``shutdown()``.
    ///
    /// ```swift
    /// try engine.setDucking(Ducking(level: -12, attack: 0.1, release: 0.4, threshold: -30), of: .music, by: .voice)
    /// try engine.setDucking(Ducking(level: -6), of: .sfx, by: .voice)   // effects a little too
    /// ```
    public func setDucking(_ ducking: Ducking?, of target: Bus, by source: Bus) throws(EarshotError) {
        try ducking?.validate()
        guard source != target else { throw .invalidArgument("bus \"\(target.name)\" cannot duck itself") }
        try changingBuses { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            guard let t = core.busIndex(target) else { throw BusTable.noBus(target) }
            guard let s = core.busIndex(source) else { throw BusTable.noBus(source) }
            let tree = core.busTable   // a bus in the other's subtree would duck itself
            guard ducking == nil || !(tree.isInSubtree(s, of: t) || tree.isInSubtree(t, of: s)) else {
                throw .invalidArgument(
                    "bus \"\(source.name)\" and bus \"\(target.name)\" are in one group's path: a bus cannot duck itself")
            }
            core.mixer.setDucking(ducking, target: t, source: s, host: core)
        }
    }

    /// The ducking by which `source` ducks `target`, or nil (none, one being removed, or after
    /// shutdown). Throws ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have.
    ///
    /// ```swift
    /// if let d = try engine.ducking(of: .music, by: .voice) { print("dialogue ducks music by \(d.level) dB") }
    /// ```
    public func ducking(of target: Bus, by source: Bus) throws(EarshotError) -> Ducking? {
        try withAL { () throws(EarshotError) -> Ducking? in
            let t = try core.requireBus(target), s = try core.requireBus(source)
            guard !core.isShutDown else { return nil }
            return core.mixer.ducking(target: t, source: s)
        }
    }

    /// A bus's sidechain factor as last applied by ``update(deltaTime:)`` (linear: 1 = not
    /// ducked, 0.25 = −12 dB): the lowest of the duckings that target it. The session's duck is
    /// apart (``AudioSession/musicDuckGain``). Throws ``EarshotError/invalidArgument(_:)`` for a
    /// bus the engine does not have.
    ///
    /// ```swift
    /// let ducked = try engine.sidechainGain(for: .music) < 1
    /// print(ducked ? "someone is speaking" : "music at its level")
    /// ```
    public func sidechainGain(for bus: Bus) throws(EarshotError) -> Float {
        try withAL { () throws(EarshotError) -> Float in core.buses[try core.requireBus(bus)].sidechain }
    }

    /// The sidechain detector's reading of `bus` now, in dBFS: the power of every real voice on
    /// it — its clip's RMS over the block (10 ms, longer for low-rate clips) holding the voice's
    /// playhead, from a level envelope measured when the clip was loaded, times the gain it is
    /// heard at (master, bus, voice, distance, cone and fades) — summed and in dB. A full-scale
    /// sine reads −3 dBFS.
    /// −∞ when nothing on it is heard (virtual and paused voices count for nothing) and after
    /// ``shutdown()``. Music tracks streaming on the bus count too: the power of the 50 ms of
    /// their samples from the play position (measured at each music pump) times the gain they
    /// are heard at (master, bus, volume and fades). Throws ``EarshotError/invalidArgument(_:)``
    /// for a bus the engine does not have.
    ///
    /// ```swift
    /// print("dialogue at \(try engine.level(of: .voice)) dBFS")
    /// ```
    public func level(of bus: Bus) throws(EarshotError) -> Double {
        try withAL { () throws(EarshotError) -> Double in
            let b = try core.requireBus(bus)
            guard !core.isShutDown else { return -.infinity }
            return core.mixer.level(ofBus: b, host: core)
        }
    }
}
