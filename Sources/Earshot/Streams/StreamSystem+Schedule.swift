import COpenAL

/// Music on the audio clock: starts and stops at a time, and the markers, beats and bars heard.
/// Every function here runs under the stream lock; those that touch OpenAL inside
/// `host.withStreamAL`.
///
/// Times are ``AudioEngine/audioTime``s. The pump reads the audio clock once per stream that needs
/// it and converts a time to frames of the output from there: on a loopback engine the pump runs
/// just before each render, whose first frame is heard at the audio time read, so a start, stop or
/// marker `d` frames later lies `d` frames into the render, whatever its size. The audio clock
/// stands while an interruption or a lost device holds the output; the tracks stand with it (held
/// or not pumped), so nothing slips.
extension StreamSystem {
    /// Live devices: how far ahead of its time a scheduled start or stop is set up (a silent
    /// lead-in, or the queue trimmed), and how far ahead markers are reported.
    static let liveHorizon = 0.03

    /// The output frame of audio time `t` (rounded; huge values clamped).
    static func outputFrame(_ t: Double, rate: Int) -> Int {
        Int(min(max(t * Double(rate), -1e15), 1e15).rounded())
    }

    /// Output frames the pump looks ahead: the render about to be mixed (loopback), or
    /// ``liveHorizon`` live.
    func horizon(_ host: any StreamHost, renderFrames: Int) -> Int {
        host.isLoopback ? renderFrames : Int(Self.liveHorizon * Double(host.sampleRate))
    }

    // MARK: Track controls

    /// Schedules `s` to start at audio time `time` (``MusicTrack/play(at:)``).
    func play(_ s: QueuedStream, at time: Double, host: any StreamHost) throws(EarshotError) {
        try play([s], at: time, host: host)
    }

    /// Schedules every stream of `group` to start at audio time `time`, in one lock scope: the
    /// pump that reaches the time starts them all in one ``ALContext/start(_:_:)-([ALuint],_)`` call.
    func play(_ group: [QueuedStream], at time: Double, host: any StreamHost) throws(EarshotError) {
        try withStreamLock { (_: inout [Pending]) throws(EarshotError) in
            guard !isShutDown else { throw .engineShutDown }
            for s in group where s.state == .playing {
                throw .invalidArgument("\(s.path) is already playing; stop it before starting it at a time")
            }
            for s in group { schedule(s, at: time, host: host) }
        }
    }

    /// Puts `s` (not playing) on the schedule for `time` (stream lock held).
    private func schedule(_ s: QueuedStream, at time: Double, host: any StreamHost) {
        assertLocked()
        cancelWaiting(s)
        if s.state == .paused {
            // Prepared or paused: the start at a time queues again from the position.
            let position = currentFrameLocked(s, host: host)
            releaseAL(s, host: host)
            active.removeAll { $0 === s }
            s.state = .idle
            s.heldBySession = false
            s.idlePosition = position
        }
        s.startAt = time
        scheduled.append(s)
        startThreadIfLive(host)   // live: the streaming thread's pump starts it
    }

    /// Sets (or with nil cancels) the time `s` stops at (``MusicTrack/stop(at:)``).
    func stop(_ s: QueuedStream, at time: Double?, host: any StreamHost) {
        withStreamLock { _ in
            // Nothing playing, paused or scheduled: there is no session to stop.
            guard !isShutDown, s.state != .idle || s.startAt != nil else { return }
            s.stopAt = time
        }
    }

    /// A fade that begins at audio time `at`: its start on the music clock.
    func fadeStart(at time: Double, host: any StreamHost) -> Double {
        assertLocked()
        let now = clock(host)
        let audioNow = host.withStreamAL { host.streamAudioTime + host.streamOutputLatency }   // when a gain set now is heard
        let rate = host.sampleRate
        let frames = Self.outputFrame(time, rate: rate) - Self.outputFrame(audioNow, rate: rate)
        return now + Double(max(0, frames)) / Double(rate)
    }

    // MARK: The pump's part

