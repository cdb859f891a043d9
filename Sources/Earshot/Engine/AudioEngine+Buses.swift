extension AudioEngine {
    /// Adds a user-defined bus. Throws ``EarshotError/invalidArgument(_:)`` when the name is taken.
    public func addBus(_ bus: Bus) throws(EarshotError) {
        let added = withAL { core.addBus(bus) }
        guard added else { throw .invalidArgument("a bus named \"\(bus.name)\" exists") }
    }

    /// The buses of the engine, built-in ones first.
    public var buses: [Bus] { withAL { core.buses.map(\.bus) } }

    /// A bus's own gain (without master or ducking). 1 for an unknown bus.
    public func gain(for bus: Bus) -> Float {
        withAL { core.busIndex(bus).map { core.buses[$0].gain } ?? 1 }
    }

    /// Sets a bus's gain (0 or more; NaN and negative values are ignored).
    public func setGain(_ gain: Float, for bus: Bus) {
        guard gain.isFinite, gain >= 0 else { return }
        withAL { _ = core.updateBus(bus) { $0.gain = gain } }
    }

    /// Mutes or unmutes a bus (voices keep playing silently).
    public func setMuted(_ muted: Bool, for bus: Bus) {
        withAL { _ = core.updateBus(bus) { $0.muted = muted } }
    }

    /// Whether a bus is muted.
    public func isMuted(_ bus: Bus) -> Bool {
        withAL { core.busIndex(bus).map { core.buses[$0].muted } ?? false }
    }

    /// The gain over every bus (0 or more).
    public var masterGain: Float {
        get { withAL { core.masterGain } }
        set {
            guard newValue.isFinite, newValue >= 0 else { return }
            withAL { core.setMasterGain(newValue) }
        }
    }

    /// The effective gain of a bus: master × bus gain × duck, 0 when muted.
    public func effectiveGain(for bus: Bus) -> Float {
        withAL { core.masterGain * core.busGain(bus) }
    }
}

extension AudioEngine {
    /// Pauses or resumes every voice on a bus. Paused voices give up their sources (fading out)
    /// and their playheads stand still; resumed, they fade back in where they were.
    public func setPaused(_ paused: Bool, for bus: Bus) {
        withAL { _ = core.updateBus(bus) { $0.paused = paused } }
    }

    /// Whether a bus is paused.
    public func isPaused(_ bus: Bus) -> Bool {
        withAL { core.busIndex(bus).map { core.buses[$0].paused } ?? false }
    }

    /// Stops every voice on a bus, each with the steal fade.
    public func stopAll(on bus: Bus) {
        withAL {
            guard !core.isShutDown, let index = core.busIndex(bus) else { return }
            core.pool.stopAll { $0.busIndex == index }
        }
    }

    /// Stops every voice of the engine, each with the steal fade.
    public func stopAllVoices() {
        withAL {
            guard !core.isShutDown else { return }
            core.pool.stopAll { _ in true }
        }
    }
}
