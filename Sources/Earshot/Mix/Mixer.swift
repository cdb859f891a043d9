#if canImport(Glibc)
import Glibc
#endif

/// The engine's mix beyond each bus's own settings: the active snapshots and the sidechain
/// duckings, the per-bus factors they produce, and music's power per bus for the detector. It
/// owns that state and its rules, and reaches the core only through ``MixHost``. Touched only
/// under the AL lock. Per-bus arrays are indexed by bus index and grow when a bus is added; a
/// steady frame allocates nothing.
///
/// A frame steps it (a ``CoreStage`` before the voices) only while a snapshot or a ducking is in
/// force, and the host's voices are marked only when a factor actually changed.
final class Mixer {
    /// Active snapshots in begin order (a snapshot begun again moves to the end).
    private(set) var snapshots: [ActiveSnapshot] = []
    /// Engine time the snapshot weights were last advanced to.
    private var snapshotClock: Double = 0
    /// Sidechain duckings, target and source by bus index.
    private var sidechains: [Sidechain] = []
    /// Engine time the sidechains were last stepped at.
    private var sidechainClock: Double = 0

    /// Per bus: the snapshot factor, the sidechain factor and the filter layer last computed.
    private var snapshotFactors: [Float] = []
    private var sidechainFactors: [Float] = []
    private var filterLayers: [FilterLayer] = []
    /// Scratch for the detector: per bus, whether it is a sidechain source, and its power.
    private var isSource: [Bool] = []
    private var power: [Float] = []
    /// Scratch for the detector under a bus tree: per bus, whether it is a source or below one.
    private var measured: [Bool] = []
    /// Per bus: the detector's level (dBFS) at the last step, for sources.
    private var levels: [Double] = []
    /// Music's power on each bus (by index, master aside; ``MusicHost/setStreamedPower(_:)``).
    private var streamedPower: [Float] = []
    /// Times the mix changed a bus's factors and the voices were marked (tests count them).
    private(set) var syncs = 0

    /// Whether a frame has anything to do.
    var isActive: Bool { !snapshots.isEmpty || !sidechains.isEmpty }

    // MARK: Frame

    /// Once per frame, before the voices are scheduled: advances snapshot fades, measures the
    /// sidechain sources and moves their ducks; applies the factors when one moved.
    func step(now t: Double, host: some MixHost) {
        ensureBuses(host.busCount)
        var moved = snapshots.isEmpty ? false : advanceSnapshots(host: host)
        if !sidechains.isEmpty, stepSidechains(now: t, host: host) { moved = true }
        if moved { refresh(host: host) }
    }

    /// Brings snapshot fades up to now under the state in force (before an interruption hold
    /// changes it), applying the factors when a weight moved.
    func catchUp(host: some MixHost) {
        if !snapshots.isEmpty, advanceSnapshots(host: host) { refresh(host: host) }
    }

    /// Recomputes every bus's snapshot and sidechain factors and filter layer and applies them.
    func refresh(host: some MixHost) {
        ensureBuses(host.busCount)
        computeSnapshotFactors()
        computeSidechainFactors()
        host.applyMix(snapshot: snapshotFactors, sidechain: sidechainFactors, filters: filterLayers)
    }

    /// The host applied factors that changed a bus (the voices were marked).
    func noteSynced() { syncs += 1 }

    // MARK: Snapshots

    var activeSnapshotNames: [String] { snapshots.map(\.snapshot.name) }

    /// Begins `snapshot` (or retargets the active one of its name, which moves to the end of the
    /// begin order). Throws for a bus the engine does not have.
    func begin(_ snapshot: Snapshot, fade: Double, intensity: Float, host: some MixHost) throws(EarshotError) {
        let (gains, filters) = try Self.busSettings(of: snapshot, host: host)
        advanceSnapshots(host: host)
        var active = ActiveSnapshot(snapshot: snapshot, gains: gains, filters: filters)
        if let i = index(of: snapshot.name) {
            active.weight = snapshots.remove(at: i).weight
        }
        active.weight.retarget(intensity, over: fade)
        snapshots.append(active)
        refresh(host: host)
    }

    /// Ends the active snapshot named `name` over `fade` seconds (at once for 0); nothing when
    /// none is active.
    func end(named name: String, fade: Double, host: some MixHost) {
        advanceSnapshots(host: host)
        guard let i = index(of: name) else { return }
        snapshots[i].ending = true
        snapshots[i].weight.retarget(0, over: fade)
        _ = advanceSnapshots(by: 0)   // a snapshot ended at once goes now
        refresh(host: host)
    }

    /// Ramps an active, not ending snapshot's intensity to `intensity` over `fade` seconds.
    func setIntensity(_ intensity: Float, named name: String, fade: Double, host: some MixHost) {
        advanceSnapshots(host: host)
        guard let i = index(of: name), !snapshots[i].ending else { return }
        snapshots[i].weight.retarget(intensity, over: fade)
        refresh(host: host)
    }