    /// Starts the scheduled tracks whose time falls within the coming render (live: within
    /// ``liveHorizon``), behind a silent lead-in that puts their first frame on the frame of
    /// their time. A track whose bus is held waits; a time already past starts at once.
    func startScheduled(host: any StreamHost, renderFrames: Int, pending: inout [Pending]) {
        assertLocked()
        // When what OpenAL mixes next is heard: now on loopback, a latency later live.
        guard let audioNow = host.withStreamAL({ host.streamCoreIsShutDown ? nil : host.streamAudioTime + host.streamOutputLatency })
        else { return }
        let rate = host.sampleRate
        let nowFrame = Self.outputFrame(audioNow, rate: rate)
        let ahead = horizon(host, renderFrames: renderFrames)
        // Every start due now begins in one `alSourcePlayv`: the stems of a music set that start
        // together are mixed from the same frame on a live device too.
        var starting: [ALuint] = []
        defer {
            if !starting.isEmpty {
                host.withStreamAL {
                    guard !host.streamCoreIsShutDown else { return }
                    ALContext.start(starting, "starting scheduled streams")
                }
            }
        }
        for s in scheduled {
            guard let at = s.startAt, !isHeld(s) else { continue }
            let lead = Self.outputFrame(at, rate: rate) - nowFrame
            guard lead < ahead else { continue }
            s.startAt = nil
            scheduled.removeAll { $0 === s }
            guard s.state == .idle else { continue }
            if let stop = s.stopAt, stop <= at {
                s.stopAt = nil   // stopped before it started: nothing plays
                continue
            }
            let leadIn = Int((Double(max(0, lead)) * Double(s.fileRate) * Double(s.sourcePitch) / Double(rate)).rounded())
            s.state = .playing
            do throws(EarshotError) {
                try startQueue(s, host: host, leadInAfter: nil, leadInFrames: leadIn)
            } catch {
                s.state = .idle
                failStart(s, error, pending: &pending)
                continue
            }
            s.sessionActive = true
            if let source = s.source, !s.queue.isEmpty { starting.append(source) }
            refreshFadeStart(s, host: host, audioNow: audioNow)
            endIfDrained(s, host: host, pending: &pending)
        }
    }

    /// Works out again where a fade at a time that has not begun starts on the music clock, from
    /// its audio time and the audio time `audioNow` at which what is mixed next is heard.
    func refreshFadeStart(_ s: QueuedStream, host: any StreamHost, audioNow: Double) {
        guard var f = s.fade, f.startsLater, f.pausedAt == nil, let at = f.audioStart else { return }
        let rate = host.sampleRate
        let frames = Self.outputFrame(at, rate: rate) - Self.outputFrame(audioNow, rate: rate)
        f.start = clock(host) + Double(max(0, frames)) / Double(rate)
        s.fade = f
    }

    /// After a stream's pump: a stop due within the coming render trims its queue to end on the
    /// stop's frame; the markers, beats and bars of the coming render are sent with their times.
    func keepTime(_ s: QueuedStream, host: any StreamHost, renderFrames: Int, pending: inout [Pending]) {
        assertLocked()
        guard let source = s.source, !suspended else { return }
        var alState: ALint = 0, offset: ALint = 0
        let read = host.withStreamAL { () -> Double? in
            guard !host.streamOutputIsGone else { return nil }
            unqueueProcessed(s, source: source)
            alGetSourcei(source, AL_SOURCE_STATE, &alState)
            alGetSourcei(source, AL_SAMPLE_OFFSET, &offset)
            return host.streamAudioTime + host.streamOutputLatency   // when the frame at `offset` is heard
        }
        guard let audioNow = read else { return }
        let rate = host.sampleRate
        let ahead = horizon(host, renderFrames: renderFrames)
        let queueRate = Double(s.fileRate) * Double(s.sourcePitch)   // queued frames per second of output
        if let stopAt = s.stopAt, !s.endsAtQueueEnd {
            let left = Self.outputFrame(stopAt, rate: rate) - Self.outputFrame(audioNow, rate: rate)
            if left <= 0 {
                stopLocked(s, host: host, pending: &pending)
                return
            }
            if s.state == .playing, left < ahead {
                trimQueue(s, source: source, offset: Int(offset),
                          keep: Int((Double(left) * queueRate / Double(rate)).rounded()), host: host)
                offset = 0
            }
        }
        refreshFadeStart(s, host: host, audioNow: audioNow)
        if let f = s.fade, f.startsLater {
            if s.state == .playing, alState == AL_PLAYING,
               bakeFadeOnset(s, source: source, offset: Int(offset), renderFrames: renderFrames, host: host) {
                offset = 0
            }
            if f.start <= clock(host) + Double(ahead) / Double(rate) { s.fade?.startsLater = false }
        }
        guard s.hasMarks, s.state == .playing, alState == AL_PLAYING, let origin = s.markerOrigin?() else { return }
        let position = s.queueBase + Int(offset)
        let window = Int((Double(ahead) * queueRate / Double(rate)).rounded(.up))
        let events = s.marks(from: max(s.scannedTo, position), to: position + window, position: position,
                             audioNow: audioNow, secondsPerFrame: 1 / queueRate, origin: origin)
        s.scannedTo = max(s.scannedTo, position + window)
        pendingMarkers += events
    }

