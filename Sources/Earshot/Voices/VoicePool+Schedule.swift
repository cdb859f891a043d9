import COpenAL

// The voice pool, once per game frame: time, ends, audibility and who gets a source (`schedule`),
// the playheads of virtual voices (`catchUpPlayhead`, with the start in VoicePool+Start.swift)
// and the delays that pauses hold back.
extension VoicePool {
    /// Once per game frame: advance virtual time, end finished voices, recompute standings, steal
    /// and resume. Then `service` pushes properties and fades.
    func schedule(now: Double) {
        clock = now
        invalidateEvictionHeap()   // every audibility is recomputed below
        // 1. Time, ends, emitters, audibility — and, in the same pass, the candidates. Unless
        // the last update had more candidates than sources, every candidate is taken as a winner
        // for now (the common case: enough sources for all); otherwise none is, and the ranking
        // marks the winners (fewer writes when thousands of voices compete for the sources).
        let tentative = !expectOversubscribed
        if !emitters.isEmpty { refreshEmitterGains() }
        rankScratch.removeAll(keepingCapacity: true)
        waiting.removeAll(keepingCapacity: true)
        var stopping = 0
        // Whether some real voice may change course (it lost its candidacy, or its steal fade
        // may be called off): only then does step 3 visit every real voice.
        var realPassNeeded = false
        // Waiting channel pairs among the candidates: each needs a second source.
        let countPairs = pairsInUse
        var pairCandidates = 0
        // Delays run in playback time: a voice waiting for its start while it or its bus is
        // paused has its start moved on by the paused span.
        let pausedFrom = pausesAccountedUntil
        let pausedSpan = max(0, now - pausedFrom)
        pausesAccountedUntil = max(now, pausedFrom)
        var i = 0
        while i < live.count {
            let index = live[i]
            if pausedSpan > 0, slots[index].startAt > pausedFrom,
               slots[index].paused || busPaused[slots[index].busIndex] {
                slots[index].startAt += pausedSpan
            }
            guard advance(index, now: now) else { continue }   // it ended: `live[i]` is another voice now
            i += 1
            let isReal = slots[index].phase == .real
            if isReal {
                switch slots[index].fadeAction {
                case .stop:
                    slots[index].desired = false
                    stopping += 1
                    continue
                case .virtualize: realPassNeeded = true
                case .none: break
                }
            }
            // `holds`: paused, or held back by its sound's instance limit.
            // (A real voice before its start is in its lead-in on a live device: it competes.)
            if slots[index].holds != 0 || busPaused[slots[index].busIndex] || (slots[index].startAt > now && !isReal)
                || slots[index].audibility < settings.audibilityFloor {
                slots[index].desired = false
                if isReal { realPassNeeded = true }
                continue
            }
            slots[index].desired = tentative
            rankScratch.append(RankEntry(key: VoiceRanking.standing(slots[index]), index: index))
            if countPairs, !isReal, wantsPair(index) { pairCandidates += 1 }
            if tentative, !isReal { waiting.append(index) }
        }
        // 2. More candidates than sources: rank them; the best are desired, the rest are not.
        // A channel pair's second source is taken too (VoicePool+Balance.swift).
        let available = max(sources.count - stopping - partnersInUse, 0)
        let oversubscribed = rankScratch.count + pairCandidates > available
        // A waiting pair that does not fit is passed over (`fitPairs`): each one lets one more
        // candidate below it in.
        let ranked = min(available + pairCandidates, rankScratch.count)
        if oversubscribed, rankScratch.count > ranked { VoiceRanking.selectBest(ranked, in: &rankScratch) }
        var winners = min(available, rankScratch.count)
        if oversubscribed, pairCandidates > 0 { winners = fitPairs(ranked, available: available) }
        if tentative {
            if oversubscribed {
                for k in winners..<rankScratch.count { slots[rankScratch[k].index].desired = false }
            }
        } else {
            for k in 0..<winners { slots[rankScratch[k].index].desired = true }
        }
        if oversubscribed || !tentative {
            waiting.removeAll(keepingCapacity: true)
            for k in 0..<winners where slots[rankScratch[k].index].phase == .virtual {
                waiting.append(rankScratch[k].index)
            }
        }
        if oversubscribed { realPassNeeded = true }
        expectOversubscribed = oversubscribed

        // 3. Losers fade out; winners that are fading out fade back in; desired virtual voices wait.
        if realPassNeeded {
            for index in real {
                let action = slots[index].fadeAction
                if action == .stop { continue }
                if !slots[index].desired {
                    if action != .virtualize {
                        slots[index].fadeAction = .virtualize
                        slots[index].fadeTarget = 0
                        slots[index].fadeRate = Float(1 / settings.fadeTime)
                        slots[index].silentSince = -1
                        // Why it loses its source: paused (voice, bus or interruption), too
                        // quiet to hear, or outranked — only the last is a steal.
                        if slots[index].paused || busPaused[slots[index].busIndex] {
                            stats.pauses += 1
                        } else if slots[index].audibility < settings.audibilityFloor {
                            stats.virtualizations += 1
                        } else {
                            stats.steals += 1
                        }
                        releasesPending = true
                    }
                } else if action == .virtualize {
                    slots[index].fadeAction = .none
                    slots[index].fadeTarget = 1
                    slots[index].silentSince = -1
                }
            }
        }
        // Best first, so that sources freed one at a time go to the most important voices.
        if waiting.count > 1 { sortWaiting() }
        // Steals, resumes and starts need a service; moved emitters were sent above, and fades
        // or property changes already asked for one.
        if realPassNeeded || !waiting.isEmpty { serviceNeeded = true }
        // Starts due by now were ranked above like any voice: their heap entries go.
        if !pendingStarts.isEmpty { dropDueStarts(now: now) }
    }

