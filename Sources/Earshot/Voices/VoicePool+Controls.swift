import COpenAL

// The voice pool, controls from the engine: stop, stop all, the clip bookkeeping an unload
// needs (detach, count), modify, mark gains dirty, end all.
extension VoicePool {
    /// Stops a voice: a virtual one at once, a real one after a fade of `fade` seconds.
    func stop(_ id: VoiceID, fade: Double) {
        guard let index = slot(id) else { return }
        stopIndex(index, fade: fade)
    }

    /// Stops a voice with the steal fade to make room for another play of its sound; it ends as
    /// ``VoiceEndReason/stolen``.
    func steal(_ index: Int) {
        slots[index].stopReason = .stolen
        stopIndex(index, fade: settings.fadeTime)
    }

    private func stopIndex(_ index: Int, fade: Double) {
        serviceNeeded = true
        if slots[index].phase == .real {
            if fade > settings.fadeTime, !slots[index].paused, !busPaused[slots[index].busIndex] {
                // A stop fade is the voice's own envelope: playback time, frozen by a pause
                // (the voice then waits, virtual, and finishes the fade once resumed).
                slots[index].ownStops = true
                slots[index].ownTarget = 0
                slots[index].ownRate = Float(1 / fade)
                ownFadesMayRun = true
                return
            }
            // The steal fade, or a voice already leaving its source for a pause: out at once.
            slots[index].fadeAction = .stop
            releasesPending = true
            slots[index].fadeTarget = 0
            slots[index].fadeRate = Float(1 / max(fade, settings.fadeTime))
            slots[index].silentSince = -1
        } else {
            end(index, reason: slots[index].stopReason)
        }
    }

    /// Stops every voice matching `predicate` (with the steal fade).
    func stopAll(where predicate: (VoiceState) -> Bool) {
        var i = 0
        while i < live.count {
            let index = live[i]
            if predicate(slots[index]) {
                let wasVirtual = slots[index].phase == .virtual
                stopIndex(index, fade: settings.fadeTime)
                if wasVirtual { continue }   // it left `live`; `live[i]` is another voice now
            }
            i += 1
        }
    }

    /// Detaches `buffer` from every idle source still holding it, so that it can be deleted.
    func detach(buffer: ALuint) {
        for source in freeSources where attached[Int(source)] == buffer {
            alSourcei(source, AL_BUFFER, 0)
            attached[Int(source)] = 0
        }
    }

    /// Voices (any phase) playing clip `clipID`.
    func count(usingClip clipID: UInt32) -> Int {
        live.reduce(0) { $0 + (slots[$1].clipID == clipID ? 1 : 0) }
    }

    /// Applies `change` to a live voice and marks what must be pushed.
    func modify(_ id: VoiceID, _ change: (inout VoiceState) -> Void) {
        guard let index = slot(id) else { return }
        serviceNeeded = true
        invalidateEvictionHeap()   // a priority (or pause) may change
        change(&slots[index])
    }

    // MARK: A live voice's properties (checked values; a stale `id` does nothing)

    func setGain(_ id: VoiceID, _ gain: Float) {
        modify(id) { v in
            v.gain = gain
            v.dirtyGain = true
        }
    }

    /// The time played so far counts at the old pitch: the voice's time, its markers' times and
    /// the sidechain's playhead estimate stay true.
    func setPitch(_ id: VoiceID, _ pitch: Float, now: Double) {
        guard let i = slot(id) else { return }
        accountPosition(i, now: now)
        modify(id) { v in
            v.pitch = pitch
            v.dirtyPitch = true
        }
    }

    /// Pans a non-positional voice (a positioned one keeps its place).
    func setPan(_ id: VoiceID, _ pan: Float) {
        modify(id) { v in
            guard v.placement == .pan else { return }
            v.pan = pan
            v.dirtySpatial = true
        }
    }

    /// Moves a positioned voice (one following an emitter moves with it instead).
    func setPosition(_ id: VoiceID, _ position: Vector3) {
        modifyPositioned(id) { v in
            v.spatial.position = position
            v.dirtyPosition = true
        }
    }

    func setSpatial(_ id: VoiceID, _ properties: SpatialProperties) {
        noteDistanceSettings(properties)
        modifyPositioned(id) { v in
            v.spatial = properties
            v.dirtySpatial = true
        }
    }

    /// Applies `change` to a live voice with a position of its own (not a panned one, not one
    /// following an emitter).
    private func modifyPositioned(_ id: VoiceID, _ change: (inout VoiceState) -> Void) {
        modify(id) { v in
            guard v.placement == .spatial else { return }
            change(&v)
        }
    }

    func setPriority(_ id: VoiceID, _ priority: UInt8) {
        modify(id) { $0.priority = priority }
    }

