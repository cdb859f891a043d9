/// What the monitor shows of music (``MonitorMusicSource``): each track the music system holds,
/// read under the music lock (and the AL lock inside it, for the play position). Read-only.
extension MusicSystem: MonitorMusicSource {
    /// The tracks now, as monitor rows. Call with no engine lock held (music lock, then AL lock).
    func monitorTracks(host: any MusicHost) -> [MonitorFrame.TrackRow] {
        withMusicLock { _ in
            active.prefix(64).map { s in
                let frame = currentFrameLocked(s, host: host)
                let rate = Double(max(s.fileRate, 1))
                let position = Double(frame) / rate
                var row = MonitorFrame.TrackRow(
                    name: MonitorNames.fileName(s.path), bus: s.bus.name,
                    state: s.state == .playing ? "playing" : s.state == .paused ? "paused" : "idle",
                    position: position, duration: Double(s.frameCount) / rate, volume: Double(s.volume))
                if let tempo = s.tempo {
                    row.bpm = tempo.bpm
                    if position >= tempo.firstBeat {
                        let beats = Int(((position - tempo.firstBeat) / tempo.secondsPerBeat).rounded(.down))
                        row.bar = beats / tempo.beatsPerBar + 1
                        row.beat = beats % tempo.beatsPerBar + 1
                    }
                }
                return row
            }
        }
    }
}

extension MusicSystem {
    /// The engine's music sets and their states, as monitor rows (at most 32). Call with no engine
    /// lock held (each set takes its own lock, after reading the audio time).
    func monitorSets() -> [MonitorFrame.MusicSetRow] {
        let sets = adaptiveSets.withLock { $0.prefix(32).compactMap(\.set) }
        return sets.map { set in
            let pending = set.pendingState
            return MonitorFrame.MusicSetRow(name: set.name, state: set.currentState, next: pending?.state, nextAt: pending?.audioTime)
        }
    }
}
