/// Music tracks and their stats.
extension AudioEngine {
    /// Opens a file as a streamed ``MusicTrack`` on `bus` (nothing plays yet): ``Bus/music`` by
    /// default, or any bus of the engine — a long spoken line on ``Bus/voice``, an ambience bed on
    /// ``Bus/sfx`` or a bus of its own. The track then follows that bus's gain, mute, pause,
    /// ``stopAll(on:)``, snapshots and ducking; only ``Bus/music`` yields to the audio session's
    /// secondary-audio hint.
    ///
    /// Throws ``EarshotError/fileNotFound(path:)``, ``EarshotError/unreadableFile(path:reason:)``
    /// for a file that is not audio, ``EarshotError/unsupportedEncoding(_:)`` for more than two
    /// channels, ``EarshotError/malformedFile(_:)`` for an empty file,
    /// ``EarshotError/invalidArgument(_:)`` for a bus the engine does not have and
    /// ``EarshotError/engineShutDown``.
    ///
    /// ```swift
    /// let theme = try engine.loadMusic(path: "Assets/Music/theme.ogg")
    /// try theme.play()
    /// let line = try engine.loadMusic(path: "Assets/Music/ambience.wav", bus: .voice)
    /// try line.play()   // keeps its level under the hint and under pauseAll(except: [.voice])
    /// ```
    public func loadMusic(path: String, bus: Bus = .music) throws(EarshotError) -> MusicTrack {
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            _ = try core.requireBus(bus)
        }
        return try MusicTrack(engine: self, path: path, bus: bus)
    }

    /// The music streamer's counters (underruns, streamer CPU).
    public var musicStats: MusicStats {
        let s = musicSystem.snapshot()
        return MusicStats(playingTracks: s.activeTracks, underruns: s.underruns,
                          streamerCPUSeconds: s.cpuSeconds, framesQueued: s.framesQueued)
    }
}
