/// The pool's voices for the monitor (``MonitorVoiceSource``): read only, under the AL lock.
extension VoicePool: MonitorVoiceSource {
    var monitorCounts: MonitorVoiceCounts {
        MonitorVoiceCounts(real: realCount, live: liveCount, sources: sources.count, freeSources: freeSources.count,
                           steals: stats.steals, refusals: stats.refusals)
    }

    func forEachMonitorVoice(_ body: (MonitorVoiceRow) -> Bool) {
        for i in real {
            guard body(monitorRow(i)) else { return }
        }
        for i in live where slots[i].phase != .real {
            guard body(monitorRow(i)) else { return }
        }
    }

    private func monitorRow(_ i: Int) -> MonitorVoiceRow {
        let v = slots[i]
        return MonitorVoiceRow(slot: i, generation: v.generation, clipID: v.clipID, soundKey: v.soundKey,
                               busIndex: v.busIndex, isReal: v.phase == .real,
                               held: v.paused || (v.busIndex < busPaused.count && busPaused[v.busIndex]),
                               startAt: v.startAt, gain: v.gain, audibility: v.audibility, position: position(ofSlot: i))
    }
}
