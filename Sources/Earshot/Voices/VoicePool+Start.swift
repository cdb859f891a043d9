import COpenAL

// The voice pool, starting a voice: the slot it gets (or the refusal, or the virtual voice it
// evicts), the one place a voice's source is started (`startReal`: a new voice now, a waiting
// winner in `service`, a scheduled start, a live start with its lead-in), and what a source is
// sent then and later. Everything a play runs in the pool is in this file, so the path from
// `play(clip)` to `alSourcePlay` stays short (the Architecture article, "The path of a play").
extension VoicePool {
    /// Starts a voice: on a free source at once when it may be heard now, else as a virtual voice
    /// that the next update ranks. Returns ``VoiceID/refused`` when the pool is full and the request
    /// has the lowest standing. `r` comes from ``PlayResolver`` in the same AL lock section: its
    /// indices are valid and its values checked.
    func start(_ r: ResolvedPlay, now: Double) -> VoiceID {
        clock = now
        serviceNeeded = true
        var v = VoiceState()
        v.clipID = r.clipID
        v.buffer = r.buffer
        v.clipFrames = r.frames
        v.clipRate = Double(r.rate)
        v.gain = r.gain
        v.pitch = r.pitch
        v.loop = r.loop
        v.passes = r.passes
        v.startFrame = r.startFrame
        v.playhead = r.startFrame
        v.soundKey = r.soundKey
        v.limitHeld = r.held
        v.priority = r.priority
        v.busIndex = r.busIndex
        v.placement = r.placement
        switch r.placement {
        case .pan:
            v.pan = r.pan
        case .spatial:
            v.spatial = r.spatial
        case .emitter:
            v.emitterIndex = r.emitterIndex
            v.emitterVersion = emitters[r.emitterIndex].version
            v.emitterFullVersion = emitters[r.emitterIndex].fullVersion
            if r.ownDistance {
                v.spatial = r.spatial
                v.ownDistance = true
            }
        }
        if r.image != 0 { noteImage(&v, r) }
        v.startAt = now + r.delay
        if r.delay > 0, r.busIndex < busPaused.count, busPaused[r.busIndex] {
            // Born on a paused bus: the delay counts from the resume. The next accounting adds
            // everything since `pausesAccountedUntil`, so count from there.
            v.startAt = min(now, pausesAccountedUntil) + r.delay
        }
        v.playheadClock = v.startAt
        if r.fadeIn > 0 {
            v.ownFade = 0
            v.ownTarget = 1
            v.ownRate = Float(1 / r.fadeIn)
            ownFadesMayRun = true
        }
        sequence &+= 1
        v.sequence = sequence
        v.phase = .virtual
        v.audibility = audibility(of: v)
        if v.placement != .pan { v.distanceGain = initialDistanceGain(v) }

        let index: Int
        if let free = freeSlots.popLast() {
            index = free
        } else {
            guard let victim = worstVirtual(), outranks(v, slots[victim]) else {
                stats.refusals += 1
                recordRefusal(.refused, sound: r.soundKey)
                return .refused
            }
            stats.evictions += 1
            popWorstVirtual(victim)
            end(victim, reason: .evicted)
            guard let free = freeSlots.popLast() else {
                recordRefusal(.refused, sound: r.soundKey)
                return .refused
            }
            index = free
        }
        v.generation = slots[index].generation
        v.liveIndex = live.count
        slots[index] = v
        voiceEnvironment[index] = r.environment
        voiceClipGain[index] = r.clipGain
        var needed = 1
        if r.image != 0 {
            voiceSpread[index] = r.spread
            balance[index] = BalanceState(channels: r.channels)
            needed = sourcesNeeded(index)
        }
        timeline.wrapped[index] = 0
        timeline.startAudio[index] = r.startAudioTime
        live.append(index)

        if r.delay == 0, !r.held, !busPaused[r.busIndex], v.audibility >= settings.audibilityFloor,
           freeSources.count >= needed, let source = freeSources.popLast() {
            startReal(index, on: source, now: now)
        } else {
            addVirtualCandidate(index)
            if v.startAt > now {
                addPendingStart(index)
                fileMixTarget(index, r.mixTarget)
            }
        }
        return VoiceID(index: UInt32(index), generation: slots[index].generation)
    }

    /// Voice `id`, just started from clip frame `startFrame`, reports its clip's `markers` as it
    /// passes them (nothing for a refused play or a clip without markers).
    @inline(__always)
    func mark(_ id: VoiceID, markers: [Marker], from startFrame: Double) {
        guard !markers.isEmpty, id != .refused else { return }
        timeline.mark(Int(id.index), markers: markers, from: startFrame)
    }

