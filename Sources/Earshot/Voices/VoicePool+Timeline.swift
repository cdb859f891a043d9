import COpenAL

// The voice pool, timelines: where a voice is on its clip's timeline (loops counted), and the
// clip markers its playhead passes (VoiceTimeline.swift holds the side table). Positions are in
// clip frames along the timeline: a voice's first pass runs from its start frame to the clip's
// end, each further pass (a loop, a loop count) adds the clip's length.
extension VoicePool {
    /// Voice `index`'s timeline position at engine time `t` (frames, loops counted), without
    /// moving anything: a virtual voice's playhead brought forward from where it was last
    /// accounted, a real one's from where its source started (`realOffset` at `realClock`). It
    /// stands while the voice or its bus is paused and before the voice starts; a one-shot stops
    /// at its last frame.
    func timelinePosition(_ index: Int, at t: Double) -> Double {
        let speed = slots[index].clipRate * Double(slots[index].pitch)
        var p: Double
        if slots[index].phase == .real {
            p = slots[index].realOffset + max(0, t - slots[index].realClock) * speed
        } else {
            p = slots[index].playhead
            let from = max(slots[index].playheadClock, slots[index].startAt)
            if t > from, !slots[index].paused, !busPaused[slots[index].busIndex] { p += (t - from) * speed }
        }
        if !slots[index].loop { p = min(p, slots[index].totalFrames) }
        return timeline.wrapped[index] + p
    }

    /// `frames` were wrapped away from voice `index`'s playhead (a loop went round).
    @inline(__always)
    func noteWrap(_ index: Int, frames: Double) {
        if frames != 0 { timeline.wrapped[index] += frames }
    }

    /// Brings voice `index`'s position up to `now` before its pitch changes or it pauses, so that
    /// the time already played counts at the old pitch (a virtual voice's playhead, a real one's
    /// estimate).
    func accountPosition(_ index: Int, now: Double) {
        if slots[index].phase == .real {
            noteWrap(index, frames: slots[index].rebaseRealPlayhead(now: now))
        } else if now > slots[index].startAt {
            _ = catchUpPlayhead(index, now: now)
        }
    }

    /// A real looping voice's source was read at playhead `heard` (wrapped into the clip) where
    /// the estimate from its start says `estimated` (unwrapped): the whole passes between them
    /// were wrapped away while it played.
    func noteRealWraps(_ index: Int, estimated: Double, heard: Double) {
        let length = Double(slots[index].clipFrames)
        guard slots[index].loop, length > 0, estimated.isFinite else { return }
        noteWrap(index, frames: ((estimated - heard) / length).rounded() * length)
    }

    /// Live: real voice `index`'s timeline position at the frame its source mixes next, and the
    /// device's mixing clock (seconds) then — one atomic read (`AL_SAMPLE_OFFSET_CLOCK_SOFT`). A
    /// frame mixed when that clock reads `c` is heard when the audio clock's source does, so this
    /// places the voice on the audio clock exactly, where the engine-clock estimate is only as
    /// good as two clock readings taken apart (measured: up to 13 ms off on PulseAudio, whose
    /// device clock moves in mixing periods). Negative in a lead-in of silence. Nil for a voice
    /// that is not real or when the read fails.
    func mixAnchor(_ index: Int, now: Double) -> (position: Double, clock: Double)? {
        guard slots[index].phase == .real else { return nil }
        var values: (ALint64SOFT, ALint64SOFT) = (0, 0)
        withUnsafeMutableBytes(of: &values) { raw in
            raw.withMemoryRebound(to: ALint64SOFT.self) { alGetSourcei64vSOFT(slots[index].source, AL_SAMPLE_OFFSET_CLOCK_SOFT, $0.baseAddress) }
        }
        // A read that failed (a device going away): its times come from the engine clock.
        do throws(EarshotError) { try ALCheck.throwing("reading a voice's offset and mixing clock") } catch { return nil }
        // Frames into the source's queue (32.32 fixed point), less a lead-in's silence: a frame of
        // the clip, or of its copies queued after a lead-in, counted from its first.
        let played = Double(values.0) / 4_294_967_296 - liveStarts.lead[index]
        let length = Double(slots[index].clipFrames)
        var position = timeline.wrapped[index] + played
        if slots[index].loop, length > 0, played >= 0 {
            // A looping source's offset wraps within the clip: the passes it went round since it
            // started are those the estimate from its start says.
            let estimated = timelinePosition(index, at: now)
            position += ((estimated - position) / length).rounded() * length
        }
        return (position, Double(values.1) / 1e9)
    }

    /// The markers voices pass from what is heard now on, up to engine time `until`: for each
    /// voice whose clip has markers and that plays (not paused, not leaving), the markers between
    /// the last one reported and where it will be at `until`, each with the audio time it is
    /// heard at — `audioAt(t)` converts an engine time. `heardAt` is the engine time of the frame
    /// heard now (the mixing position minus the output latency live; the render's first frame on
    /// loopback). Markers the voice passed before (a voice that started late, or while it was
    /// virtual) are reported with their past times. At most `limit` per voice per call: a voice
    /// that has more (a tiny loop full of markers at a high pitch) reports the rest next time.
    /// `exact(index)`, where it has one (a real voice on a live device), is where the voice is
    /// and when that is heard, read from the device: the times then follow from it.
    func scanMarkers(heardAt: Double, until: Double, limit: Int, audioAt: (Double) -> Double,
                     exact: (Int) -> (position: Double, audio: Double)?,
                     into out: inout [(id: VoiceID, name: String, time: Double)]) {
        var k = 0
        while k < timeline.marked.count {
            let index = timeline.marked[k]
            k += 1
            guard slots[index].phase != .free, !slots[index].paused, !busPaused[slots[index].busIndex],
                  !slots[index].ownStops, slots[index].fadeAction != .stop else { continue }
            let begin = max(heardAt, slots[index].startAt)
            guard begin < until else { continue }
            let speed = slots[index].clipRate * Double(slots[index].pitch)
            guard speed > 0 else { continue }
            var p0 = timelinePosition(index, at: begin), a0 = audioAt(begin)
            if let e = exact(index) { (p0, a0) = e }
            var p1 = p0 + (audioAt(until) - a0) * speed
            if !slots[index].loop { p1 = min(p1, timeline.wrapped[index] + slots[index].totalFrames) }
            let from = timeline.markFrom[index]
            guard p1 > from else { continue }
            let id = VoiceID(index: UInt32(index), generation: slots[index].generation)
            let resume = VoiceTimeline.positions(of: timeline.marks[index], clipFrames: slots[index].clipFrames,
                                                 from: from, to: p1, limit: limit) { p, name in
                out.append((id, name, a0 + (p - p0) / speed))
            }
            timeline.markFrom[index] = resume ?? p1
        }
    }
}
