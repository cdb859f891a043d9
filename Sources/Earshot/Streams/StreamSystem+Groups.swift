import COpenAL

/// What adaptive music (``MusicSet``) needs from the streamer beyond a track's own controls: where
/// a track is heard on the audio clock, chained segments, a cut-off for its beats, and transport
/// for a group of stems in one lock scope and one OpenAL call (so that stems stay sample-aligned
/// on a live device too: `alSourcePlayv`/`alSourcePausev` act on all of them in one mix).
extension StreamSystem {
    /// Where a track is, read in one AL section: the file frame whose sound is heard at `audioTime`
    /// (what OpenAL mixes next, plus the live output latency), or, while a silent lead-in still
    /// plays, how many frames of it are left (`leadIn`, frames of the file's rate at the track's
    /// pitch).
    struct HeardPosition {
        var frame: Int
        var leadIn: Int
        var audioTime: Double
        var playing: Bool
    }

    /// The position of `s` now, or nil when it holds no source (idle, waiting, or the device is lost).
    func heardPosition(_ s: QueuedStream, host: any StreamHost) -> HeardPosition? {
        withStreamLock { _ in
            guard !isShutDown, !suspended, let source = s.source else { return nil }
            var offset: ALint = 0
            let now = host.withStreamAL { () -> Double? in
                guard !host.streamOutputIsGone else { return nil }
                unqueueProcessed(s, source: source)
                alGetSourcei(source, AL_SAMPLE_OFFSET, &offset)
                return host.streamAudioTime + host.streamOutputLatency
            }
            guard let now else { return nil }
            // Silence at the queue's head (a lead-in) counts down to the first file frame.
            var leadIn = 0, base = 0
            scan: for entry in s.queue {
                for seg in entry.segments {
                    let start = base + seg.offset
                    if Int(offset) >= start + seg.count { continue }
                    if seg.fileFrame != nil { break scan }
                    leadIn += start + seg.count - max(start, Int(offset))
                }
                base += entry.frames
            }
            return HeardPosition(frame: s.fileFrame(atQueueOffset: Int(offset)), leadIn: leadIn, audioTime: now,
                                 playing: s.state == .playing)
        }
    }

    /// Queues `s` to start when `previous` ends, like ``play(_:after:host:)``, but also behind a
    /// `previous` that is itself only scheduled or waiting (a chain of segments set up at once).
    func chain(_ s: QueuedStream, after previous: QueuedStream) throws(EarshotError) {
        try withStreamLock { (_: inout [Pending]) throws(EarshotError) in
            guard !isShutDown else { throw .engineShutDown }
            guard s !== previous else { throw .invalidArgument("a segment cannot follow itself") }
            guard s.state == .idle else { throw .invalidArgument("\(s.path) is already playing") }
            cancelWaiting(s)
            if let old = previous.next { old.waiting = false }
            previous.next = s
            s.waiting = true
        }
    }

    /// Beats and bars of `s` heard at or after audio time `time` are not reported (nil: all are):
    /// a state that is left reports no beats past its boundary while it fades out.
    func setBeatsUntil(_ s: QueuedStream, _ time: Double?) {
        withStreamLock { _ in s.beatsUntil = time }
    }

    /// Pauses every playing stream of `group` in one AL call.
    func pauseGroup(_ group: [QueuedStream], host: any StreamHost) {
        withStreamLock { _ in
            guard !isShutDown else { return }
            let now = clock(host)
            var names: [ALuint] = []
            for s in group {
                s.heldBySession = false
                if s.waiting || s.startAt != nil { cancelWaiting(s); continue }
                guard s.state == .playing else { continue }
                s.fade?.freeze(at: now)
                s.state = .paused
                if let source = s.source, !suspended { names.append(source) }
            }
            guard !names.isEmpty else { return }
            host.withStreamAL {
                guard !host.streamCoreIsShutDown else { return }
                alSourcePausev(ALsizei(names.count), names)
                ALCheck.after("pausing music stems")
            }
        }
    }

    /// Resumes every paused stream of `group` in one AL call (streams whose bus is held stay
    /// ready and start with the others when the hold ends).
    func resumeGroup(_ group: [QueuedStream], host: any StreamHost) {
        withStreamLock { pending in
            guard !isShutDown else { return }
            resumeLocked(group, host: host, pending: &pending)
        }
    }

