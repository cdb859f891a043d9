import COpenAL

// The voice pool, service step: fades run, completed fades free their sources, waiting winners
// start on free sources, dirty properties go out; a stolen or paused voice goes virtual.
extension VoicePool {
    /// Pushes what changed to OpenAL for the time span `now … now + lookahead`: fade envelopes are
    /// set to their value at the span's end (OpenAL ramps the gain linearly across its next mix),
    /// finished fades release sources, waiting voices take free sources, dirty properties go out.
    /// Wrap calls in `alDeferUpdatesSOFT`/`alProcessUpdatesSOFT` for one batch.
    ///
    /// `recordingEndsAt`: a render's service moves the pool's clock there first, so that the ends
    /// it records (a completed stop fade) happen at that time.
    @inline(__always)
    func service(now: Double, lookahead: Double, recordingEndsAt clockNow: Double) {
        clock = clockNow
        service(now: now, lookahead: lookahead)
    }

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
            if freeSources.count < 2, releasesPending, pairsInUse, sourcesNeeded(index) == 2 {
                // A channel pair: its second source is on its way (a fade releasing it).
                w -= 1
                break
            }
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
                if slots[index].image & VoiceState.ImageFlags.paired != 0 {
                    pushPairGains(index)
                } else {
                    alSourcef(source, AL_GAIN, effectiveGain(index))
                }
            }
            if slots[index].dirtyPitch {
                slots[index].dirtyPitch = false
                pushPitch(slots[index].pitch, to: source)
                if slots[index].image & VoiceState.ImageFlags.paired != 0 { pushPitch(slots[index].pitch, to: balance[index].partner) }
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
        let estimated = slots[index].realOffset + max(0,
            now - slots[index].realClock) * slots[index].clipRate * Double(slots[index].pitch)
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
        let heard = Double(offset) - lead
        noteRealWraps(index, estimated: estimated, heard: heard)
        slots[index].wentVirtual(at: heard, now: now)
    }

    func releaseSource(_ index: Int) {
        let source = slots[index].source
        if slots[index].image & VoiceState.ImageFlags.paired != 0 { releasePartner(index) }
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
