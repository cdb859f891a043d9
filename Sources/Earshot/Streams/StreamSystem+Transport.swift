import COpenAL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A stream's transport: what ``MusicTrack`` and ``AudioStream`` call, one stream-lock scope each.
extension StreamSystem {
    // MARK: Track controls (called by MusicTrack)

    func register(_ s: QueuedStream, host: any StreamHost) throws(EarshotError) {
        try withStreamLock { (_: inout [Pending]) throws(EarshotError) in
            guard !isShutDown, !host.isShutDown else { throw .engineShutDown }
            registry.removeAll { $0.stream == nil }
            registry.append(WeakStream(stream: s))
        }
    }

    /// Claims a source and fills the queue without playing (AVAudioPlayer's `prepareToPlay`).
    func prepare(_ s: QueuedStream, host: any StreamHost) throws(EarshotError) {
        try withStreamLock { (pending: inout [Pending]) throws(EarshotError) in
            guard !isShutDown else { throw .engineShutDown }
            guard s.state == .idle else { return }
            cancelWaiting(s)
            try startQueue(s, host: host, leadInAfter: nil)
            s.state = .paused
            endIfDrained(s, host: host, pending: &pending)
        }
    }

    func play(_ s: QueuedStream, host: any StreamHost) throws(EarshotError) {
        try withStreamLock { (pending: inout [Pending]) throws(EarshotError) in
            guard !isShutDown else { throw .engineShutDown }
            cancelWaiting(s)
            switch s.state {
            case .playing:
                return
            case .paused:
                s.sessionActive = true
                s.state = .playing
            case .idle:
                // Queued and started in one AL section (the common play: one AL lock). Playing
                // before the queue is made, so that a fade runs from now (the source's gain is
                // set as it is configured); a held track waits with its fade frozen.
                let held = isHeld(s)
                if !held { s.state = .playing }
                do throws(EarshotError) {
                    try startQueue(s, host: host, leadInAfter: nil, thenPlay: !held)
                } catch {
                    s.state = .idle
                    throw error
                }
                s.sessionActive = true
                s.state = .playing
                if !held {
                    endIfDrained(s, host: host, pending: &pending)
                    return
                }
            }
            if isHeld(s) {
                // Interrupted or its bus paused: the track is ready and starts when the hold
                // is lifted.
                s.state = .paused
                s.heldBySession = true
                return
            }
            if let source = s.source, !suspended, !s.queue.isEmpty {
                let now = clock(host)
                host.withStreamAL {
                    guard !host.streamCoreIsShutDown else { return }
                    _ = applyGain(s, source: source, now: now, busGain: host.busGain(s.bus))
                    ALContext.start(source, "starting a stream")
                }
            }
            endIfDrained(s, host: host, pending: &pending)
        }
    }

    /// Queues `s` to start when `previous` ends (not when it is stopped). Starts `s` now when
    /// `previous` is not playing.
    func play(_ s: QueuedStream, after previous: QueuedStream, host: any StreamHost) throws(EarshotError) {
        let playsNow = try withStreamLock { (_: inout [Pending]) throws(EarshotError) -> Bool in
            guard !isShutDown else { throw .engineShutDown }
            guard s !== previous else { throw .invalidArgument("a track cannot play after itself") }
            guard s.state == .idle else { throw .invalidArgument("\(s.path) is already playing; stop it before queueing it") }
            guard previous.sessionActive, previous.source != nil else { return true }
            cancelWaiting(s)
            if let old = previous.next { old.waiting = false }
            previous.next = s
            s.waiting = true
            return false
        }
        // `previous` is not playing: this one starts now (its own call, its own lock scope).
        if playsNow { try play(s, host: host) }
    }

