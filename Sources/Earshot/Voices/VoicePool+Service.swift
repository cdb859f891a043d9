import COpenAL

// The voice pool, service step: fades run, completed fades free their sources, waiting winners
// start on free sources, dirty properties go out; a stolen or paused voice goes virtual.
extension VoicePool {
    /// Pushes what changed to OpenAL for the time span `now … now + lookahead`: fade envelopes are
    /// set to their value at the span's end (OpenAL ramps the gain linearly across its next mix),
    /// finished fades release sources, waiting voices take free sources, dirty properties go out.
    /// Wrap calls in `alDeferUpdatesSOFT`/`alProcessUpdatesSOFT` for one batch.
    func service(now: Double, lookahead: Double) {
        // Completed fades first: they free sources.
        var i = 0
        while releasesPending, i < real.count {
            let index = real[i]
            if slots[index].fadeAction != .none, slots[index].fade == 0, slots[index].silentSince >= 0,
               now - slots[index].silentSince >= settings.settleTime {
                if slots[index].fadeAction == .stop {
                    end(index, reason: slots[index].stopReason)
                } else {
                    virtualize(index, now: now)
                }
                continue   // `real[i]` now holds another voice
            }
            i += 1
        }
        // Waiting winners take the free sources.
        var w = 0
        while w < waiting.count, !freeSources.isEmpty {
            let index = waiting[w]
            w += 1
            guard slots[index].phase == .virtual, slots[index].desired else { continue }
            let source = freeSources.removeLast()
            startReal(index, on: source, now: now)
        }
        if w > 0 { waiting.removeFirst(w) }

        // Envelopes and properties of real voices.
        var more = !waiting.isEmpty && !freeSources.isEmpty
        var pending = false
        let checkOwn = ownFadesMayRun
        var ownSeen = false
        for index in real {
            let source = slots[index].source
            if checkOwn, slots[index].isOwnFading { ownSeen = true }
            if slots[index].awaitingFirstMix {
                slots[index].awaitingFirstMix = false
                more = true
                continue
            }
            if slots[index].fadeAction != .none {
                more = true
                pending = true
            }
            if checkOwn, slots[index].isOwnFading, !slots[index].paused, !busPaused[slots[index].busIndex] {
                // The own envelope moves only while the voice plays (playback time); a paused
                // voice is fading out to virtual meanwhile and keeps its level for the resume.
                more = true
                stepOwnFade(index, by: lookahead)
                slots[index].dirtyGain = true
                if slots[index].ownStops, slots[index].ownFade == 0, slots[index].fadeAction != .stop {
                    // The stop fade is over: silent now; end once the mix has ramped to zero.
                    slots[index].fadeAction = .stop
                    slots[index].fade = 0
                    slots[index].fadeTarget = 0
                    slots[index].silentSince = now + lookahead
                    pending = true
                }
            }
            if slots[index].isFading {
                more = true
                let step = slots[index].fadeRate * Float(lookahead)
                let f = slots[index].fade, t = slots[index].fadeTarget
                slots[index].fade = f < t ? min(t, f + step) : max(t, f - step)
                slots[index].dirtyGain = true
            }
            if slots[index].fade == 0, slots[index].fadeAction != .none, slots[index].silentSince < 0 {
                // Silent once the mix that follows has ramped to zero.
                slots[index].silentSince = now + lookahead
            }
            if slots[index].dirtyGain {
                slots[index].dirtyGain = false
                alSourcef(source, AL_GAIN, effectiveGain(index))
            }
            if slots[index].dirtyPitch {
                slots[index].dirtyPitch = false
                pushPitch(slots[index].pitch, to: source)
            }
            if slots[index].dirtySpatial {
                slots[index].dirtySpatial = false
                slots[index].dirtyPosition = false
                pushSpatial(index, to: source)
            } else if slots[index].dirtyPosition {
                slots[index].dirtyPosition = false
                pushPosition(index, to: source)
            }
        }
        serviceNeeded = more
        releasesPending = pending
        // Virtual voices move theirs with the playhead; one that takes a source sets the flag again.
        if checkOwn, !ownSeen { ownFadesMayRun = false }
    }

    /// The time until the next fade event a render should stop at, or nil when no fade runs.
    func nextFadeBoundary() -> Double? {
        var next: Double?
        for index in real {
            if slots[index].awaitingFirstMix {
                next = min(next ?? .infinity, 0.001)
            } else if slots[index].isFading, slots[index].fadeRate > 0 {
                let remaining = Double(abs(slots[index].fadeTarget - slots[index].fade) / slots[index].fadeRate)
                next = min(next ?? .infinity, max(remaining, 0.0005))
            } else if ownFadesMayRun, slots[index].isOwnFading, slots[index].ownRate > 0 {
                let remaining = Double(abs(slots[index].ownTarget - slots[index].ownFade) / slots[index].ownRate)
                next = min(next ?? .infinity, max(remaining, 0.0005))
            } else if slots[index].fadeAction != .none, slots[index].fade == 0 {
                next = min(next ?? .infinity, 0.0005)
            }
        }
        if !waiting.isEmpty, !freeSources.isEmpty { next = min(next ?? .infinity, 0.0005) }
        return next
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

    /// Takes the source from a real voice (its fade has completed) and keeps it going as virtual.
    private func virtualize(_ index: Int, now: Double) {
        let source = slots[index].source
        var offset: ALfloat = 0
        alGetSourcef(source, AL_SAMPLE_OFFSET, &offset)
        var state: ALint = 0
        alGetSourcei(source, AL_SOURCE_STATE, &state)
        let lead = liveStarts.lead[index]   // the offset counts the lead-in's silence
        // Where the estimate from its start puts it, unwrapped: the passes its looping source went
        // round while real are counted on its timeline.
        let estimated = slots[index].realOffset + max(0, now - slots[index].realClock) * slots[index].clipRate * Double(slots[index].pitch)
        releaseSource(index)
        slots[index].phase = .virtual
        invalidateEvictionHeap()
        if state == AL_STOPPED, !slots[index].loop {
            stats.finished += 1
            end(index, reason: .finished)
            return
        }
        if lead > 0, Double(offset) < lead {
            // Taken in its lead-in, before a frame was heard: it waits for its start again.
            slots[index].playhead = slots[index].startFrame
            slots[index].playheadClock = now
            slots[index].fresh = true
            slots[index].fade = 1
            slots[index].fadeTarget = 1
            slots[index].fadeAction = .none
            slots[index].silentSince = -1
            if slots[index].startAt > now { addPendingStart(index) }
            return
        }
        slots[index].playhead = Double(offset) - lead
        noteRealWraps(index, estimated: estimated, heard: slots[index].playhead)
        slots[index].playheadClock = now
        // It will fade in when it comes back.
        slots[index].fade = 0
        slots[index].fadeTarget = 0
        slots[index].fadeAction = .none
        slots[index].silentSince = -1
    }

    func releaseSource(_ index: Int) {
        let source = slots[index].source
        alSourceStop(source)
        if slots[index].queued {
            // Drop the pass queue: the source holds no buffer that unloading could not detach.
            alSourcei(source, AL_BUFFER, 0)
            attached[Int(source)] = 0
            slots[index].queued = false
            liveStarts.lead[index] = 0   // a lead-in is always queued
        }
        freeSources.append(source)
        removeFromReal(index)
        slots[index].source = 0
    }
}