    /// Resumes the paused streams of `group` in one ``ALContext/start(_:_:)-([ALuint],_)`` call (stream lock held).
    private func resumeLocked(_ group: [QueuedStream], host: any StreamHost, pending: inout [Pending]) {
        assertLocked()
        let now = clock(host)
        var names: [ALuint] = []
        for s in group where s.state == .paused {
            s.sessionActive = true
            if isHeld(s) { s.heldBySession = true; continue }
            s.state = .playing
            if let source = s.source, !suspended, !s.queue.isEmpty { names.append(source) }
        }
        guard !names.isEmpty else { return }
        host.withStreamAL {
            guard !host.streamCoreIsShutDown else { return }
            for s in group where s.state == .playing {
                if let source = s.source { _ = applyGain(s, source: source, now: now, busGain: host.busGain(s.bus)) }
            }
            ALContext.start(names, "starting or resuming a group of streams")
        }
        for s in group { endIfDrained(s, host: host, pending: &pending) }
    }

    /// Starts (or resumes) every stream of `group` now, in one AL call: they begin on the same
    /// mix, sample-aligned. Streams whose bus is held are readied and start when the hold ends.
    /// Throws what a start throws (no free source: the streams started before it are stopped).
    func playGroup(_ group: [QueuedStream], host: any StreamHost) throws(EarshotError) {
        try withStreamLock { (pending: inout [Pending]) throws(EarshotError) in
            guard !isShutDown else { throw .engineShutDown }
            var started: [QueuedStream] = []
            for s in group {
                cancelWaiting(s)
                guard s.state == .idle else { continue }
                do throws(EarshotError) {
                    try startQueue(s, host: host, leadInAfter: nil)
                } catch {
                    for t in started { stopLocked(t, host: host, pending: &pending) }
                    throw error
                }
                started.append(s)
                s.state = .paused
            }
            resumeLocked(group, host: host, pending: &pending)
            for s in started { endIfDrained(s, host: host, pending: &pending) }   // an empty file ends at once
        }
    }

    /// Ends every stream of `group` (`.stopped`, keeping their positions) in one lock scope.
    func stopGroup(_ group: [QueuedStream], host: any StreamHost) {
        withStreamLock { pending in
            for s in group { stopLocked(s, host: host, pending: &pending) }
        }
    }

    /// Moves every stream of `group` to file frame `frame` and restarts the playing ones in one AL call.
    func seekGroup(_ group: [QueuedStream], toFrame frame: Int, host: any StreamHost) {
        withStreamLock { pending in
            guard !isShutDown else { return }
            var names: [ALuint] = []
            for s in group {
                let f = min(max(0, frame), s.frameCount)
                guard let source = s.source, !suspended else { s.idlePosition = f; continue }
                requeue(s, source: source, atFrame: f, host: host)   // StreamSystem+Transport.swift
                if s.state == .playing, !s.queue.isEmpty { names.append(source) }
            }
            if !names.isEmpty {
                host.withStreamAL {
                    guard !host.streamCoreIsShutDown else { return }
                    ALContext.start(names, "restarting music stems after a seek")
                }
            }
            for s in group { endIfDrained(s, host: host, pending: &pending) }
        }
    }

    /// Marks `group` as stems that must stay aligned: after a device loss they all resume from
    /// the first one's position (``alignGroupsAfterLoss()``).
    func setGroup(_ group: [QueuedStream]) {
        withStreamLock { _ in
            let id = ObjectIdentifier(group[0])
            for s in group { s.group = id }
        }
    }

    /// Device loss (stream lock held): the stems of a group resume from the same frame — the
    /// first stem's — whatever slightly different moments their last positions were read at.
    func alignGroupsAfterLoss() {
        assertLocked()
        var lead: [ObjectIdentifier: (position: Int, loops: Int?)] = [:]
        for s in active {
            guard let g = s.group else { continue }
            if let l = lead[g] {
                s.idlePosition = min(l.position, s.frameCount)
                s.loopsLeftAtLoss = l.loops
            } else {
                lead[g] = (s.idlePosition, s.loopsLeftAtLoss)
            }
        }
    }
}

extension StreamSystem {
    /// Whether `s` is paused by a hold of its bus (not by the game's own pause).
    func isHeldByBus(_ s: QueuedStream) -> Bool {
        withStreamLock { _ in s.state == .paused && (s.heldBySession || isHeld(s)) }
    }
}