    func pause(_ s: QueuedStream, host: any StreamHost) {
        withStreamLock { _ in
            s.heldBySession = false   // the game's own pause outlasts an interruption
            if s.waiting || s.startAt != nil { cancelWaiting(s); return }
            guard s.state == .playing else { return }
            s.fade?.freeze(at: clock(host))   // the fade's timeline is playback time
            s.state = .paused
            guard let source = s.source, !suspended else { return }   // a lost device plays nothing anyway
            host.withStreamAL {
                guard !host.streamCoreIsShutDown else { return }
                alSourcePause(source)
                ALCheck.after("pausing a music source")
            }
        }
    }

    func stop(_ s: QueuedStream, host: any StreamHost) {
        withStreamLock { pending in
            stopLocked(s, host: host, pending: &pending)
        }
    }

    /// Ends `s` with `.stopped`, keeping its position. While the device is lost a track may hold
    /// no source yet (played during the loss): it is in `active` all the same.
    func stopLocked(_ s: QueuedStream, host: any StreamHost, pending: inout [Pending]) {
        assertLocked()
        cancelWaiting(s)
        settle(s, host: host, pending: &pending)
        guard s.source != nil || active.contains(where: { $0 === s }) else { return }
        let position = currentFrameLocked(s, host: host)
        end(s, reason: .stopped, error: nil, host: host, pending: &pending)
        s.idlePosition = position
    }

    /// Whether `s` is playing. A track whose source has played the session's last queued frame
    /// ends here at once (its end event is delivered now rather than at the next pump).
    func isPlaying(_ s: QueuedStream, host: any StreamHost) -> Bool {
        withStreamLock { pending in
            settle(s, host: host, pending: &pending)
            return s.state == .playing
        }
    }

    /// Ends `s` naturally (finished or failed) if it is playing, has nothing more to decode and
    /// its source has stopped: so that a stop or shutdown right after the last frame does not
    /// turn a finished track into a stopped one.
    func settle(_ s: QueuedStream, host: any StreamHost, pending: inout [Pending]) {
        assertLocked()
        guard s.state == .playing, s.exhausted || s.endsAtQueueEnd, !suspended, let source = s.source else { return }
        let stopped = host.withStreamAL { () -> Bool in
            guard !host.streamCoreIsShutDown else { return false }
            var state: ALint = 0
            alGetSourcei(source, AL_SOURCE_STATE, &state)
            return state == AL_STOPPED
        }
        guard stopped else { return }
        if s.endsAtQueueEnd { endAtScheduledStop(s, host: host, pending: &pending) } else { endNaturally(s, host: host, pending: &pending) }
    }

    func isWaiting(_ s: QueuedStream) -> Bool {
        return withStreamLock { _ in
            return s.waiting || s.startAt != nil
        }
    }

    func currentFrame(_ s: QueuedStream, host: any StreamHost) -> Int {
        return withStreamLock { _ in
            return currentFrameLocked(s, host: host)
        }
    }

    func seek(_ s: QueuedStream, toFrame frame: Int, host: any StreamHost) {
        withStreamLock { pending in
            let frame = min(max(0, frame), s.frameCount)
            guard let source = s.source, !suspended else {
                // Idle, or the device is lost: the track restarts from here (``reattach(host:)``).
                s.idlePosition = frame
                return
            }
            requeue(s, source: source, atFrame: frame, host: host)
            host.withStreamAL {
                guard !host.streamCoreIsShutDown else { return }
                if s.state == .playing, !s.queue.isEmpty { ALContext.start(source, "restarting a stream after a seek") }
            }
            endIfDrained(s, host: host, pending: &pending)
        }
    }