    /// Moves the start of every voice still waiting for its delay on by the time it or its bus
    /// was paused since the last accounting: a delay is playback time. The engine calls this
    /// before a pause changes (bus or voice), so each span is counted with the pauses it had;
    /// ``schedule(now:)`` does the same for the span up to its frame.
    func accountPauses(now: Double) {
        let from = pausesAccountedUntil
        guard now > from else { return }
        pausesAccountedUntil = now
        for index in live where slots[index].startAt > from {
            let b = slots[index].busIndex
            if slots[index].paused || (b < busPaused.count && busPaused[b]) { slots[index].startAt += now - from }
        }
    }

    /// Advances one live voice to `now`. Returns false when the voice ended (and left `live`).
    private func advance(_ index: Int, now: Double) -> Bool {
        let e = slots[index].emitterIndex
        if e >= 0, slots[index].emitterVersion != emitters[e].version {
            // The voice reads its emitter's properties. A real voice sends them now (this runs
            // inside the frame's deferred batch); a virtual one sends everything when it starts.
            let full = slots[index].emitterFullVersion != emitters[e].fullVersion
            slots[index].emitterFullVersion = emitters[e].fullVersion
            slots[index].emitterVersion = emitters[e].version
            if slots[index].phase == .real {
                if full || slots[index].dirtySpatial {
                    slots[index].dirtySpatial = false
                    slots[index].dirtyPosition = false
                    pushSpatial(index, to: slots[index].source)
                } else {
                    slots[index].dirtyPosition = false
                    pushPosition(index, to: slots[index].source)
                }
            } else if full {
                slots[index].dirtySpatial = true
            } else {
                slots[index].dirtyPosition = true
            }
        }
        switch slots[index].phase {
        case .virtual:
            guard catchUpPlayhead(index, now: now) else {
                endFinishedVirtual(index, now: now)
                return false
            }
            if slots[index].ownStops, slots[index].ownFade == 0 {
                end(index, reason: slots[index].stopReason)
                return false
            }
        case .real:
            if !slots[index].loop {
                var state: ALint = 0
                alGetSourcei(slots[index].source, AL_SOURCE_STATE, &state)
                if state == AL_STOPPED {
                    endFinishedReal(index)
                    return false
                }
            }
        case .free:
            break
        }
        slots[index].audibility = slotAudibility(index)
        if engineDistanceInUse, slots[index].placement != .pan { updateDistanceGain(index) }
        return true
    }

