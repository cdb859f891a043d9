import COpenAL

/// The core's side of the buses (AL lock held): ``busTable`` owns their state; each change here
/// is pushed to the voices and gathered in ``busChanges`` for the subsystems.
extension EngineCore {
    /// Bus states by index (read-only: ``BusTable`` owns them).
    var buses: [BusState] { busTable.states }
    var interruptionHold: Bool { busTable.interruptionHold }
    var pauseAllExcept: Set<Bus>? { busTable.pauseAllExcept }

    func busIndex(_ bus: Bus) -> Int? { busTable.index(of: bus) }

    /// The index of `bus`, or ``EarshotError/invalidArgument(_:)`` when the engine has no such bus.
    func requireBus(_ bus: Bus) throws(EarshotError) -> Int {
        guard let i = busIndex(bus) else { throw BusTable.noBus(bus) }
        return i
    }

    /// Adds `bus` under `parent` (an index; -1: the master); false when it exists.
    func addBus(_ bus: Bus, parent: Int = -1) -> Bool {
        guard busTable.add(bus, parent: parent) else { return false }
        if parent >= 0 { sendRouter.setBusParents(busTable.parents) }
        syncBuses()
        return true
    }

    /// Moves bus `i` under `parent` (-1: the master); throws for a cycle or a tree too deep.
    func setBusParent(_ parent: Int, at i: Int) throws(EarshotError) {
        try busTable.setParent(parent, at: i)
        sendRouter.setBusParents(busTable.parents)   // a group's filter and effect reach its children
        syncBuses()
    }

    /// Hands the VCAs' factors to the bus table; the voices follow when one changed.
    func applyVCAFactors() {
        if busTable.setVCAFactors(vcaTable.factors(busCount: busTable.count)) { syncBuses() }
    }

    func setBusGain(_ gain: Float, at i: Int) {
        busTable.setGain(gain, at: i)
        syncBuses()
    }

    func setBusMuted(_ muted: Bool, at i: Int) {
        busTable.setMuted(muted, at: i)
        syncBuses()
    }

    func setBusPaused(_ paused: Bool, at i: Int) {
        busTable.setPaused(paused, at: i)
        syncBuses()
    }

    /// The audio session's duck factor on `bus` (nothing for a bus the engine does not have).
    func setBusDuck(_ duck: Float, on bus: Bus) {
        guard let i = busIndex(bus) else { return }
        busTable.setDuck(duck, at: i)
        syncBuses()
    }

    /// Holds (or releases) every bus's voices for an audio-session interruption.
    func setInterruptionHold(_ hold: Bool) {
        mixer.catchUp(host: self)   // snapshot fades stand still during the hold: up to now first
        busTable.setInterruptionHold(hold)
        if hold { audioClock.hold(.interruption, source: heardSource) } else { audioClock.release(.interruption, source: heardSource) }
        syncBuses()
    }

    /// Holds every bus but `except` (nil: releases the hold) for `pauseAll(except:)`.
    func setPauseAll(except: Set<Bus>?) {
        busTable.setPauseAll(except: except)
        syncBuses()
    }

    /// Whether `bus` is held by the game: its own pause or `pauseAll(except:)` (not an interruption).
    func isHeldByGame(_ bus: Bus) -> Bool { busTable.isHeldByGame(bus) }

    /// Whether `bus` is held now, for any reason (see ``isHeldByGame(_:)`` for the game's own holds).
    func isHeld(_ bus: Bus) -> Bool {
        busIndex(bus).map { busTable.isHeld(at: $0) } ?? false
    }

    func setMasterGain(_ gain: Float) {
        masterGain = gain
        pool.setMasterGain(gain)
        alListenerf(AL_GAIN, listener.gain * masterGain)
    }

    /// Pushes the bus gains and holds to the voices, noting what changed in ``busChanges``.
    func syncBuses() {
        pool.accountPauses(now: now)   // delays run in playback time: account the pauses so far first
        let buses = busTable.states
        if pool.busCount != buses.count {
            busChanges.levels = true
            busChanges.holds = busChanges.holds || buses.indices.contains(where: busTable.isHeld(at:))
            pool.setBuses(gains: buses.indices.map(busTable.treeGain(at:)), held: buses.indices.map(busTable.isHeld(at:)))
        } else {
            for i in buses.indices {
                let changed = pool.setBus(i, gain: busTable.treeGain(at: i), held: busTable.isHeld(at: i))
                if changed.level { busChanges.levels = true }
                if changed.hold { busChanges.holds = true }
            }
        }
        pool.markAllGainsDirty()
    }

    /// Takes the bus changes gathered since the last call (see ``busChanges``).
    func takeBusChanges() -> BusChanges {
        guard !busChanges.isEmpty else { return BusChanges() }
        defer { busChanges = BusChanges() }
        return busChanges
    }

    /// bus gain × snapshot × min(duck, sidechain) (0 when muted) × VCAs for `bus` and every group
    /// above it, without master (the listener's `AL_GAIN` carries master for every source); 1 for
    /// an unknown bus.
    func busGain(_ bus: Bus) -> Float {
        busIndex(bus).map { busTable.treeGain(at: $0) } ?? 1
    }
}