    /// Gives voice `index` `source` and plays it from `now` (engine clock). With `leadIn` (a
    /// scheduled start on a live device, VoicePool+LiveStarts.swift) the source's queue is that
    /// silence, then the clip's passes: the caller trims the silence to end on the start's frame.
    func startReal(_ index: Int, on source: ALuint, now: Double, leadIn: LiveStartTable.Silence? = nil) {
        // Edited in place (a slot is 256 bytes: copying it out and back cost more than the edits).
        // The playhead was last brought up to date at the previous update (a one-shot past its
        // end is clamped to its last frame below).
        _ = catchUpPlayhead(index, now: now)
        let v = slots.pointer(index)
        // A 2D stereo voice: its channels on two sources, the left on this one (VoicePool+Balance.swift).
        let partner = v.pointee.image != 0 && leadIn == nil ? takePartner(index) : 0
        let buffer = partner != 0 ? balance[index].channels.left : v.pointee.buffer
        // A stopped source that already holds this clip's buffer plays it again from the start;
        // setting `AL_BUFFER` anyway would allocate a new buffer-queue item inside OpenAL Soft.
        if let leadIn {
            // Silence, then every pass (or, looping, enough copies of the clip to last until the
            // update after the lead-in switches AL_LOOPING on): one queue, played back to back.
            alSourcei(source, AL_BUFFER, 0)
            let count = (v.pointee.loop ? Self.leadLoopCopies(v.pointee) : Int(v.pointee.passes)) + 1
            if queueScratch.count < count { queueScratch = [ALuint](repeating: 0, count: count) }
            queueScratch[0] = leadIn.buffer
            for k in 1..<count { queueScratch[k] = v.pointee.buffer }
            alSourceQueueBuffers(source, ALsizei(count), queueScratch)
            attached[Int(source)] = 0
            v.pointee.queued = true
            liveStarts.lead[index] = Double(leadIn.frames)
        } else if v.pointee.passes > 1 {
            // A loop count: the buffer queued once per pass plays them gaplessly and stops after
            // the last, sample-exact (released sources drop the queue: `releaseSource`).
            alSourcei(source, AL_BUFFER, 0)
            let passes = Int(v.pointee.passes)
            if queueScratch.count < passes { queueScratch = [ALuint](repeating: 0, count: passes) }
            for k in 0..<passes { queueScratch[k] = buffer }
            alSourceQueueBuffers(source, ALsizei(passes), queueScratch)
            attached[Int(source)] = 0
            v.pointee.queued = true
        } else if attached[Int(source)] != buffer {
            alSourcei(source, AL_BUFFER, ALint(bitPattern: buffer))
            attached[Int(source)] = buffer
        }
        if partner != 0 { loadPartner(index, partner) }
        let looping = v.pointee.loop && leadIn == nil   // a lead-in must not loop with the clip
        if pushed[Int(source)].loop != looping {
            alSourcei(source, AL_LOOPING, looping ? AL_TRUE : AL_FALSE)
            pushed[Int(source)].loop = looping
        }
        pushPitch(v.pointee.pitch, to: source)
        pushSpatial(index, to: source)
        let late = now - v.pointee.startAt
        let fromStart = v.pointee.fresh && late <= settings.lateStartTolerance
        // With a lead-in the clip's first frame is heard at its start time, not now: the
        // estimate of where the source is (`realOffset` at `realClock`) begins there.
        v.pointee.realClock = leadIn == nil ? now : max(now, v.pointee.startAt)
        if fromStart {
            timeline.wrapped[index] = 0   // from its first frame again, whatever it did virtually
            v.pointee.playhead = v.pointee.startFrame
            v.pointee.realOffset = v.pointee.startFrame
            if v.pointee.startFrame > 0 {
                // Beginning part-way into the clip (an offset): fade in, so it cannot click.
                alSourcei(source, AL_SAMPLE_OFFSET, ALint(v.pointee.startFrame))
                if partner != 0 { alSourcei(partner, AL_SAMPLE_OFFSET, ALint(v.pointee.startFrame)) }
                v.pointee.fade = 0
                v.pointee.fadeTarget = 1
                v.pointee.fadeRate = Float(1 / settings.fadeTime)
            }
        } else {
            var offset = v.pointee.playhead
            if v.pointee.loop {
                let length = Double(v.pointee.clipFrames)
                offset = offset.truncatingRemainder(dividingBy: length)
                // A playhead a rounding error short of the clip's end (time summed over many
                // frames) is the next pass's first frame, not the last frame again.
                if length - offset < 0.5 { offset -= length }
                noteWrap(index, frames: v.pointee.playhead - offset)
            }
            offset = min(max(0, offset), (v.pointee.loop ? Double(v.pointee.clipFrames) : v.pointee.totalFrames) - 1)
            v.pointee.realOffset = offset
            alSourcei(source, AL_SAMPLE_OFFSET, ALint(offset.rounded()))
            if partner != 0 { alSourcei(partner, AL_SAMPLE_OFFSET, ALint(offset.rounded())) }
            // Joining mid-clip: start silent, then fade in (OpenAL ramps only after a first mix).
            v.pointee.fade = 0
            v.pointee.fadeTarget = 1
            v.pointee.fadeRate = Float(1 / settings.fadeTime)
            stats.resumes += 1
        }
        if v.pointee.isOwnFading { ownFadesMayRun = true }
        if v.pointee.fade < 1 || v.pointee.fadeTarget < 1 || v.pointee.ownFade < 1 {
            v.pointee.awaitingFirstMix = true
        }
        v.pointee.fadeAction = .none
        v.pointee.silentSince = -1
        v.pointee.fresh = false
        v.pointee.phase = .real
        v.pointee.source = source
        v.pointee.dirtyGain = false
        v.pointee.dirtySpatial = false
        v.pointee.dirtyPosition = false
        v.pointee.dirtyPitch = false
        v.pointee.realIndex = real.count
        real.append(index)
        if partner != 0 {
            pushPairGains(index)
            ALContext.play(source, partner)   // together: the channels stay sample-aligned
            return
        }
        alSourcef(source, AL_GAIN, effectiveGain(index))
        ALContext.play(source)   // checked with the section (the engine's play or update)
    }

