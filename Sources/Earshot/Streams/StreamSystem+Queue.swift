import COpenAL
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The stream system's internals: queues, decoding ahead, gains, ends. Every function
/// here runs under the stream lock (checked in debug builds); those that touch OpenAL also
/// under the AL lock, inside `host.withStreamAL`.
extension StreamSystem {
    // MARK: Internals (stream lock held)

    func clock(_ host: any StreamHost) -> Double {
        if host.isLoopback { return Double(clockFrames) / Double(host.sampleRate) }
        let t = Clocks.monotonic()
        if liveEpoch == nil { liveEpoch = t }
        return t - (liveEpoch ?? t)
    }

    func bufferFrames(_ s: QueuedStream) -> Int { max(256, Int((Self.defaultBufferDuration * Double(s.fileRate)).rounded())) }
    func meterWindowFrames(_ s: QueuedStream) -> Int { max(1, Int((Self.meterWindow * Double(s.fileRate)).rounded())) }

    /// Decodes chunks until the queue holds the ring plus what a render of `renderFrames` consumes.
    func decodeAhead(_ s: QueuedStream, host: any StreamHost, renderFrames: Int, aheadNow: Int) -> [StagedChunk] {
        assertLocked()
        let size = bufferFrames(s)
        var target = size * Self.defaultBufferCount
        if renderLookahead, renderFrames > 0, s.state == .playing {
            let consumed = Double(renderFrames) * Double(s.fileRate) / Double(host.sampleRate) * Double(s.sourcePitch)
            target += Int(consumed.rounded(.up)) + 64   // + the resampler's look-ahead
        }
        var ahead = aheadNow
        var staged: [StagedChunk] = []
        while ahead < target, let chunk = s.decodeChunk(frames: size) {
            ahead += chunk.frames
            staged.append(chunk)
        }
        return staged
    }

    /// Claims and configures a source for an idle stream, positions the decoder and fills the
    /// queue; with `leadInAfter`, first queues silence lasting exactly as long as that track has
    /// left, so this one starts on the sample after it ends. `thenPlay`: starts the source in the
    /// same AL section.
    func startQueue(_ s: QueuedStream, host: any StreamHost, leadInAfter previous: QueuedStream?,
                    leadInFrames: Int = 0, thenPlay: Bool = false) throws(EarshotError) {
        assertLocked()
        if s.source != nil { return }
        if suspended {
            // The device is lost: the track joins the others that ``reattach(host:)`` refills
            // on the new device, from its position.
            guard host.withStreamAL({ !host.streamCoreIsShutDown }) else { throw .engineShutDown }
            if !active.contains(where: { $0 === s }) { active.append(s) }
            return
        }
        startThreadIfLive(host)
        s.restartDecoder(at: s.idlePosition)
        s.loopsLeft = s.numberOfLoops
        s.history.removeAll()
        s.endsAtQueueEnd = false
        let staged = decodeAhead(s, host: host, renderFrames: 0, aheadNow: 0)
        let now = clock(host)
        // Music's own source, claimed under the stream lock: no call back into the engine.
        guard let source = s.field != nil ? freeFieldSources.last : freeSources.last else {
            throw s.field != nil ? .bedSourcesBusy(fieldSourceCount, needed: 1) : .musicSourcesBusy(sourceCount)
        }
        try host.withStreamAL { () throws(EarshotError) in
            guard !host.streamCoreIsShutDown else { throw .engineShutDown }
            if s.field != nil { freeFieldSources.removeLast() } else { freeSources.removeLast() }
            s.source = source
            configure(source, for: s, host: host, now: now)
            if let previous, let prevSource = previous.source {
                var state: ALint = 0, offset: ALint = 0
                alGetSourcei(prevSource, AL_SOURCE_STATE, &state)
                alGetSourcei(prevSource, AL_SAMPLE_OFFSET, &offset)
                let remaining = state == AL_STOPPED ? 0 : max(0, previous.queuedFrames - Int(offset))
                let seconds = Double(remaining) / (Double(previous.fileRate) * Double(previous.sourcePitch))
                let leadIn = Int((seconds * Double(s.fileRate) * Double(s.sourcePitch)).rounded())
                if leadIn > 0 { uploadAll([.silence(frames: leadIn, channels: s.channels)], to: s, source: source) }
            }
            if leadInFrames > 0 {
                // A start at a time (``MusicTrack/play(at:)``): silence up to its frame.
                uploadAll([.silence(frames: leadInFrames, channels: s.channels)], to: s, source: source)
            }
            s.scanFile = nil
            s.scannedTo = s.queueBase   // markers are looked for from the new queue's head
            uploadAll(staged, to: s, source: source)
            ALCheck.after("queueing music buffers")
            // In the same AL section: a play takes the AL lock once.
            if thenPlay, !s.queue.isEmpty { ALContext.start(source, "starting a stream") }
        }
        active.append(s)
    }