    /// Replaces an active snapshot's gains and filters in place, keeping its weight, fade,
    /// ending and place in the begin order; false when none is active.
    func redefine(_ snapshot: Snapshot, host: some MixHost) throws(EarshotError) -> Bool {
        let (gains, filters) = try Self.busSettings(of: snapshot, host: host)
        advanceSnapshots(host: host)   // one that ended meanwhile goes first
        guard let i = index(of: snapshot.name) else { return false }
        snapshots[i].snapshot = snapshot
        snapshots[i].gains = gains
        snapshots[i].filters = filters
        refresh(host: host)
        return true
    }

    private func index(of name: String) -> Int? { snapshots.firstIndex { $0.snapshot.name == name } }

    /// A snapshot's bus gains and filters by bus index, in bus order (not the dictionaries', which
    /// are seeded per process: the same calls mix the same). Throws for a bus the engine does
    /// not have.
    private static func busSettings(of snapshot: Snapshot, host: some MixHost) throws(EarshotError)
        -> (gains: [(bus: Int, decibels: Double)], filters: [(bus: Int, filter: LowPassFilter)]) {
        var gains: [(bus: Int, decibels: Double)] = []
        for (bus, db) in snapshot.busGains {
            guard let b = host.busIndex(bus) else { throw BusTable.noBus(bus) }
            gains.append((b, db))
        }
        var filters: [(bus: Int, filter: LowPassFilter)] = []
        for (bus, filter) in snapshot.busFilters {
            guard let b = host.busIndex(bus) else { throw BusTable.noBus(bus) }
            filters.append((b, filter))
        }
        gains.sort { $0.bus < $1.bus }
        filters.sort { $0.bus < $1.bus }
        return (gains, filters)
    }

    /// Brings the snapshot fades up to now: engine time since the last advance, none of it while
    /// an interruption holds the audio. Returns whether a weight moved or a snapshot went.
    @discardableResult
    private func advanceSnapshots(host: some MixHost) -> Bool {
        let t = host.now
        let elapsed = host.interruptionHold ? 0 : max(0, t - snapshotClock)
        snapshotClock = t
        return advanceSnapshots(by: elapsed)
    }

    /// Advances every snapshot weight by `seconds` and removes ended snapshots whose weight is
    /// 0. Returns whether anything moved.
    private func advanceSnapshots(by seconds: Double) -> Bool {
        var moved = false
        var i = 0
        while i < snapshots.count {
            if !snapshots[i].weight.isSettled {
                snapshots[i].weight.advance(by: seconds)
                moved = true
            }
            if snapshots[i].ending, snapshots[i].weight.isSettled, snapshots[i].weight.value == 0 {
                snapshots.remove(at: i)
                moved = true
                continue
            }
            i += 1
        }
        return moved
    }

    // MARK: Sidechain

    /// Sets (nil: removes, releasing first) the ducking of bus `target` by bus `source`.
    func setDucking(_ ducking: Ducking?, target: Int, source: Int, host: some MixHost) {
        ensureBuses(host.busCount)
        if let i = sidechains.firstIndex(where: { $0.target == target && $0.source == source }) {
            if let ducking {
                sidechains[i].ducking = ducking
                sidechains[i].removing = false
            } else {
                sidechains[i].removing = true
            }
        } else if let ducking {
            if sidechains.isEmpty { sidechainClock = host.now }
            sidechains.append(Sidechain(target: target, source: source, ducking: ducking))
        }
        markSources()
    }

    /// The ducking of `target` by `source` in force (nil when none, or when it is being removed).
    func ducking(target: Int, source: Int) -> Ducking? {
        sidechains.first { $0.target == target && $0.source == source && !$0.removing }?.ducking
    }

    /// Measures the source buses and steps every ducking. Returns whether a duck moved or a
    /// removed ducking went.
    private func stepSidechains(now t: Double, host: some MixHost) -> Bool {
        let elapsed = max(0, t - sidechainClock)
        sidechainClock = t
        measureSources(now: t, host: host)
        var moved = false
        var i = 0
        while i < sidechains.count {
            let level = levels[sidechains[i].source]
            if sidechains[i].step(level: level, now: t, elapsed: elapsed) { moved = true }
            if sidechains[i].isFinished {
                sidechains.remove(at: i)
                markSources()
                moved = true
                continue
            }
            i += 1
        }
        return moved
    }

    /// The detector: the level of every sidechain source bus at `t`, into `levels`. A group
    /// source's level is that of every bus below it (its own voices and its children's).
    private func measureSources(now t: Double, host: some MixHost) {
        for b in power.indices { power[b] = 0 }
        guard host.hasBusGroups else {
            host.accumulateVoicePower(into: &power, buses: isSource, now: t)
            addStreamedPower(into: &power, masterGain: host.masterGain)   // music on a source bus ducks as voices do
            for b in levels.indices where isSource[b] { levels[b] = Self.decibels(power: power[b]) }
            return
        }
        let parents = host.busParents
        for b in measured.indices {   // a bus below a source is measured too
            var k = b
            measured[b] = false
            while k >= 0, k < isSource.count {
                if isSource[k] { measured[b] = true; break }
                k = k < parents.count ? parents[k] : -1
            }
        }
        host.accumulateVoicePower(into: &power, buses: measured, now: t)
        addStreamedPower(into: &power, masterGain: host.masterGain)
        for b in levels.indices where isSource[b] {
            levels[b] = Self.decibels(power: Self.subtreePower(b, power: power, parents: parents))
        }
    }