    /// A seek's work on one stream, stream lock held: stops its source, drops its queue, history
    /// and marker scan, and queues it again from file frame `frame`. The caller starts it (one
    /// track with alSourcePlay, a set's stems together with alSourcePlayv).
    func requeue(_ s: QueuedStream, source: ALuint, atFrame frame: Int, host: any StreamHost) {
        host.withStreamAL {
            guard !host.streamCoreIsShutDown else { return }
            alSourceStop(source)
            unqueueProcessed(s, source: source)
            ALCheck.after("stopping a music source to seek")
        }
        s.history.removeAll()
        s.endsAtQueueEnd = false   // a seek drops a stop's trimmed queue (its stop time stays)
        s.scannedTo = s.queueBase
        s.scanFile = nil
        s.restartDecoder(at: frame)
        let staged = decodeAhead(s, host: host, renderFrames: 0, aheadNow: 0)
        host.withStreamAL {
            guard !host.streamCoreIsShutDown else { return }
            uploadAll(staged, to: s, source: source)
            ALCheck.after("queueing music buffers")
        }
    }

    /// Runs `change` on the stream under the lock, then re-applies source properties.
    func applySettings(_ s: QueuedStream, host: any StreamHost, _ change: (QueuedStream) -> Void) {
        return withStreamLock { _ in
            change(s)
            guard let source = s.source, !suspended else { return }
            let now = clock(host)
            host.withStreamAL {
                guard !host.streamCoreIsShutDown else { return }
                applyPlacement(s, source: source, host: host, now: now)
                alSourcef(source, AL_PITCH, s.sourcePitch)
                _ = applyGain(s, source: source, now: now, busGain: host.busGain(s.bus))
                ALCheck.after("updating a music source")
            }
        }
    }

    /// Changes a stream's state under the lock that needs no OpenAL (callbacks, metering).
    func mutate(_ s: QueuedStream, _ change: (QueuedStream) -> Void) {
        withStreamLock { _ in change(s) }
    }

    /// Reads a stream's state under the lock.
    func read<T>(_ s: QueuedStream, _ body: (QueuedStream) -> T) -> T {
        return withStreamLock { _ in
            return body(s)
        }
    }

    func fade(_ s: QueuedStream, to target: Float, duration: Double, curve: MusicTrack.FadeCurve, stopsAtEnd: Bool,
              restoreVolume: Float?, at time: Double? = nil, host: any StreamHost) {
        withStreamLock { pending in
            let now = clock(host)
            if let f = s.fade { s.volume = f.volume(at: now).0 }
            // A track scheduled to start (``MusicTrack/play(at:)``, a music set's next state):
            // a fade asked for now begins with its first sample, not before it is heard.
            let time = time ?? (s.state == .idle && s.source == nil ? s.startAt : nil)
            // A fade at a time starts later on the music clock: the volume holds until then.
            let start = time.map { fadeStart(at: $0, host: host) } ?? now
            s.fade = FadeState(from: s.volume, to: target, start: start, duration: max(0, duration), curve: curve,
                               stopsAtEnd: stopsAtEnd, restoreVolume: restoreVolume, startsLater: start > now,
                               audioStart: start > now ? time : nil)
            // A track that is not playing (paused, waiting behind another, prepared) holds its
            // fade until it plays: the timeline is playback time.
            if time == nil, s.state != .playing { s.fade?.freeze(at: now) }
            if let source = s.source, !suspended {
                let done = host.withStreamAL { () -> Bool in
                    guard !host.streamCoreIsShutDown else { return false }
                    return applyGain(s, source: source, now: now, busGain: host.busGain(s.bus))
                }
                if done { stopAfterFade(s, host: host, pending: &pending) }
            } else if time == nil, duration <= 0 || !s.sessionActive {
                // Nothing is playing: the fade is only a volume change.
                if duration <= 0 { s.volume = target; s.fade = nil }
            }
        }
    }

    /// Updates the meter reading of `s` from the ~50 ms of samples before its play position.
    func updateMeters(_ s: QueuedStream, host: any StreamHost) {
        withStreamLock { _ in
            guard s.meteringEnabled, !suspended, let offset = queueOffset(s, host: host) else {
                s.meters = .silent(channels: s.channels)
                return
            }
            s.meters = s.measure(atQueueOffset: offset, window: meterWindowFrames(s))
        }
    }
}
