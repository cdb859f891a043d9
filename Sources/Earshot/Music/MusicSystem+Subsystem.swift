import COpenAL

/// The music system as an ``EngineSubsystem``: what the engine's update, render, bus setters,
/// device recovery and shutdown do to music, in one place; and music's own sources.
extension MusicSystem: EngineSubsystem {
    /// Makes music's sources (``AudioEngine/Configuration/musicSources``) on the engine's
    /// context: called once, at the end of the engine's init.
    func attach(to engine: AudioEngine) throws(EarshotError) {
        try withMusicLock { (_: inout [Pending]) throws(EarshotError) in
            markerSink = engine.markerBroadcast
            try makeSources(host: engine)
        }
    }

    /// Makes ``sourceCount`` sources on the current context (music lock held).
    func makeSources(host: any MusicHost) throws(EarshotError) {
        assertLocked()
        let made = try host.withMusicAL { () throws(EarshotError) -> [ALuint] in
            guard !host.musicCoreIsShutDown else { throw .engineShutDown }
            let names = try ALSourceNames.generate(sourceCount)
            // OpenAL caps a source's gain at AL_MAX_GAIN (1 by default): a track's volume goes
            // up to MusicTrack.maxVolume (+12 dB), times its bus's gain.
            for s in names { alSourcef(s, AL_MAX_GAIN, 16) }
            return names
        }
        sources = made
        freeSources = made.reversed()
    }

    /// Deletes music's sources (music lock held; every track has released its own).
    func deleteSources(host: any MusicHost) {
        assertLocked()
        let names = sources
        sources = []
        freeSources = []
        guard !names.isEmpty, !suspended else { return }   // a lost device's names die with its context
        host.withMusicAL {
            guard !host.musicCoreIsShutDown else { return }
            for source in names {
                alSourceStop(source)
                alSourcei(source, AL_BUFFER, 0)
                host.routeMusicSource(source, bus: nil, claimed: false)   // off its bus's filters and effect
            }
            alDeleteSources(ALsizei(names.count), names)
            ALCheck.after("deleting the music sources")
        }
    }

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

    /// Tracks on a changed bus take its level now, held buses hold their tracks, and a
    /// `stopAll(on:)` stops the tracks on that bus.
    private func applyBusChanges(_ changes: BusChanges, host: any MusicHost, levelsApplied: Bool) {
        if changes.levels, !levelsApplied { frame(host: host) }
        if changes.holds { syncBusHolds(host: host) }
        for bus in changes.stopped { stopAll(on: bus, host: host) }
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
