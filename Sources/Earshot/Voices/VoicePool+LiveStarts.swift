import COpenAL

/// What the voice pool keeps for exact starts on a live device, per slot and per clip format
/// (a side table: the slots' 256 bytes stay as they are). Touched only under the AL lock.
final class LiveStartTable {
    /// The device's mixing-clock reading at which a waiting voice's first frame is due (NaN: no
    /// exact start), and the voice's `startAt` when it was filed (a pause moves `startAt` on:
    /// the target follows by the same span).
    var target: [Double]
    var filedAt: [Double]
    /// Frames of silence queued ahead of the clip on a real voice's source (0: none): where the
    /// clip begins in the source's queue.
    var lead: [Double]

    /// One silence buffer per clip format (OpenAL queues only buffers of one format and rate).
    struct Silence {
        var channels: ALint
        var bits: ALint
        var rate: ALint
        var buffer: ALuint
        var frames: Int
    }
    var silences: [Silence] = []
    /// Heap entries set aside during `startAhead` (reserved: no allocation in steady state).
    var scratch: [VoicePool.PendingStart] = []
    /// Looping voices started with a lead-in, not yet switched to AL_LOOPING: slot, generation,
    /// source (`settleLeadIns`).
    var settling: [(index: Int, generation: UInt32, source: ALuint)] = []
    /// The most copies of a looping clip queued after a lead-in (a shorter loop starts at the
    /// first update at or after its time).
    static let maxLoopCopies = 512

    /// Seconds of silence in each buffer: the longest lead-in a start can have.
    static let silenceSeconds = 1.0

    init(capacity: Int) {
        target = [Double](repeating: .nan, count: capacity)
        filedAt = [Double](repeating: 0, count: capacity)
        lead = [Double](repeating: 0, count: capacity)
        scratch.reserveCapacity(capacity)
    }
}

// Scheduled starts on a live device. OpenAL Soft 1.19.1 has no `alSourcePlayAtTimeSOFT`, and a
// game's update comes every ~16 ms: a voice started at the first update after its time is up to
// a frame late. Instead, in the update before its time the voice's source starts with a buffer
// of silence queued ahead of its clip (buffers in a queue play back to back, sample-exact), and
// the lead-in is trimmed — through the source's offset in its queue, read together with the
// device's mixing clock (`AL_SAMPLE_OFFSET_CLOCK_SOFT`) — so that the clip's first frame is
// mixed when the mixing clock reaches the voice's target (EngineCore+Scheduling.swift), and so
// heard at its audio time.
extension VoicePool {
    /// Files the mixing-clock target of voice `index` just played with a delay (NaN: none).
    /// Out of line: `start` stays small.
    @inline(never)
    func fileMixTarget(_ index: Int, _ target: Double) {
        guard !target.isNaN || !liveStarts.target[index].isNaN else { return }
        liveStarts.target[index] = target
        liveStarts.filedAt[index] = slots[index].startAt
        liveStarts.lead[index] = 0
    }

    /// The mixing-clock target of waiting voice `index`, moved on by the pauses since it was filed.
    func mixTarget(_ index: Int) -> Double? {
        let t = liveStarts.target[index]
        guard !t.isNaN else { return nil }
        return t + (slots[index].startAt - liveStarts.filedAt[index])
    }

    /// Starts, with a lead-in, every waiting voice due within `horizon` of `now` (engine clock)
    /// that has a mixing-clock target and may be heard: not held, its bus not paused, audible,
    /// from its first frame (no offset) — one with an offset starts at the first update at or
    /// after its time. A `loop` voice queues copies of its clip after the lead-in and
    /// loops once past it (`settleLeadIns`). `mixClock` reads the
    /// device's mixing clock. A voice already late on the mixing clock starts at once.
    func startAhead(now: Double, horizon: Double, mixClock: () -> Double?) {
        let until = now + horizon
        liveStarts.scratch.removeAll(keepingCapacity: true)
        while let at = nextPendingStart(), at <= until {
            let entry = pendingStarts[0]
            let index = Int(entry.index)
            popPendingStart()
            guard slots[index].holds == 0, !busPaused[slots[index].busIndex],
                  !slots[index].loop || Self.leadLoopCopies(slots[index]) <= LiveStartTable.maxLoopCopies,
                  slots[index].startFrame == 0, slots[index].audibility >= settings.audibilityFloor,
                  !wantsPair(index),   // a channel pair starts at its update, without a lead-in
                  let target = mixTarget(index), let clock = mixClock(), !freeSources.isEmpty else {
                liveStarts.scratch.append(entry)
                continue
            }
            let rate = slots[index].clipRate * Double(slots[index].pitch)   // clip frames per second
            let leadFrames = (target - clock) * rate
            if leadFrames < 1 {
                // Late on the mixing clock already: at once, from the top (its start is now).
                guard let source = freeSources.popLast() else { continue }
                slots[index].startAt = min(slots[index].startAt, now)
                startReal(index, on: source, now: slots[index].startAt)
                continue
            }
            guard let silence = silence(for: slots[index].buffer), leadFrames < Double(silence.frames),
                  let source = freeSources.popLast() else {
                liveStarts.scratch.append(entry)   // a lead-in longer than the silence: a later update
                continue
            }
            startReal(index, on: source, now: slots[index].startAt, leadIn: silence)
            aim(source, clipAt: Double(silence.frames), target: target, rate: rate)
            if slots[index].loop {
                liveStarts.settling.append((index, slots[index].generation, source))
            }
        }
        for entry in liveStarts.scratch { addPendingStart(Int(entry.index)) }
        serviceNeeded = true
    }

