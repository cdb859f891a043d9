import COpenAL

/// The buses' state in the core: their table, gains, holds and the changes gathered for the
/// voices (under the AL lock, as all of ``EngineCore``).
extension EngineCore {
    /// The index of `bus`, or ``EarshotError/invalidArgument(_:)`` when the engine has no such bus.
    func requireBus(_ bus: Bus) throws(EarshotError) -> Int {
        guard let i = busIndex(bus) else { throw Self.noBus(bus) }
        return i
    }

    func addBus(_ bus: Bus) -> Bool {
        guard busIndex(bus) == nil else { return false }
        buses.append(BusState(bus: bus))
        syncBuses()
        return true
    }

    func updateBus(_ i: Int, _ change: (inout BusState) -> Void) {
        change(&buses[i])
        syncBuses()
    }

    /// Holds (or releases) every bus's voices for an audio-session interruption.
    func setInterruptionHold(_ hold: Bool) {
        // Snapshot fades stand still during the hold: bring them up to now under the old state.
        if !mixer.snapshots.isEmpty, advanceSnapshots() { refreshMix() }
        interruptionHold = hold
        if hold { audioClock.hold(.interruption, source: heardSource) } else { audioClock.release(.interruption, source: heardSource) }
        syncBuses()
    }

    /// Holds every bus but `except` (nil: releases the hold) for `pauseAll(except:)`.
    func setPauseAll(except: Set<Bus>?) {
        pauseAllExcept = except
        syncBuses()
    }

    /// Whether `bus` is held by the game: its own pause or `pauseAll(except:)` (not an interruption).
    func isHeldByGame(_ bus: Bus) -> Bool {
        guard let i = busIndex(bus) else { return false }
        return buses[i].paused || (pauseAllExcept.map { !$0.contains(bus) } ?? false)
    }

    func setMasterGain(_ gain: Float) {
        masterGain = gain
        pool.setMasterGain(gain)
        alListenerf(AL_GAIN, listener.gain * masterGain)
    }

    /// Writes the mix's per-bus snapshot and sidechain factors (indexed like `buses`); the
    /// voices are marked only when a factor changed (and the subsystems hear of it through
    /// ``busChanges``).
    func applyMixFactors(snapshot: [Float], sidechain: [Float]) {
        var changed = false
        for i in buses.indices where i < snapshot.count && i < sidechain.count {
            guard buses[i].snapshot != snapshot[i] || buses[i].sidechain != sidechain[i] else { continue }
            buses[i].snapshot = snapshot[i]
            buses[i].sidechain = sidechain[i]
            changed = true
        }
        if changed {
            mixer.syncs += 1
            syncBuses()
        }
    }

    func syncBuses() {
        // Delays run in playback time: account the pauses so far before they change.
        pool.accountPauses(now: now)
        if pool.busCount != buses.count {
            busChanges.levels = true
            busChanges.holds = busChanges.holds || buses.contains(where: isHeld)
            pool.setBuses(gains: buses.map(\.effectiveGain), held: buses.map { isHeld($0.bus) })
        } else {
            for i in buses.indices {
                let changed = pool.setBus(i, gain: buses[i].effectiveGain, held: isHeld(buses[i]))
                if changed.level { busChanges.levels = true }
                if changed.hold { busChanges.holds = true }
            }
        }
        pool.markAllGainsDirty()
    }

    /// Whether `state`'s voices are held: the game paused the bus, `pauseAll(except:)` does not
    /// spare it, or an interruption holds every bus.
    private func isHeld(_ state: BusState) -> Bool {
        state.paused || interruptionHold || (pauseAllExcept.map { !$0.contains(state.bus) } ?? false)
    }

    /// Whether `bus` is held now, for any reason (see ``isHeldByGame(_:)`` for the game's own holds).
    func isHeld(_ bus: Bus) -> Bool {
        busIndex(bus).map { isHeld(buses[$0]) } ?? false
    }

    /// Takes the bus changes gathered since the last call (see ``busChanges``).
    func takeBusChanges() -> BusChanges {
        guard !busChanges.isEmpty else { return BusChanges() }
        defer { busChanges = BusChanges() }
        return busChanges
    }

    /// bus gain × snapshot × min(duck, sidechain) (0 when muted) for `bus`, without master (the
    /// listener's `AL_GAIN` carries master for every source); 1 for an unknown bus.
    func busGain(_ bus: Bus) -> Float {
        busIndex(bus).map { buses[$0].effectiveGain } ?? 1
    }
}
