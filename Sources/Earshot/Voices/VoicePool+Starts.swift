// The voice pool's scheduled starts: voices waiting for their start time (a delay), kept in a
// min-heap on it, so that the loopback render can cut its mix calls exactly where the next one
// is due and start it there — on its frame, whatever the render's size.
extension VoicePool {
    /// One voice waiting for its start: when, and which voice (its slot and generation: an entry
    /// whose voice ended or was replaced is dropped when it comes up).
    struct PendingStart {
        var at: Double
        var index: Int32
        var generation: UInt32
    }

    /// Files voice `index` (virtual, its ``VoiceState/startAt`` ahead) under its start time.
    func addPendingStart(_ index: Int) {
        if pendingStarts.count >= 2 * capacity { compactPendingStarts() }
        pendingStarts.append(PendingStart(at: slots[index].startAt, index: Int32(index),
                                          generation: slots[index].generation))
        var child = pendingStarts.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard pendingStarts[child].at < pendingStarts[parent].at else { break }
            pendingStarts.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest start time still ahead (engine clock, seconds), nil when none waits. Entries
    /// of voices that ended, started or were moved later by a pause are settled on the way.
    func nextPendingStart() -> Double? {
        while let top = pendingStarts.first {
            let index = Int(top.index)
            guard slots[index].generation == top.generation, slots[index].phase == .virtual, slots[index].fresh else {
                popPendingStart()   // ended, already started, or its slot holds another voice
                continue
            }
            if slots[index].startAt > top.at {
                // A pause moved its start on (playback time): file it again under the new time.
                popPendingStart()
                addPendingStart(index)
                continue
            }
            return top.at
        }
        return nil
    }

    /// Starts every waiting voice whose start time has come by `now` (plus half a frame of
    /// `frameDuration`, so that a start is never one frame late for rounding), each on a free
    /// source when it may be heard: not held, its bus not paused, audible. One that cannot start
    /// now (no free source, held) stays virtual for the next update to rank, as any voice.
    /// Returns whether one started.
    @discardableResult
    func startDue(now: Double, frameDuration: Double) -> Bool {
        let due = now + frameDuration / 2
        var started = false
        while let at = nextPendingStart(), at <= due {
            let index = Int(pendingStarts[0].index)
            popPendingStart()
            guard slots[index].holds == 0, !busPaused[slots[index].busIndex],
                  slots[index].audibility >= settings.audibilityFloor,
                  freeSources.count >= (slots[index].image != 0 ? sourcesNeeded(index) : 1),
                  let source = freeSources.popLast() else { continue }
            // Its start time, exactly: `startReal` plays it from the top (not late).
            startReal(index, on: source, now: max(now, slots[index].startAt))
            started = true
        }
        if started { serviceNeeded = true }
        return started
    }

    /// Drops the entries whose start time has come by `now`: the update ranks those voices
    /// itself. Keeps the heap small on an engine that never renders (a live device).
    func dropDueStarts(now: Double) {
        while let at = nextPendingStart(), at <= now { popPendingStart() }
    }

    /// Files again only the voices still waiting (entries of voices stopped before their start
    /// would otherwise pile up): at most one per live voice, so the heap stays within twice the
    /// pool's capacity (reserved: no allocation).
    private func compactPendingStarts() {
        pendingStarts.removeAll(keepingCapacity: true)
        for index in live where slots[index].phase == .virtual && slots[index].fresh {
            addPendingStart(index)
        }
    }

    func popPendingStart() {
        let last = pendingStarts.count - 1
        pendingStarts.swapAt(0, last)
        pendingStarts.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < pendingStarts.count else { break }
            var smallest = left
            if left + 1 < pendingStarts.count,
               pendingStarts[left + 1].at < pendingStarts[left].at { smallest = left + 1 }
            guard pendingStarts[smallest].at < pendingStarts[parent].at else { break }
            pendingStarts.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
