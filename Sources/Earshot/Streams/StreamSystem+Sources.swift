import COpenAL

/// The stream system's own sources: made when the engine attaches it and again on a new device,
/// deleted at shutdown. Never the voice pool's.
extension StreamSystem {
    /// Makes music's sources (``AudioEngine/Configuration/musicSources``) on the engine's
    /// context: called once, at the end of the engine's init.
    func attach(to engine: AudioEngine) throws(EarshotError) {
        try withStreamLock { (_: inout [Pending]) throws(EarshotError) in
            markerSink = engine.markerBroadcast
            try makeSources(host: engine)
        }
    }

    /// Makes ``sourceCount`` sources on the current context (music lock held).
    func makeSources(host: any StreamHost) throws(EarshotError) {
        assertLocked()
        let made = try host.withStreamAL { () throws(EarshotError) -> [ALuint] in
            guard !host.streamCoreIsShutDown else { throw .engineShutDown }
            let names = try ALSourceNames.generate(sourceCount + fieldSourceCount)
            // OpenAL caps a source's gain at AL_MAX_GAIN (1 by default): a track's volume goes
            // up to MusicTrack.maxVolume (+12 dB), times its bus's gain.
            for s in names { alSourcef(s, AL_MAX_GAIN, 16) }
            sourcesContext = host.streamContext
            return names
        }
        sources = made
        freeSources = made.prefix(sourceCount).reversed()
        freeFieldSources = made.dropFirst(sourceCount).reversed()
    }

    /// Deletes music's sources (music lock held; every track has released its own). While the
    /// device is lost, those made on the lost context if it is still the engine's: they hold
    /// sends to the effect slots the core deletes next, and OpenAL Soft 1.19.1 refuses to delete
    /// a slot in use (AL_INVALID_NAME). On a context already replaced they died with it.
    func deleteSources(host: any StreamHost) {
        assertLocked()
        let lost = suspended
        let names = lost ? lostSources : sources
        sources = []
        freeSources = []
        freeFieldSources = []
        lostSources = []
        guard !names.isEmpty else { return }
        host.withStreamAL {
            guard !host.streamCoreIsShutDown, host.streamContext == sourcesContext else { return }
            for source in names {
                alSourceStop(source)
                alSourcei(source, AL_BUFFER, 0)
                host.routeStreamSource(source, bus: nil, claimed: false)   // off its bus's filters and effect
            }
            alDeleteSources(ALsizei(names.count), names)
            if lost {
                ALCheck.discard(because: "the device is lost: calls on its sources may fail, and nothing on it is heard any more")
            } else {
                ALCheck.after("deleting the music sources")
            }
        }
    }

}
