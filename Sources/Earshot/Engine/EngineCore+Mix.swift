#if canImport(Glibc)
import Glibc
#endif

/// The engine core's mix (AL lock held): snapshots begun and ended, sidechain duckings and their
/// detector, and the per-bus factors they write into the bus states (`Mix/Mixer.swift` holds the
/// state). A frame calls ``stepMix(now:)`` only while a snapshot or a ducking is in force, and
/// marks the voices only when a factor actually changed.
extension EngineCore {
    // MARK: Frame

    /// Once per frame, before the voices are scheduled: advances snapshot fades, measures the
    /// sidechain sources and moves their ducks; writes the factors when one moved.
    func stepMix(now t: Double) {
        mixer.ensureBuses(buses.count)
        var moved = mixer.snapshots.isEmpty ? false : advanceSnapshots()
        if !mixer.sidechains.isEmpty, stepSidechains(now: t) { moved = true }
        if moved { refreshMix() }
    }

    /// Recomputes every bus's snapshot and sidechain factors and filter layer and writes them
    /// (the subsystems hear of a changed level through ``busChanges``).
    func refreshMix() {
        mixer.ensureBuses(buses.count)
        mixer.computeSnapshotFactors()
        mixer.computeSidechainFactors()
        for b in mixer.filterLayers.indices { sendRouter.setBusMix(mixer.filterLayers[b], bus: b) }
        applyMixFactors(snapshot: mixer.snapshotFactors, sidechain: mixer.sidechainFactors)
    }

    // MARK: Snapshots

    /// Brings the snapshot fades up to now: engine time since the last advance, none of it while
    /// an interruption holds the audio. Returns whether a weight moved or a snapshot went.
    @discardableResult
    func advanceSnapshots() -> Bool {
        let t = now
        let elapsed = interruptionHold ? 0 : max(0, t - mixer.snapshotClock)
        mixer.snapshotClock = t
        return mixer.advanceSnapshots(by: elapsed)
    }

    /// A snapshot's bus gains and filters by bus index, in bus order (not the dictionaries', which
    /// are seeded per process: the same calls mix the same). Throws for a bus the engine does
    /// not have.
    func busSettings(of snapshot: Snapshot) throws(EarshotError) -> (gains: [(bus: Int, decibels: Double)], filters: [(bus: Int, filter: LowPassFilter)]) {
        var gains: [(bus: Int, decibels: Double)] = []
        for (bus, db) in snapshot.busGains {
            guard let b = busIndex(bus) else { throw Self.noBus(bus) }
            gains.append((b, db))
        }
        var filters: [(bus: Int, filter: LowPassFilter)] = []
        for (bus, filter) in snapshot.busFilters {
            guard let b = busIndex(bus) else { throw Self.noBus(bus) }
            filters.append((b, filter))
        }
        gains.sort { $0.bus < $1.bus }
        filters.sort { $0.bus < $1.bus }
        return (gains, filters)
    }

    /// Begins `snapshot` (or retargets the active one of its name, which moves to the end of the
    /// begin order). Throws for a bus the engine does not have.
    func beginSnapshot(_ snapshot: Snapshot, fade: Double, intensity: Float) throws(EarshotError) {
        let (gains, filters) = try busSettings(of: snapshot)
        advanceSnapshots()
        var active = Mixer.ActiveSnapshot(snapshot: snapshot, gains: gains, filters: filters)
        if let i = mixer.index(of: snapshot.name) {
            active.weight = mixer.snapshots.remove(at: i).weight
        }
        active.weight.retarget(intensity, over: fade)
        mixer.snapshots.append(active)
        refreshMix()
    }

    /// Ends the active snapshot named `name` over `fade` seconds (at once for 0); nothing when
    /// none is active.
    func endSnapshot(named name: String, fade: Double) {
        advanceSnapshots()
        guard let i = mixer.index(of: name) else { return }
        mixer.snapshots[i].ending = true
        mixer.snapshots[i].weight.retarget(0, over: fade)
        _ = mixer.advanceSnapshots(by: 0)   // a snapshot ended at once goes now
        refreshMix()
    }

    /// Ramps an active, not ending snapshot's intensity to `intensity` over `fade` seconds.
    func setSnapshotIntensity(_ intensity: Float, named name: String, fade: Double) {
        advanceSnapshots()
        guard let i = mixer.index(of: name), !mixer.snapshots[i].ending else { return }
        mixer.snapshots[i].weight.retarget(intensity, over: fade)
        refreshMix()
    }