    /// Makes the queue end `keep` frames after queue offset `offset` (the frame playing now): the
    /// part still to play before the stop is queued again (from the kept samples) and nothing
    /// more is decoded, so the source stops on the stop's frame (``endAtScheduledStop``).
    func trimQueue(_ s: QueuedStream, source: ALuint, offset: Int, keep: Int, host: any StreamHost) {
        assertLocked()
        let endPosition = s.fileFrame(atQueueOffset: offset + keep)
        requeue(s, source: source, offset: offset, frames: keep, gain: nil, host: host)
        s.endsAtQueueEnd = true
        s.stopPosition = endPosition
    }

    /// A fade at a time that begins inside the coming render (loopback): the source's gain holds
    /// the fade's start level for the whole render, so the frames of the render from the fade's
    /// frame on are queued again scaled by the ramp (relative to that level). The fade is heard
    /// from its very frame; from the next render on the gain carries it, as for every fade.
    /// Returns whether the queue was rebuilt.
    func bakeFadeOnset(_ s: QueuedStream, source: ALuint, offset: Int, renderFrames: Int, host: any StreamHost) -> Bool {
        assertLocked()
        guard host.isLoopback, renderFrames > 0, s.state == .playing, let f = s.fade, f.pausedAt == nil, f.duration > 0,
              s.volume > 0 else { return false }
        let rate = Double(host.sampleRate)
        let now = clock(host)
        let startFrame = Int(((f.start - now) * rate).rounded())
        guard startFrame > 0, startFrame < renderFrames else { return false }
        let queueRate = Double(s.fileRate) * Double(s.sourcePitch)
        let level = s.volume
        let from = Int((Double(startFrame) * queueRate / rate).rounded())
        let to = Int((Double(renderFrames) * queueRate / rate).rounded(.up))
        requeue(s, source: source, offset: offset, frames: s.queuedFrames - offset, gain: { j in
            guard j >= from, j < to else { return 1 }
            return f.volume(at: now + Double(j) / queueRate).0 / level
        }, host: host)
        return true
    }

    /// Queues again the `frames` frames from queue offset `offset` on (the frame playing now),
    /// from the kept samples, each frame `j` of them scaled by `gain(j)`; the source goes on from
    /// there at once (between renders on loopback: seamless).
    private func requeue(_ s: QueuedStream, source: ALuint, offset: Int, frames: Int, gain: ((Int) -> Float)?,
                         host: any StreamHost) {
        let old = s.queue
        var chunks: [StagedChunk] = []
        var base = 0, from = offset, need = frames
        for e in old {
            defer { base += e.frames }
            guard need > 0, base + e.frames > from, let samples = e.samples else { continue }
            let a = from - base, n = min(e.frames - a, need)
            var segments: [StreamSegment] = []
            for seg in e.segments {
                let lo = max(seg.offset, a), hi = min(seg.offset + seg.count, a + n)
                guard lo < hi else { continue }
                let file = seg.fileFrame.map { $0 + Int((Double(lo - seg.offset) * seg.step).rounded(.down)) }
                segments.append(StreamSegment(offset: lo - a, fileFrame: file, count: hi - lo, step: seg.step))
            }
            var slice = Array(samples[(a * s.channels)..<((a + n) * s.channels)])
            if let gain {
                for i in 0..<n {
                    let g = gain(from - offset + i)
                    if g != 1 { for c in 0..<s.channels { slice[i * s.channels + c] *= g } }
                }
            }
            chunks.append(StagedChunk(samples: slice, frames: n, segments: segments))
            from += n
            need -= n
        }
        let playing = s.queueBase + offset
        host.withStreamAL {
            guard !host.streamCoreIsShutDown else { return }
            alSourceStop(source)
            alSourcei(source, AL_BUFFER, 0)
            s.queueBase += old.reduce(0) { $0 + $1.frames }
            s.freeBuffers += old.map(\.buffer)
            s.queue.removeAll()
            s.scannedTo = s.queueBase + max(0, s.scannedTo - playing)
            uploadAll(chunks, to: s, source: source)
            if !s.queue.isEmpty { ALContext.play(source) }
            ALCheck.after("queueing a stream again for a stop or fade at a time")
        }
    }

    /// A stop at a time has been reached: the trimmed queue played out. Ends `s` (`.stopped`) with
    /// its position on the stop's frame.
    func endAtScheduledStop(_ s: QueuedStream, host: any StreamHost, pending: inout [Pending]) {
        let position = s.stopPosition
        end(s, reason: .stopped, error: nil, host: host, pending: &pending)
        s.idlePosition = position
    }
}
