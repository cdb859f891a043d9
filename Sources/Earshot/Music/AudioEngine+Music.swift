/// Music tracks, their stats and master-output metering.
extension AudioEngine {
    /// Opens a file as a streamed ``MusicTrack`` on the ``Bus/music`` bus (nothing plays yet).
    ///
    /// Throws ``EarshotError/fileNotFound(path:)``, ``EarshotError/unreadableFile(path:reason:)``
    /// for a file that is not audio, ``EarshotError/unsupportedEncoding(_:)`` for more than two
    /// channels, ``EarshotError/malformedFile(_:)`` for an empty file and
    /// ``EarshotError/engineShutDown``.
    ///
    /// ```swift
    /// let theme = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// try theme.play()
    /// ```
    public func loadMusic(path: String) throws(EarshotError) -> MusicTrack {
        try MusicTrack(engine: self, path: path)
    }

    /// The music streamer's counters (underruns, streamer CPU).
    public var musicStats: MusicStats {
        let s = musicSystem.snapshot()
        return MusicStats(playingTracks: s.activeTracks, underruns: s.underruns,
                          streamerCPUSeconds: s.cpuSeconds, framesQueued: s.framesQueued)
    }

    /// Meter the master output of a loopback engine (off by default): each render keeps its last
    /// ~50 ms for ``outputMeters()``.
    public var isOutputMeteringEnabled: Bool {
        get { musicSystem.outputMeter.enabled.load(ordering: .relaxed) }
        set {
            if newValue, !musicSystem.outputMeter.enabled.load(ordering: .relaxed) {
                musicSystem.outputMeter.configure(sampleRate: sampleRate, channels: outputChannels)
            }
            musicSystem.outputMeter.enabled.store(newValue, ordering: .relaxed)
        }
    }

    /// Per-channel average (RMS) and peak power in dBFS of the last ~50 ms rendered, computed from
    /// the rendered samples (loopback engines with ``isOutputMeteringEnabled``).
    public func outputMeters() -> MeterReading { musicSystem.outputMeter.reading() }
}