    static func noBus(_ bus: Bus) -> EarshotError {
        .invalidArgument("no bus named \"\(bus.name)\" (add it with addBus first)")
    }

    // MARK: Sidechain

    /// Sets (nil: removes, releasing first) the ducking of bus `target` by bus `source`.
    func setDucking(_ ducking: Ducking?, target: Int, source: Int) {
        mixer.ensureBuses(buses.count)
        if let i = mixer.sidechains.firstIndex(where: { $0.target == target && $0.source == source }) {
            if let ducking {
                mixer.sidechains[i].ducking = ducking
                mixer.sidechains[i].removing = false
            } else {
                mixer.sidechains[i].removing = true
            }
        } else if let ducking {
            if mixer.sidechains.isEmpty { mixer.sidechainClock = now }
            mixer.sidechains.append(Sidechain(target: target, source: source, ducking: ducking))
        }
        mixer.markSources()
    }

    /// The ducking of `target` by `source` in force (nil when none, or when it is being removed).
    func ducking(target: Int, source: Int) -> Ducking? {
        mixer.sidechains.first { $0.target == target && $0.source == source && !$0.removing }?.ducking
    }

    /// Measures the source buses and steps every ducking. Returns whether a duck moved or a
    /// removed ducking went.
    private func stepSidechains(now t: Double) -> Bool {
        let elapsed = max(0, t - mixer.sidechainClock)
        mixer.sidechainClock = t
        measureSources(now: t)
        var moved = false
        var i = 0
        while i < mixer.sidechains.count {
            let level = mixer.levels[mixer.sidechains[i].source]
            if mixer.sidechains[i].step(level: level, now: t, elapsed: elapsed) { moved = true }
            if mixer.sidechains[i].isFinished {
                mixer.sidechains.remove(at: i)
                mixer.markSources()
                moved = true
                continue
            }
            i += 1
        }
        return moved
    }

    /// The detector: the level of every sidechain source bus at `t`, into `mixer.levels`.
    private func measureSources(now t: Double) {
        for b in mixer.power.indices { mixer.power[b] = 0 }
        pool.accumulatePower(into: &mixer.power, buses: mixer.isSource, now: t) { clip, playhead in
            Int(clip) < clips.count ? clips[Int(clip)].levels.power(at: playhead) : 0
        }
        addStreamedPower(into: &mixer.power)   // music on a source bus ducks as voices do
        for b in mixer.levels.indices where mixer.isSource[b] {
            mixer.levels[b] = Self.decibels(power: mixer.power[b])
        }
    }

    /// Music's power per bus now (see ``streamedPower``).
    func setStreamedPower(_ power: [Bus: Float]) {
        for i in streamedPower.indices { streamedPower[i] = 0 }
        for (bus, p) in power {
            guard let i = busIndex(bus) else { continue }
            if i >= streamedPower.count { streamedPower += [Float](repeating: 0, count: i + 1 - streamedPower.count) }
            streamedPower[i] = p
        }
    }

    /// Adds music's power to `power` (per bus index), heard through the master gain as voices are.
    func addStreamedPower(into power: inout [Float]) {
        for i in streamedPower.indices where i < power.count { power[i] += streamedPower[i] * masterGain * masterGain }
    }

    /// The level of bus `bus` (an index) now, in dBFS: −∞ when nothing on it plays.
    func level(ofBus bus: Int) -> Double {
        var power = [Float](repeating: 0, count: buses.count)
        var only = [Bool](repeating: false, count: buses.count)
        only[bus] = true
        pool.accumulatePower(into: &power, buses: only, now: now) { clip, playhead in
            Int(clip) < clips.count ? clips[Int(clip)].levels.power(at: playhead) : 0
        }
        addStreamedPower(into: &power)
        return Self.decibels(power: power[bus])
    }

    static func decibels(power: Float) -> Double {
        power > 0 ? 10 * log10(Double(power)) : -.infinity
    }
}

/// The mix is the core stage before the voices: snapshot fades and sidechain ducks move the bus
/// levels the voices take in the same frame. Nothing to do while no snapshot or ducking is in
/// force, and nothing to remake on a new device (its filters ride on the send router's).
extension Mixer: CoreStage {
    var phase: CoreStage.Phase { .beforeVoices }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        if isActive { core.stepMix(now: time.now) }
    }
}