    /// `audibility(of: slots[index])` for the loop over every voice, reading the slot in place: a
    /// panned voice, or one that follows an emitter with no distance settings of its own (the
    /// common case), costs a few loads; the others go out of line. (Given the slot whole,
    /// `audibility(of:)` was not inlined here, and each voice's 256-byte state was copied to call
    /// it: with the engine's distance gain below, +1 % instructions for 1,024 voices.) A voice
    /// the rooms hear elsewhere goes out of line too (``heardAudibility(_:)``); with no geometry
    /// ever set that check is one load.
    @inline(__always)
    private func slotAudibility(_ index: Int) -> Float {
        let placement = slots[index].placement
        guard placement == .pan || (placement == .emitter && !slots[index].ownDistance && !hasHeardPlacement(index)) else {
            return positionedAudibility(ofSlot: index)
        }
        let bus = busGains[slots[index].busIndex] * masterGain * slots[index].gain
        return placement == .pan ? bus : bus * emitterAttenuation(slots[index].emitterIndex)
    }

    @inline(never)
    private func positionedAudibility(ofSlot index: Int) -> Float {
        hasHeardPlacement(index) ? heardAudibility(index) : audibility(of: slots[index])
    }

    /// Brings a positioned voice's ``VoiceState/distanceGain`` up to date; a real voice whose
    /// gain changed is marked for the next service. Out of line, and only called while
    /// ``engineDistanceInUse``: run for every positioned voice, it cost ~60 instructions per
    /// voice and update (with the copies it made) although no voice needed it.
    /// Also called when the rooms move a voice's heard placement (VoicePool+Heard.swift).
    @inline(never)
    func updateDistanceGain(_ index: Int) {
        let g = slots[index].image & VoiceState.ImageFlags.spread != 0
            ? spreadGain(heardSpatial(index)) : engineDistanceGain(index)
        guard g != slots[index].distanceGain else { return }
        slots[index].distanceGain = g
        if slots[index].phase == .real {
            slots[index].dirtyGain = true
            serviceNeeded = true
        }
    }

    // The ends of one-shots, timed to their last frame, and a loop's wrap. Out of line
    // (`@inline(never)`): inlined, they made `advance` too large to inline in `schedule`'s loop
    // over every voice, which cost 25 → 34 ns per voice a frame with 10,000 voices (earshot stress
    // --voices 10000 --max-real 1024); the wrap's timeline bookkeeping inlined cost 28 → 40 ns.

    /// A virtual loop's playhead passed the clip's end: it wraps, and the voice's timeline keeps
    /// the frames wrapped away (VoiceTimeline.swift).
    @inline(never)
    func wrapPlayhead(_ index: Int) {
        let p = slots[index].playhead
        slots[index].playhead = p.truncatingRemainder(dividingBy: Double(slots[index].clipFrames))
        noteWrap(index, frames: p - slots[index].playhead)
    }

    /// A virtual one-shot's playhead passed its end: its last frame came that far before `now`.
    @inline(never)
    private func endFinishedVirtual(_ index: Int, now: Double) {
        stats.finished += 1
        let rate = slots[index].clipRate * Double(slots[index].pitch)
        let over = rate > 0 ? (slots[index].playhead - slots[index].totalFrames) / rate : 0
        end(index, reason: .finished, at: now - max(0, over))
    }

    /// A real one-shot's source stopped: its last frame, from where its source started
    /// (`realOffset` at `realClock`, rebased at every pitch change) at the clip rate × the pitch.
    @inline(never)
    private func endFinishedReal(_ index: Int) {
        stats.finished += 1
        let rate = slots[index].clipRate * Double(slots[index].pitch)
        let left = rate > 0 ? max(0, slots[index].totalFrames - slots[index].realOffset) / rate : 0
        end(index, reason: .finished, at: slots[index].realClock + left)
    }

    /// Moves a voice's own envelope on by `seconds` of playback time.
    @inline(__always)
    func stepOwnFade(_ index: Int, by seconds: Double) {
        let step = slots[index].ownRate * Float(seconds)
        let f = slots[index].ownFade, t = slots[index].ownTarget
        slots[index].ownFade = f < t ? min(t, f + step) : max(t, f - step)
    }
}
