/// The stream system as the engine's ``EngineSubsystem``: what the engine's update, render, bus
/// setters, device recovery and shutdown do to every stream, plus ticking music's sets.
extension MusicSystem: EngineSubsystem {
    /// Track gains and fades follow the frame (and with them the bus levels the frame moved);
    /// then the holds and stops the frame's bus changes carry.
    func endFrame(_ engine: AudioEngine, changes: BusChanges) {
        frame(host: engine)
        applyBusChanges(changes, host: engine, levelsApplied: true)
        tickSets(engine: engine)
    }

    func busesChanged(_ engine: AudioEngine, _ changes: BusChanges) {
        applyBusChanges(changes, host: engine, levelsApplied: false)
    }

    /// The loopback render's music pump: every track topped up for the frames about to be mixed.
    func willRender(_ engine: AudioEngine, frames: Int) {
        tickSets(engine: engine)   // before the pump: a change put aside by a hold is planned again first
        pump(host: engine, renderFrames: frames)
    }

    func deviceLost(_ engine: AudioEngine) {
        for (path, seconds) in deviceLost(host: engine) {
            engine.logger.notice("music \(path) will resume at \(String(format: "%.2f", seconds)) s")
        }
    }

    func deviceRestored(_ engine: AudioEngine, _ restoration: DeviceRestoration) {
        reattach(host: engine)
    }

    func shutdown(_ engine: AudioEngine) {
        shutdown(host: engine)
    }
}