    /// Copies of a looping voice's clip queued after its lead-in: enough to play for the longest
    /// lead-in and half a second more, so that an update comes before they run out.
    static func leadLoopCopies(_ v: VoiceState) -> Int {
        let seconds = Double(v.clipFrames) / (v.clipRate * Double(v.pitch))
        guard seconds > 0 else { return .max }
        let copies = ((LiveStartTable.silenceSeconds + 0.5) / seconds).rounded(.up)
        return copies < 1e6 ? max(1, Int(copies)) : .max
    }

    /// Looping voices past their lead-in: the played buffers (the silence and any copy already
    /// through) leave the queue, and AL_LOOPING goes on: the queue is copies of the clip, so it
    /// loops on the clip alone. Each update on a live device, while one waits.
    func settleLeadIns() {
        var i = 0
        while i < liveStarts.settling.count {
            let (index, generation, source) = liveStarts.settling[i]
            guard slots[index].generation == generation, slots[index].phase == .real, slots[index].source == source,
                  liveStarts.lead[index] > 0 else {
                liveStarts.settling.remove(at: i)   // ended, stolen or released meanwhile
                continue
            }
            var processed: ALint = 0
            alGetSourcei(source, AL_BUFFERS_PROCESSED, &processed)
            guard processed > 0 else { i += 1; continue }   // still in its lead-in
            let count = Int(processed)
            if queueScratch.count < count { queueScratch = [ALuint](repeating: 0, count: count) }
            alSourceUnqueueBuffers(source, ALsizei(count), &queueScratch)
            alSourcei(source, AL_LOOPING, AL_TRUE)
            pushed[Int(source)].loop = true
            liveStarts.lead[index] = 0   // offsets now count from a copy of the clip
            liveStarts.settling.remove(at: i)
        }
    }

    /// Moves `source` (playing a queue whose clip begins at queue frame `clipAt`) so that the
    /// clip's first frame is mixed when the mixing clock reads `target`: reads the source's offset
    /// with the mixing clock at that offset (one atomic read), sets the offset the source must have
    /// at that clock, and reads again until it holds (a mix between the read and the write moves
    /// the source on: the next read sees it). Offsets are whole frames, so that a clip at the
    /// device's rate is copied, not resampled.
    private func aim(_ source: ALuint, clipAt: Double, target: Double, rate: Double) {
        for _ in 0..<4 {
            var values: (ALint64SOFT, ALint64SOFT) = (0, 0)
            withUnsafeMutableBytes(of: &values) { raw in
                raw.withMemoryRebound(to: ALint64SOFT.self) { alGetSourcei64vSOFT(source, AL_SAMPLE_OFFSET_CLOCK_SOFT, $0.baseAddress) }
            }
            let offset = Double(values.0) / 4_294_967_296   // 32.32 fixed point, frames into the queue
            let clock = Double(values.1) / 1e9
            let want = (clipAt - (target - clock) * rate).rounded()
            guard want >= 0 else { break }   // too late to trim: as near as it can
            if abs(want - offset) < 0.5 { break }
            alSourcedSOFT(source, AL_SAMPLE_OFFSET, want)
        }
        ALCheck.discard(because: "aiming a lead-in: a source offset read or set that failed leaves the start as it was, a mix late at most")
    }

    /// The silence buffer of `buffer`'s format and rate, made on first use (nil when OpenAL
    /// refuses it: the voice starts at the next update instead).
    private func silence(for buffer: ALuint) -> LiveStartTable.Silence? {
        var channels: ALint = 0, bits: ALint = 0, rate: ALint = 0
        alGetBufferi(buffer, AL_CHANNELS, &channels)
        alGetBufferi(buffer, AL_BITS, &bits)
        alGetBufferi(buffer, AL_FREQUENCY, &rate)
        if let s = liveStarts.silences.first(where: { $0.channels == channels && $0.bits == bits && $0.rate == rate }) {
            return s
        }
        let format: ALenum
        switch (channels, bits) {
        case (1, 16): format = AL_FORMAT_MONO16
        case (2, 16): format = AL_FORMAT_STEREO16
        case (1, 32): format = AL_FORMAT_MONO_FLOAT32
        case (2, 32): format = AL_FORMAT_STEREO_FLOAT32
        default: return nil
        }
        guard rate > 0 else { return nil }
        let frames = Int((LiveStartTable.silenceSeconds * Double(rate)).rounded(.up))
        let bytes = [UInt8](repeating: 0, count: frames * Int(channels) * Int(bits / 8))
        // Refused by OpenAL: the voice starts without a lead-in.
        guard let name = try? ALObject.make(
            generate: { alGenBuffers(1, &$0) }, "alGenBuffers (a lead-in's silence)",
            setUp: { b in bytes.withUnsafeBytes { alBufferData(b, format, $0.baseAddress, ALsizei($0.count), rate) } },
            "alBufferData (a lead-in's silence)", delete: { alDeleteBuffers(1, &$0) }) else { return nil }
        let s = LiveStartTable.Silence(channels: channels, bits: bits, rate: rate, buffer: name, frames: frames)
        liveStarts.silences.append(s)
        return s
    }

    /// The device is gone or replaced: its mixing clock and buffers with it. Waiting voices lose
    /// their exact targets (they start at the update at or after their time).
    func forgetLiveStarts() {
        liveStarts.silences.removeAll()
        liveStarts.settling.removeAll()
        for i in liveStarts.target.indices { liveStarts.target[i] = .nan }
    }

    /// Deletes the silence buffers (at teardown, after the sources that queued them).
    func deleteSilenceBuffers() {
        for s in liveStarts.silences {
            var b = s.buffer
            alDeleteBuffers(1, &b)
        }
        liveStarts.silences.removeAll()
    }
}