    /// Pauses or resumes a voice: its time runs up to the pause and, resumed, from `now` on
    /// (``Voice/time``). Call ``accountPauses(now:)`` first: a start delay is playback time.
    func setPaused(_ id: VoiceID, _ paused: Bool, now: Double) {
        if let i = slot(id) { accountPosition(i, now: now) }
        modify(id) { $0.paused = paused }
    }

    // MARK: The curves' writes (Parameters/), by slot index within one AL section

    /// A curve's gain for the voice in slot `index` (nothing to push when unchanged).
    @inline(__always)
    func setGain(ofSlot index: Int, _ gain: Float) {
        guard slots[index].gain != gain else { return }
        slots[index].gain = gain
        slots[index].dirtyGain = true
        serviceNeeded = true
    }

    /// A curve's pitch for the voice in slot `index`: the time played so far counts at the old one.
    @inline(__always)
    func setPitch(ofSlot index: Int, _ pitch: Float, now: Double) {
        guard slots[index].pitch != pitch else { return }
        accountPosition(index, now: now)
        slots[index].pitch = pitch
        slots[index].dirtyPitch = true
        serviceNeeded = true
    }

    /// A curve's priority for the voice in slot `index`.
    @inline(__always)
    func setPriority(ofSlot index: Int, _ priority: UInt8) {
        guard slots[index].priority != priority else { return }
        slots[index].priority = priority
        invalidateEvictionHeap()
    }

    /// Layer `id` (in slot `index`) keeps in step with the voice in slot `leader`: paused when
    /// it is, and where it is (own position or pan; an emitter moves both).
    func follow(_ index: Int, id: VoiceID, leader l: Int, now: Double) {
        if slots[index].paused != slots[l].paused {
            accountPosition(index, now: now)
            modify(id) { $0.paused = slots[l].paused }
        }
        switch slots[l].placement {
        case .spatial where slots[index].placement == .spatial && slots[index].spatial != slots[l].spatial:
            slots[index].spatial = slots[l].spatial
            slots[index].dirtySpatial = true
            serviceNeeded = true
        case .pan where slots[index].placement == .pan && slots[index].pan != slots[l].pan:
            slots[index].pan = slots[l].pan
            slots[index].dirtySpatial = true
            serviceNeeded = true
        default:
            break
        }
    }

    /// Stops the voice in slot `index` (handle `id`) as ``VoiceEndReason/stopped`` with the steal
    /// fade, unless it is stopping already: a layer whose first layer ended or stopped.
    func stopLayer(_ index: Int, id: VoiceID) {
        guard slots[index].fadeAction != .stop, !slots[index].ownStops else { return }
        slots[index].stopReason = .stopped
        stop(id, fade: 0)
    }

    /// Ends a looping voice's loop: it plays to the end of the pass it is in (a voice still
    /// waiting for its start plays one pass) and ends as ``VoiceEndReason/finished``. Returns the
    /// engine-clock seconds from `now` to its last frame — where a timeline's tail starts — or nil
    /// for a voice that is not live or does not loop. A real source keeps playing: only its
    /// `AL_LOOPING` goes off, so the pass ends on its frame with nothing cut.
    func endLoop(_ id: VoiceID, now: Double) -> Double? {
        guard let i = slot(id), slots[i].loop, slots[i].clipFrames > 0 else { return nil }
        let speed = slots[i].clipRate * Double(slots[i].pitch)
        guard speed > 0 else { return nil }
        let length = Double(slots[i].clipFrames)
        let wait = max(0, slots[i].startAt - now)
        var inPass = slots[i].startFrame
        if wait == 0 {
            accountPosition(i, now: now)
            var p = slots[i].phase == .real ? slots[i].realOffset : slots[i].playhead
            // A position summed from engine times a rounding error off a frame is that frame.
            if abs(p - p.rounded()) < 1e-6 { p = p.rounded() }
            inPass = p.truncatingRemainder(dividingBy: length)
            if slots[i].phase == .real { slots[i].realOffset = inPass } else { slots[i].playhead = inPass }
        }
        slots[i].loop = false
        slots[i].passes = 1
        if slots[i].phase == .real {
            let source = slots[i].source
            alSourcei(source, AL_LOOPING, AL_FALSE)
            pushed[Int(source)].loop = false
            if slots[i].image & VoiceState.ImageFlags.paired != 0 {
                let partner = balance[i].partner
                alSourcei(partner, AL_LOOPING, AL_FALSE)
                pushed[Int(partner)].loop = false
            }
        }
        return wait + (length - inPass) / speed
    }

    /// Marks the gain of every voice dirty (a bus or master gain changed).
    func markAllGainsDirty() {
        serviceNeeded = true
        for index in real { slots[index].dirtyGain = true }
    }

    /// Ends every voice (shutdown).
    func endAll() {
        while let index = live.last {
            end(index, reason: .stopped)
        }
    }
}