    func configure(_ source: ALuint, for s: QueuedStream, host: any StreamHost, now: Double) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        alSourceStop(source)
        alSourcei(source, AL_BUFFER, 0)
        alSourcei(source, AL_LOOPING, AL_FALSE)
        if host.supportsDirectChannels {
            // Stereo files play bit-exact, left to left and right to right.
            alSourcei(source, AL_DIRECT_CHANNELS_SOFT, s.channels == 2 ? AL_TRUE : AL_FALSE)
        }
        s.placedAtEmitter = nil   // a claimed source still holds the placement of the last track
        s.placedField = nil
        applyPlacement(s, source: source, host: host, now: now)
        alSourcef(source, AL_PITCH, s.sourcePitch)
        s.appliedGain = nil   // a claimed source still holds the gain of the last track that used it
        _ = applyGain(s, source: source, now: now, busGain: host.busGain(s.bus))
        // The bus's filters (its own, the snapshots') and its effect, as on a voice of the bus.
        host.routeStreamSource(source, bus: s.bus, claimed: true)
        ALCheck.after("configuring a music source")
    }

    /// Places the track's source: at its emitter when it follows one (a mono track only: see
    /// ``MusicTrack/follow(_:)``), with the emitter's spatial properties, as a voice on that
    /// emitter is placed; otherwise head-relative without distance attenuation, where mono tracks
    /// pan by direction (as voices do, instantly) and stereo tracks pan by balance when their
    /// samples are queued (see ``MusicTrack/pan``). An emitter that was removed leaves the track
    /// where it last was. AL lock held.
    func applyPlacement(_ s: QueuedStream, source: ALuint, host: any StreamHost, now: Double) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        if let field = s.field {
            applyField(field, to: s, source: source, host: host, now: now)
            return
        }
        if let emitter = s.emitter {
            // Removed (or its engine gone): the track stays where the emitter last was.
            guard let p = host.spatial(of: emitter), p != s.placedAtEmitter else { return }
            p.apply(to: source, since: s.placedAtEmitter)
            s.placedAtEmitter = p
            return
        }
        // Head-relative, no distance attenuation, no cone (a source last used at an emitter keeps
        // none of it).
        let plain = SpatialProperties()
        alSourcei(source, AL_SOURCE_RELATIVE, AL_TRUE)
        alSourcef(source, AL_ROLLOFF_FACTOR, 0)
        alSource3f(source, AL_VELOCITY, 0, 0, 0)
        alSource3f(source, AL_DIRECTION, 0, 0, 0)
        alSourcef(source, AL_CONE_INNER_ANGLE, plain.coneInnerAngle)
        alSourcef(source, AL_CONE_OUTER_ANGLE, plain.coneOuterAngle)
        alSourcef(source, AL_REFERENCE_DISTANCE, 1)
        let p = s.speaker ?? (s.channels == 1 ? PlayOptions.panPosition(s.pan) : Vector3(0, 0, -1))
        alSource3f(source, AL_POSITION, p.x, p.y, p.z)
    }

    /// Sets AL_GAIN from volume, fade and `busGain` (the track's bus's) when it differs from the gain
    /// last set on the source; returns true when a fade that stops the track has just completed.
    func applyGain(_ s: QueuedStream, source: ALuint, now: Double, busGain: Float) -> Bool {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        var stop = false
        // Fades run in playback time: frozen while the track is not playing.
        if s.state == .playing { s.fade?.thaw(at: now) } else { s.fade?.freeze(at: now) }
        if let f = s.fade {
            let (v, done) = f.volume(at: now)
            s.volume = v
            if done {
                s.fade = nil
                stop = f.stopsAtEnd
                if stop, let restore = f.restoreVolume { s.pendingRestore = restore }
            }
        }
        let gain = s.volume * busGain
        // Each alSourcef is a property update inside OpenAL; most frames and pumps change nothing.
        if s.appliedGain != gain {
            alSourcef(source, AL_GAIN, gain)
            s.appliedGain = gain
        }
        return stop
    }

    func stopAfterFade(_ s: QueuedStream, host: any StreamHost, pending: inout [Pending]) {
        let position = currentFrameLocked(s, host: host)
        end(s, reason: .stopped, error: nil, host: host, pending: &pending)
        s.idlePosition = position
        if let restore = s.pendingRestore { s.volume = restore }
        s.pendingRestore = nil
    }

    /// One pump of one stream.
    func service(_ s: QueuedStream, host: any StreamHost, now: Double, renderFrames: Int,
                         pending: inout [Pending]) {
        assertLocked()
        guard let source = s.source else { return }
        var state: ALint = 0, offset: ALint = 0
        var fadedOut = false
        let alive = host.withStreamAL { () -> Bool in
            // A lost device stops every source: that is no underrun, and nothing is played
            // until the engine rebuilds (then ``reattach(host:)`` refills from the position).
            guard !host.streamOutputIsGone else { return false }
            unqueueProcessed(s, source: source)
            alGetSourcei(source, AL_SOURCE_STATE, &state)
            alGetSourcei(source, AL_SAMPLE_OFFSET, &offset)
            fadedOut = applyGain(s, source: source, now: now, busGain: host.busGain(s.bus))
            host.routeStreamSource(source, bus: s.bus, claimed: false)   // again after a bus effect changed
            return true
        }
        guard alive else { return }
        // What the bus meters read of this track: the power of the window from the play position,
        // at the gain it is heard at (master aside).
        let gain = s.appliedGain ?? 0
        s.streamedPower = s.state == .playing && state == AL_PLAYING
            ? s.power(atQueueOffset: Int(offset), window: meterWindowFrames(s)) * gain * gain : 0
        if state == AL_PLAYING {
            s.lastHeardFrame = s.fileFrame(atQueueOffset: Int(offset))
            s.lastHeardClock = now
        }
        if fadedOut {
            stopAfterFade(s, host: host, pending: &pending)
            return
        }
        var restart = false
        if s.state == .playing, state == AL_STOPPED {
            if s.endsAtQueueEnd {
                // A scheduled stop's trimmed queue has played out: the stop, on its frame.
                endAtScheduledStop(s, host: host, pending: &pending)
                return
            }
            if s.exhausted {
                endNaturally(s, host: host, pending: &pending)
                return
            }
            // Stopped while data remains: the queue ran dry before a refill.
            s.underruns += 1
            underruns += 1
            offset = 0
            restart = true
        }
        if s.endsAtQueueEnd { return }   // trimmed for a scheduled stop: nothing more is queued
        let staged = decodeAhead(s, host: host, renderFrames: renderFrames, aheadNow: s.queuedFrames - Int(offset))
        if !staged.isEmpty || restart {
            host.withStreamAL {
                guard !host.streamCoreIsShutDown else { return }
                uploadAll(staged, to: s, source: source)
                if restart, !s.queue.isEmpty { ALContext.play(source) }
                ALCheck.after("queueing stream buffers")
            }
        }
        if restart { endIfDrained(s, host: host, pending: &pending) }
        // A track queued to play after this one starts once this one has queued its last frame,
        // behind a silent lead-in as long as what this one has left.
        if s.exhausted, s.failure == nil, let follower = s.next, follower.waiting {
            s.next = nil
            follower.waiting = false
            startFollower(follower, after: s, host: host, pending: &pending)
        }
    }

    func startFollower(_ f: QueuedStream, after previous: QueuedStream?, host: any StreamHost, pending: inout [Pending]) {
        guard f.state == .idle else { return }
        do throws(EarshotError) {
            try startQueue(f, host: host, leadInAfter: previous)
        } catch {
            failStart(f, error, pending: &pending)
            return
        }
        f.sessionActive = true
        f.state = .playing
        if let source = f.source {
            host.withStreamAL {
                guard !host.streamCoreIsShutDown else { return }
                if !f.queue.isEmpty { ALContext.start(source, "starting a stream after the one before it") }
            }
        }
        endIfDrained(f, host: host, pending: &pending)
    }

    /// A start that failed before anything played (no source, a file that fails at once): the
    /// session it would have begun gets its one `.failed` event all the same.
    func failStart(_ s: QueuedStream, _ error: EarshotError, pending: inout [Pending]) {
        s.sessionActive = false
        pending.append((s, MusicTrack.Event(reason: .failed, error: error, path: s.path), s.onEnd))
    }

    /// Ends a stream that has nothing queued and nothing more to decode (an empty or failed start).
    func endIfDrained(_ s: QueuedStream, host: any StreamHost, pending: inout [Pending]) {
        guard s.source != nil, s.queue.isEmpty, s.exhausted else { return }
        endNaturally(s, host: host, pending: &pending)
    }

    /// Ends `s` as its data ran out: `.finished`, or `.failed` with the error that ended its decoding.
    func endNaturally(_ s: QueuedStream, host: any StreamHost, pending: inout [Pending]) {
        end(s, reason: s.failure == nil ? .finished : .failed, error: s.failure, host: host, pending: &pending)
    }

    /// Releases the stream's source and buffers and queues its end event (once per session).
    func end(_ s: QueuedStream, reason: MusicTrack.Event.Reason, error: EarshotError?, host: any StreamHost, pending: inout [Pending]) {
        assertLocked()
        releaseAL(s, host: host)
        s.state = .idle
        s.heldBySession = false
        s.stopAt = nil
        s.endsAtQueueEnd = false
        if let f = s.fade {
            // A fade in flight when the track ends lands on its target.
            s.volume = f.to
            s.fade = nil
        }
        active.removeAll { $0 === s }
        if reason != .stopped { s.idlePosition = 0 }   // a finished track plays again from the start
        if s.sessionActive {
            s.sessionActive = false
            pending.append((s, MusicTrack.Event(reason: reason, error: error, path: s.path), s.onEnd))
        }
        if let follower = s.next {
            s.next = nil
            if reason != .stopped, follower.waiting {
                follower.waiting = false
                startFollower(follower, after: nil, host: host, pending: &pending)
            } else {
                follower.waiting = false
            }
        }
    }

    func cancelWaiting(_ s: QueuedStream) {
        if s.startAt != nil {
            s.startAt = nil
            if s.state == .idle { s.stopAt = nil }   // the stop belonged to the cancelled start
            scheduled.removeAll { $0 === s }
        }
        guard s.waiting else { return }
        s.waiting = false
        for a in active where a.next === s { a.next = nil }
    }

    func releaseAL(_ s: QueuedStream, host: any StreamHost) {
        guard let source = s.source else { return }
        guard !suspended else {
            // The device is lost: its sources and buffers go with the old context and device
            // (music makes fresh sources at the rebuild: ``reattach(host:)``).
            forgetAL(s)
            return
        }
        host.withStreamAL {
            guard !host.streamCoreIsShutDown else { return }
            alSourceStop(source)
            alSourcei(source, AL_BUFFER, 0)
            let names = s.freeBuffers + s.queue.map(\.buffer)
            if !names.isEmpty { alDeleteBuffers(ALsizei(names.count), names) }
            ALCheck.after("releasing a music source and its buffers")
        }
        precondition(sources.contains(source) && !freeSources.contains(source) && !freeFieldSources.contains(source),
                     "releaseAL: not a claimed music source")  // trap: engine bug
        if s.field != nil { freeFieldSources.append(source) } else { freeSources.append(source) }
        forgetAL(s)
    }

    /// Drops the stream's source, queue, spare buffers and meter history without any AL call:
    /// after ``releaseAL(_:host:)`` has freed them, or after a device loss destroyed them.
    func forgetAL(_ s: QueuedStream) {
        s.source = nil
        s.appliedGain = nil
        s.queue.removeAll()
        s.freeBuffers.removeAll()
        s.history.removeAll()
    }

    /// Unqueues the buffers OpenAL has played (AL lock held).
    func unqueueProcessed(_ s: QueuedStream, source: ALuint) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        var processed: ALint = 0
        alGetSourcei(source, AL_BUFFERS_PROCESSED, &processed)
        guard processed > 0 else { return }
        // This runs on every pump: the names go on the stack rather than into a new array.
        withUnsafeTemporaryAllocation(of: ALuint.self, capacity: Int(processed)) { names in
            guard let base = names.baseAddress else { return }
            names.initialize(repeating: 0)   // a failed unqueue leaves 0s, which the check below traps
            alSourceUnqueueBuffers(source, processed, base)
            for name in names {
                precondition(!s.queue.isEmpty && s.queue[0].buffer == name, "music queue out of step with OpenAL's")  // trap: engine bug
                let e = s.queue.removeFirst()
                s.queueBase += e.frames
                s.freeBuffers.append(e.buffer)
                if s.meteringEnabled, e.samples != nil { s.history.append(e) }
            }
        }
        if s.meteringEnabled { s.trimHistory(window: meterWindowFrames(s)) } else { s.history.removeAll() }
    }

    /// Uploads chunks into buffers and queues them (AL lock held). An OpenAL failure (out of
    /// memory) ends the stream's decoding with that error.
    func uploadAll(_ chunks: [StagedChunk], to s: QueuedStream, source: ALuint) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        for chunk in chunks {
            ALCheck.expectNoPending(before: "queueing a music buffer")
            var buffer: ALuint = 0
            if let b = s.freeBuffers.popLast() {
                buffer = b
            } else {
                alGenBuffers(1, &buffer)
                do throws(EarshotError) {
                    try ALCheck.throwing("alGenBuffers (music)")
                } catch {
                    s.failure = error
                    s.exhausted = true
                    return
                }
            }
            // Opening checked that the channels have a format (or split them: StreamLayout).
            guard let format = s.field?.isBFormat == true ? StreamLayout.bformat3D() : StreamLayout.nativeFormat(channels: s.channels) else {
                s.freeBuffers.append(buffer)
                s.failure = .unsupportedEncoding("\(s.path): OpenAL has no format for \(s.channels) channels")
                s.exhausted = true
                return
            }
            let data = s.channels == 2 && s.pan != 0 ? Self.balanced(chunk.samples, pan: s.pan) : chunk.samples
            data.withUnsafeBytes { alBufferData(buffer, format, $0.baseAddress, ALsizei($0.count), ALsizei(s.fileRate)) }
            alSourceQueueBuffers(source, 1, &buffer)
            do throws(EarshotError) {
                try ALCheck.throwing("queueing a music buffer")
            } catch {
                s.freeBuffers.append(buffer)
                s.failure = error
                s.exhausted = true
                return
            }
            // The samples are kept (shared, not copied) for the meters and for a scheduled stop,
            // which queues again the part before its frame (StreamSystem+Schedule.swift).
            s.queue.append(QueuedBuffer(buffer: buffer, frames: chunk.frames, segments: chunk.segments,
                                        samples: chunk.samples))
            framesQueued += chunk.frames
        }
    }

    /// Balance for stereo: the far side is attenuated linearly, the near side stays at unity.
    static func balanced(_ samples: [Float], pan: Float) -> [Float] {
        let left: Float = pan > 0 ? 1 - pan : 1
        let right: Float = pan < 0 ? 1 + pan : 1
        var out = samples
        out.withUnsafeMutableBufferPointer { buf in
            var i = 0
            while i + 1 < buf.count {
                buf[i] *= left
                buf[i + 1] *= right
                i += 2
            }
        }
        return out
    }

    /// `AL_SAMPLE_OFFSET` of the stream's source after unqueueing what was played; nil without a source.
    func queueOffset(_ s: QueuedStream, host: any StreamHost) -> Int? {
        guard let source = s.source else { return nil }
        return host.withStreamAL { () -> Int? in
            guard !host.streamCoreIsShutDown else { return nil }
            unqueueProcessed(s, source: source)
            var offset: ALint = 0
            alGetSourcei(source, AL_SAMPLE_OFFSET, &offset)
            return Int(offset)
        }
    }

    func currentFrameLocked(_ s: QueuedStream, host: any StreamHost) -> Int {
        assertLocked()
        // While the device is lost, the position saved at the loss (or set by a seek since).
        if suspended { return s.idlePosition }
        guard let offset = queueOffset(s, host: host) else { return s.idlePosition }
        return s.fileFrame(atQueueOffset: offset)
    }

    func deliver(_ pending: [Pending]) {
        for p in pending {
            p.stream.continuation.yield(p.event)
            _ = p.stream.broadcast?.send(p.event)
            if let callback = p.callback {
                let event = p.event
                DispatchQueue.global().async { callback(event) }
            }
        }
    }

    func startThreadIfLive(_ host: any StreamHost) {
        guard !host.isLoopback, !threadStarted else { return }
        threadStarted = true
        let thread = Thread { [weak host, self] in
            while !self.stopThread.load(ordering: .relaxed) {
                do {
                    guard let h = host else { return }
                    self.pump(host: h, renderFrames: 0)
                }
                usleep(Self.streamingPeriodMicroseconds)
            }
        }
        thread.name = "earshot.music"
        thread.qualityOfService = .userInteractive
        thread.start()
    }
}
