import COpenAL

// The voice pool, starting a voice: the slot it gets (or the refusal, or the virtual voice it
// evicts), and the one place a voice's source is started (`startReal`: a new voice now, a
// waiting winner in `service`, a scheduled start, a live start with its lead-in).
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
        timeline.begin(index, startAudio: r.startAudioTime)
        live.append(index)

        if r.delay == 0, !r.held, !busPaused[r.busIndex], v.audibility >= settings.audibilityFloor,
           let source = freeSources.popLast() {
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
            for k in 0..<passes { queueScratch[k] = v.pointee.buffer }
            alSourceQueueBuffers(source, ALsizei(passes), queueScratch)
            attached[Int(source)] = 0
            v.pointee.queued = true
        } else if attached[Int(source)] != v.pointee.buffer {
            alSourcei(source, AL_BUFFER, ALint(bitPattern: v.pointee.buffer))
            attached[Int(source)] = v.pointee.buffer
        }
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
        alSourcef(source, AL_GAIN, effectiveGain(index))
        SourceStarter.play(source)   // checked with the section (the engine's play or update)
    }
}