    // MARK: What a voice's source is sent (gain, placement, pitch, environment), each only when
    // it differs from what the source already has

    @inline(__always)
    func effectiveGain(_ index: Int) -> Float {
        slots[index].gain * busGains[slots[index].busIndex] * slots[index].fade * slots[index].ownFade * slots[index].distanceGain
    }

    /// The spatial properties a positioned voice is heard with: its own, its emitter's, or (an
    /// emitter voice with settings of its own) its emitter's with its distance settings under
    /// the emitter's explicit ones.
    @inline(__always)
    func voiceSpatial(_ index: Int) -> SpatialProperties {
        switch slots[index].placement {
        case .pan, .spatial: return slots[index].spatial
        case .emitter:
            let e = emitterSpatial[slots[index].emitterIndex]
            return slots[index].ownDistance ? e.distance(forVoice: slots[index].spatial) : e
        }
    }

    /// The engine's share of a positioned voice's distance gain now (``VoiceState/distanceGain``).
    @inline(__always)
    func engineDistanceGain(_ index: Int) -> Float {
        switch slots[index].placement {
        case .pan: return 1
        case .spatial:
            return heardSpatial(index).engineDistanceGain(listenerPosition: listenerPosition, model: distanceModel)
        case .emitter:
            // The emitter's cached gain is where it is; a voice the rooms hear elsewhere has its own.
            if !slots[index].ownDistance, !hasHeardPlacement(index) { return emitterEngineGain(slots[index].emitterIndex) }
            return heardSpatial(index).engineDistanceGain(listenerPosition: listenerPosition, model: distanceModel)
        }
    }

    /// Sends a voice's placement to its source: only what differs from what the source has.
    func pushSpatial(_ index: Int, to source: ALuint) {
        var s: SpatialProperties
        switch slots[index].placement {
        case .pan:
            // Head-relative on the unit circle, no distance attenuation: a constant-power pan
            // (a channel pair's first source: its left channel, hard left).
            let pan = slots[index].image & VoiceState.ImageFlags.paired == 0 ? slots[index].pan : -pairSide
            s = SpatialProperties(position: PlayOptions.panPosition(pan), referenceDistance: 1, rolloff: 0,
                                  isRelative: true)
        case .spatial, .emitter:
            s = heardSpatial(index)
            // A curve or another model than the engine's: the engine applies the distance gain
            // (`distanceGain`), OpenAL only the cone.
            if s.distanceComputedByEngine(model: distanceModel) { s.rolloff = 0 }
        }
        let i = Int(source)
        s.apply(to: source, since: pushed[i].spatial)
        pushed[i].spatial = s
        if slots[index].image != 0 { pushImage(index, to: source, heard: s) }
        router?.apply(source: source, positioned: slots[index].placement != .pan, bus: slots[index].busIndex,
                      environment: environment(ofSlot: index), starting: slots[index].phase != .real)
        if heardInUse { router?.setPropagationFilter(heardFilter(index), source: source) }
    }

