import COpenAL

// The voice pool across a lost output device: every voice goes virtual, then takes new
// sources and rebound buffers after the rebuild (Engine/DeviceRecovery.swift).
extension VoicePool {
    /// The output device is gone and every source with it: each real voice goes on as a virtual
    /// one from where it should be now (estimated on the engine clock, since a lost source's
    /// offset reads 0); voices fading out to stop end; no voice gets a source until
    /// ``replaceSources(_:)``.
    func suspendAll(now: Double) {
        invalidateEvictionHeap()
        while let index = real.last {
            let v = slots[index]
            removeFromReal(index)
            slots[index].source = 0
            if v.image & VoiceState.ImageFlags.paired != 0 { dropPartner(index) }   // lost with the device
            slots[index].phase = .virtual
            var playhead = v.realOffset + max(0, now - v.realClock) * v.clipRate * Double(v.pitch)
            let stopping = v.fadeAction == .stop || v.ownStops
            slots[index].queued = false   // the lost source took its queue with it
            if stopping || (!v.loop && playhead >= v.totalFrames) {
                stats.finished += stopping ? 0 : 1
                end(index, reason: stopping ? v.stopReason : .finished)
                continue
            }
            if v.loop {
                let unwrapped = playhead
                playhead = playhead.truncatingRemainder(dividingBy: Double(v.clipFrames))
                noteWrap(index, frames: unwrapped - playhead)
            }
            slots[index].wentVirtual(at: playhead, now: now)
            slots[index].fresh = false
            slots[index].awaitingFirstMix = false
        }
        replaceSources([])
    }

    /// Gives the pool a new set of sources (after a rebuild, or none while the device is lost).
    func replaceSources(_ names: [ALuint]) {
        serviceNeeded = true
        precondition(real.isEmpty, "replaceSources with real voices")
        forgetLiveStarts()   // the old device's mixing clock and silence buffers
        sources = names
        freeSources = names.reversed()
        partnersInUse = 0   // no voice is real: no pair holds a source
        attached = SlotTable(repeating: 0, count: Int(names.max() ?? 0) + 1)
        pushed = SlotTable(repeating: PushedState(), count: Int(names.max() ?? 0) + 1)
        for s in names { alSourcef(s, AL_MAX_GAIN, 16) }
        waiting.removeAll(keepingCapacity: true)
    }

    /// Points every live voice at its clip's new buffer (after clips were uploaded again).
    func rebindBuffers(_ buffer: (UInt32) -> ALuint) {
        for index in live { slots[index].buffer = buffer(slots[index].clipID) }
    }
}