    /// The power of bus `group` and every bus below it.
    static func subtreePower(_ group: Int, power: [Float], parents: [Int]) -> Float {
        var sum: Float = 0
        for b in power.indices where BusTable.isUnder(b, group, parents: parents) { sum += power[b] }
        return sum
    }

    // MARK: Levels

    /// Music's power per bus now (see ``streamedPower``).
    func setStreamedPower(_ power: [Bus: Float], host: some MixHost) {
        for i in streamedPower.indices { streamedPower[i] = 0 }
        for (bus, p) in power {
            guard let i = host.busIndex(bus) else { continue }
            if i >= streamedPower.count { streamedPower += [Float](repeating: 0, count: i + 1 - streamedPower.count) }
            streamedPower[i] = p
        }
    }

    /// Adds music's power to `power` (per bus index), heard through the master gain as voices are.
    func addStreamedPower(into power: inout [Float], masterGain: Float) {
        for i in streamedPower.indices where i < power.count { power[i] += streamedPower[i] * masterGain * masterGain }
    }

    /// The power of every bus now (voices and music; `only`: just the buses marked), per index.
    func busPower(only: [Bool]? = nil, host: some MixHost) -> [Float] {
        var power = [Float](repeating: 0, count: host.busCount)
        host.accumulateVoicePower(
            into: &power, buses: only ?? [Bool](repeating: true, count: host.busCount), now: host.now)
        addStreamedPower(into: &power, masterGain: host.masterGain)
        return power
    }

    /// The level of bus `bus` (an index) now, in dBFS: −∞ when nothing on it (or, for a group,
    /// below it) plays.
    func level(ofBus bus: Int, host: some MixHost) -> Double {
        let parents = host.busParents
        let only = (0..<host.busCount).map { b in host.hasBusGroups ? BusTable.isUnder(b, bus, parents: parents) : b == bus }
        return Self.decibels(power: Self.subtreePower(bus, power: busPower(only: only, host: host), parents: parents))
    }

    static func decibels(power: Float) -> Double {
        power > 0 ? 10 * log10(Double(power)) : -.infinity
    }

    // MARK: Factors

    /// Sizes the per-bus arrays for `count` buses (allocates only when buses were added).
    private func ensureBuses(_ count: Int) {
        guard snapshotFactors.count < count else { return }
        let n = count - snapshotFactors.count
        snapshotFactors += repeatElement(1, count: n)
        sidechainFactors += repeatElement(1, count: n)
        filterLayers += repeatElement(.identity, count: n)
        isSource += repeatElement(false, count: n)
        measured += repeatElement(false, count: n)
        power += repeatElement(0, count: n)
        levels += repeatElement(-.infinity, count: n)
    }

    /// Recomputes the snapshot factor and filter layer of every bus from the active snapshots.
    private func computeSnapshotFactors() {
        for b in snapshotFactors.indices {
            snapshotFactors[b] = 1
            filterLayers[b] = .identity
        }
        // Gains add in dB per bus (the factors multiply); −∞ (silence) fades in amplitude. Filters
        // blend in begin order, so the latest snapshot lies on top. Loops over index ranges:
        // `for … in` an array allocates in debug builds, where it is not specialised.
        for i in snapshots.indices {
            let w = snapshots[i].weight.value
            guard w > 0 else { continue }
            for j in snapshots[i].gains.indices {
                let (bus, db) = snapshots[i].gains[j]
                if db == -.infinity {
                    snapshotFactors[bus] *= 1 - w
                } else {
                    snapshotFactors[bus] *= DuckRamp.gain(decibels: db * Double(w))
                }
            }
            for j in snapshots[i].filters.indices {
                let (bus, filter) = snapshots[i].filters[j]
                filterLayers[bus] = filterLayers[bus].blending(filter, weight: w)
            }
        }
    }

    /// Recomputes every bus's sidechain factor: the lowest of the duckings that target it.
    private func computeSidechainFactors() {
        for b in sidechainFactors.indices { sidechainFactors[b] = 1 }
        for i in sidechains.indices {
            let t = sidechains[i].target
            sidechainFactors[t] = min(sidechainFactors[t], sidechains[i].gain)
        }
    }

    /// Marks the buses that are sidechain sources.
    private func markSources() {
        for b in isSource.indices { isSource[b] = false }
        for i in sidechains.indices { isSource[sidechains[i].source] = true }
    }
}

/// The mix is the core stage before the voices: snapshot fades and sidechain ducks move the bus
/// levels the voices take in the same frame. Nothing to remake on a new device (its filters ride
/// on the send router's).
extension Mixer: CoreStage {
    var phase: CoreStage.Phase { .beforeVoices }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        if isActive { step(now: time.now, host: core) }
    }
}