    /// The occlusion, obstruction, air absorption and send level of a voice (its emitter's when
    /// it follows one).
    @inline(__always)
    func environment(ofSlot index: Int) -> EnvironmentProperties {
        slots[index].placement == .emitter ? emitterEnvironment[slots[index].emitterIndex] : voiceEnvironment[index]
    }

    /// Where a positioned voice is (its own position, or its emitter's); nil for a panned voice.
    @inline(__always)
    func position(ofSlot index: Int) -> Vector3? {
        switch slots[index].placement {
        case .pan: return nil
        case .spatial: return slots[index].spatial.position
        case .emitter: return emitterSpatial[slots[index].emitterIndex].position
        }
    }

    /// Moves a voice's position only (the per-frame hot path for emitters and voices).
    @inline(__always)
    func pushPosition(_ index: Int, to source: ALuint) {
        if mapsPositions {   // several listeners or a spread voice: the whole placement follows
            pushSpatial(index, to: source)
            return
        }
        guard var p = position(ofSlot: index) else { return }
        if heardInUse, let q = heardPosition(index) { p = q }
        alSource3f(source, AL_POSITION, p.x, p.y, p.z)
        // Keep the per-source cache true to what OpenAL has: a later `pushSpatial` compares with
        // it, and a stale cached position made a move back to it (A → B → A) look redundant.
        pushed[Int(source)].spatial?.position = p
    }

    func pushPitch(_ pitch: Float, to source: ALuint) {
        guard pushed[Int(source)].pitch != pitch else { return }
        alSourcef(source, AL_PITCH, pitch)
        pushed[Int(source)].pitch = pitch
    }

    /// The sources of the voices playing on a source now: whether each is positioned, its bus
    /// index and its environment.
    func realSources() -> [(source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties)] {
        var list = real.map { (slots[$0].source, slots[$0].placement != .pan, slots[$0].busIndex, environment(ofSlot: $0)) }
        if partnersInUse > 0 {   // a channel pair's second source has the same sends
            for i in real where balance[i].partner != 0 { list.append((balance[i].partner, false, slots[i].busIndex, environment(ofSlot: i))) }
        }
        return list
    }

    // MARK: The gain and the playhead a start needs

    /// master × bus × voice gain × attenuation (distance and cone) of a voice where it is.
    /// `borrowing`, so that reading a slot in place (`audibility(of: slots[i])`) copies nothing.
    /// A voice the rooms hear elsewhere is ranked by ``heardAudibility(_:)`` instead.
    @inline(__always)
    func audibility(of v: borrowing VoiceState) -> Float {
        let bus = busGains[v.busIndex] * masterGain * v.gain
        switch v.placement {
        case .pan: return bus
        case .spatial:
            return bus * heard(v.spatial).attenuation(listenerPosition: listenerPosition, model: distanceModel)
        case .emitter:
            if v.ownDistance { return bus * attenuation(emitter: v.emitterIndex, voice: v.spatial) }
            return bus * emitterAttenuation(v.emitterIndex)
        }
    }

    /// Brings a voice's playhead up to `now` on the engine clock: time counts from its start and
    /// stands still while the voice or its bus is paused; a loop wraps. Returns false when a
    /// one-shot's playhead has passed its end.
    @inline(__always)
    func catchUpPlayhead(_ index: Int, now: Double) -> Bool {
        let from = max(slots[index].playheadClock, slots[index].startAt)
        if now > from, !slots[index].paused, !busPaused[slots[index].busIndex] {
            if slots[index].isOwnFading { stepOwnFade(index, by: now - from) }   // playback time
            slots[index].playhead += (now - from) * slots[index].clipRate * Double(slots[index].pitch)
            if slots[index].loop {
                if slots[index].playhead >= Double(slots[index].clipFrames) { wrapPlayhead(index) }
            } else if slots[index].playhead >= slots[index].totalFrames {
                return false
            }
        }
        slots[index].playheadClock = max(now, slots[index].playheadClock)
        return true
    }
}
