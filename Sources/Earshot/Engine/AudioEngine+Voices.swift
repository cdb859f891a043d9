import COpenAL
import Synchronization

/// Counts that describe the voice pool at one moment.
///
/// `realVoices`, `virtualVoices`, `voiceSources`, `clips` and `clipRestoreBytes` are the state
/// now; the others count events since the engine started. A real voice gives up its source for
/// exactly one of three reasons, each counted once when it is decided (the fade-out follows):
/// ``steals`` (outranked while every source was in use), ``pauses`` (paused) and
/// ``virtualizations`` (too quiet to hear). A request that gets no voice at all is a
/// ``refusals``; a virtual voice ended to make room is an ``evictions``.
///
/// ```swift
/// let s = engine.stats
/// print("\(s.realVoices) real, \(s.virtualVoices) virtual, \(s.steals) steals, \(s.pauses) pauses")
/// ```
public struct EngineStats: Sendable, Equatable {
    /// Voices playing on real OpenAL sources.
    public var realVoices: Int
    /// Voices playing without a source (including those waiting for a start delay).
    public var virtualVoices: Int
    /// Real sources of the voice pool.
    public var voiceSources: Int
    /// Real voices whose source was taken for a better-standing voice because every source was
    /// in use, since the engine started. Only this is a steal: pauses, interruptions and voices
    /// too quiet to hear are counted in ``pauses`` and ``virtualizations``.
    public var steals: Int
    /// Real voices that gave up their source because they were paused — the voice itself
    /// (``AudioEngine/setPaused(_:of:)``), its bus, or every bus during an audio-session
    /// interruption — since the engine started. They keep their playhead and come back.
    public var pauses: Int
    /// Real voices that gave up their source because their audibility fell below
    /// ``AudioEngine/Configuration/audibilityFloor`` (gain turned down, moved away), since the
    /// engine started. They play on virtually and get a source back when audible again.
    public var virtualizations: Int
    /// `play` requests refused because the pool was full (the returned voice's status is
    /// ``VoiceStatus/refused``), since the engine started.
    public var refusals: Int
    /// Virtual voices evicted by a better-standing request.
    public var evictions: Int
    /// Virtual voices that won a source back and resumed mid-clip.
    public var resumes: Int
    /// Clips loaded.
    public var clips: Int
    /// Voices a sound's instance limit stopped to make room for a new play
    /// (``SoundDefinition/StealMode/oldest`` and ``SoundDefinition/StealMode/quietest``).
    public var limitSteals: Int = 0
    /// Plays of sounds refused by their instance limit (``SoundDefinition/StealMode/refuse``).
    public var limitRefusals: Int = 0
    /// Plays of sounds that started virtual because of their instance limit
    /// (``SoundDefinition/StealMode/virtual``).
    public var limitHolds: Int = 0
    /// Plays of sounds refused because the sound started less than its cooldown ago.
    public var cooldownRefusals: Int = 0
    /// Music-track underruns (a starved source restarted), since the engine started.
    public var musicUnderruns: Int
    /// Bytes of decoded clip samples the engine keeps to upload every clip again after the output
    /// device is lost and reopened (OpenAL cannot hand a buffer's data back).
    public var clipRestoreBytes: Int
    /// Output frames the loopback output limiter turned down (the mix would have exceeded full
    /// scale), since the engine started; 0 on a real device, where OpenAL Soft's own limiter
    /// works (see ``OutputLimiter``).
    public var limitedFrames: Int = 0
    /// The deepest gain reduction the loopback output limiter applied since the engine started,
    /// in dB (0: it never limited; −12: the mix was turned down to a quarter at its loudest).
    public var deepestLimiterReduction: Float = 0
}

extension AudioEngine {
    // MARK: Playing

    /// Starts a voice playing `clip`.
    ///
    /// The voice starts on a free real source at once when it can be heard now; otherwise it
    /// starts virtual and ``update(deltaTime:)`` gives it a source when it stands high enough
    /// (the rules are in the README, "Voice management"). When the pool is full and the request
    /// has the lowest standing, the returned handle's ``Voice/status`` is ``VoiceStatus/refused``
    /// — no error is thrown for that (``play(_:options:)-(Sound,_)`` reports its refusals the
    /// same way). The result may be ignored: a refused play is also counted in ``stats`` and
    /// reported on ``voiceEvents``.
    ///
    /// Throws ``EarshotError/clipUnloaded`` for an unloaded clip,
    /// ``EarshotError/wrongEngine`` for a clip or emitter of another engine, and
    /// ``EarshotError/invalidArgument(_:)`` for a NaN, infinite or negative gain, pitch, delay
    /// or position, an unknown bus or a removed emitter: none of those ever reach OpenAL.
    @discardableResult
    public func play(_ clip: Clip, options: PlayOptions = PlayOptions()) throws(EarshotError) -> Voice {
        try PlayResolver.checkRequest(options, link: link)
        let id = try withAL { () throws(EarshotError) -> VoiceID in
            guard !core.isShutDown else { throw .engineShutDown }
            let id = core.play(try PlayResolver.resolve(clip, options: options, in: core, logger: logger), markers: clip.markers)
            ALCheck.after("play")
            return id
        }
        return Voice(engine: self, id: id)
    }

    /// Stops a voice, fading it out over `fade` seconds (at least the engine's `fadeTime`, so a
    /// stop never clicks). A stale handle does nothing.
    public func stop(_ voice: Voice, fade: Double = 0) {
        guard voice.link === link else { return }
        let fade = fade.isFinite ? max(0, fade) : 0
        withAL {
            guard !core.isShutDown else { return }
            core.pool.stop(voice.id, fade: fade)
        }
    }

    /// Whether the voice is still playing, really or virtually (false once it ended, was stopped,
    /// refused, or for a stale handle).
    public func isPlaying(_ voice: Voice) -> Bool {
        let s = status(of: voice)
        return s == .real || s == .virtual || s == .pending
    }

    /// The voice's state in the pool.
    public func status(of voice: Voice) -> VoiceStatus {
        guard voice.link === link else { return .stopped }
        return withAL {
            guard !core.isShutDown else { return voice.id == .refused ? .refused : .stopped }
            return core.pool.status(voice.id, now: core.now)
        }
    }

    /// Voices currently playing, real or virtual.
    public var activeVoiceCount: Int {
        withAL { core.isShutDown ? 0 : core.pool.liveCount }
    }

    /// Counts of the voice pool.
    public var stats: EngineStats {
        let underruns = musicSystem.underrunTotal   // outside withAL: the music lock is never taken inside the AL lock
        let (limitedFrames, deepest) = limiter.withLock { ($0.limitedFrames, $0.deepestReductionDecibels) }
        var stats = withAL {
            let p = core.pool
            let s = p.stats
            let sounds = core.sounds.stats
            return EngineStats(realVoices: p.realCount, virtualVoices: p.liveCount - p.realCount,
                               voiceSources: p.sources.count, steals: s.steals, pauses: s.pauses,
                               virtualizations: s.virtualizations, refusals: s.refusals,
                               evictions: s.evictions, resumes: s.resumes, clips: core.loadedClipCount,
                               limitSteals: sounds.limitSteals, limitRefusals: sounds.limitRefusals,
                               limitHolds: sounds.limitHolds, cooldownRefusals: sounds.cooldownRefusals,
                               musicUnderruns: underruns, clipRestoreBytes: core.restoreBytes)
        }
        stats.limitedFrames = limitedFrames
        stats.deepestLimiterReduction = deepest
        return stats
    }

    // MARK: Voice properties

    /// Applies a change to a live voice under the lock; a stale handle does nothing.
    func modify(_ voice: Voice, _ change: (inout VoiceState) -> Void) {
        guard voice.link === link else { return }
        withAL {
            guard !core.isShutDown else { return }
            core.pool.modify(voice.id, change)
        }
    }

    /// Runs `body` under the AL lock with a live voice's slot index; nil (and `body` not run)
    /// for another engine's voice, a finished one, or after shutdown.
    func withSlot<T>(of voice: Voice, _ body: (Int) -> T) -> T? {
        guard voice.link === link else { return nil }
        return withAL {
            guard !core.isShutDown, let i = core.pool.slot(voice.id) else { return nil }
            return body(i)
        }
    }

    /// Runs `body` under the AL lock with a live emitter's index; nil (and `body` not run) for
    /// another engine's emitter, a removed one, or after shutdown.
    func withIndex<T>(of emitter: Emitter, _ body: (Int) -> T) -> T? {
        guard emitter.link === link else { return nil }
        return withAL {
            guard !core.isShutDown, let i = core.pool.emitterIndex(emitter.id) else { return nil }
            return body(i)
        }
    }

    /// Reads a live voice; nil for a stale handle.
    func read<T>(_ voice: Voice, _ body: (VoiceState) -> T) -> T? {
        withSlot(of: voice) { core.pool.slots[$0] }.map(body)
    }

    /// A voice's position, or nil for a stale handle or a non-positional voice.
    public func position(of voice: Voice) -> Vector3? {
        withSlot(of: voice) { core.pool.position(ofSlot: $0) } ?? nil
    }

    /// Moves a positioned voice (ignored for a voice following an emitter: move the emitter).
    /// Non-finite positions are ignored; a stale handle does nothing.
    public func setPosition(_ position: Vector3, of voice: Voice) {
        guard position.isFinite else { return }
        modify(voice) { v in
            guard v.placement == .spatial else { return }
            v.spatial.position = position
            v.dirtyPosition = true
        }
    }

    /// Replaces a positioned voice's spatial properties (invalid values are ignored).
    public func setSpatialProperties(_ properties: SpatialProperties, of voice: Voice) {
        guard properties.isValid else { return }
        modify(voice) { v in
            guard v.placement == .spatial else { return }
            v.spatial = properties
            v.dirtySpatial = true
        }
    }

    /// Sets a voice's gain (finite, ≥ 0; other values are ignored).
    public func setGain(_ gain: Float, of voice: Voice) {
        guard gain.isFinite, gain >= 0 else { return }
        modify(voice) { v in
            v.gain = gain
            v.dirtyGain = true
        }
    }

    /// Sets a voice's pitch (finite, > 0; other values are ignored).
    public func setPitch(_ pitch: Float, of voice: Voice) {
        guard pitch.isFinite, pitch > 0 else { return }
        guard voice.link === link else { return }
        withAL {
            guard !core.isShutDown, let i = core.pool.slot(voice.id) else { return }
            // The time played so far counts at the old pitch: the voice's time, its markers'
            // times and the sidechain's playhead estimate stay true.
            core.pool.accountPosition(i, now: core.now)
            core.pool.modify(voice.id) { v in
                v.pitch = pitch
                v.dirtyPitch = true
            }
        }
    }

    /// Sets a non-positional voice's pan (−1…+1; other values are ignored).
    public func setPan(_ pan: Float, of voice: Voice) {
        guard pan.isFinite, (-1...1).contains(pan) else { return }
        modify(voice) { v in
            guard v.placement == .pan else { return }
            v.pan = pan
            v.dirtySpatial = true
        }
    }

    /// Sets a voice's priority (0 most important … 255 least).
    public func setPriority(_ priority: UInt8, of voice: Voice) {
        modify(voice) { $0.priority = priority }
    }

    /// Pauses or resumes one voice. A paused voice gives up its source (fading out) and its
    /// playhead stands still; resumed, it fades back in where it was.
    public func setPaused(_ paused: Bool, of voice: Voice) {
        guard voice.link === link else { return }
        withAL {
            guard !core.isShutDown else { return }
            core.pool.accountPauses(now: core.now)   // a start delay is playback time
            // Its time runs up to the pause (and, resumed, from now on): ``Voice/time``.
            if let i = core.pool.slot(voice.id) { core.pool.accountPosition(i, now: core.now) }
            core.pool.modify(voice.id) { $0.paused = paused }
        }
    }

    // MARK: Emitters

    /// Creates an emitter with `properties` (invalid values throw ``EarshotError/invalidArgument(_:)``).
    public func makeEmitter(_ properties: SpatialProperties = SpatialProperties()) throws(EarshotError) -> Emitter {
        guard properties.isValid else { throw .invalidArgument("emitter properties \(properties)") }
        let id = try withAL { () throws(EarshotError) -> EmitterID in
            guard !core.isShutDown else { throw .engineShutDown }
            return core.pool.makeEmitter(properties)
        }
        return Emitter(engine: self, id: id)
    }

    /// Removes an emitter; voices following it stop with the steal fade. A stale handle does nothing.
    public func removeEmitter(_ emitter: Emitter) {
        withIndex(of: emitter) { core.pool.removeEmitter($0) }
    }

    /// An emitter's properties, or nil once removed.
    public func properties(of emitter: Emitter) -> SpatialProperties? {
        withIndex(of: emitter) { core.pool.emitterSpatial[$0] }
    }

    /// Replaces an emitter's properties (invalid values are ignored).
    public func setProperties(_ properties: SpatialProperties, of emitter: Emitter) {
        guard properties.isValid else { return }
        withIndex(of: emitter) { core.pool.setEmitter($0, properties) }
    }

    /// Moves an emitter (non-finite positions are ignored).
    public func setPosition(_ position: Vector3, of emitter: Emitter) {
        guard position.isFinite else { return }
        withIndex(of: emitter) { core.pool.setEmitterPosition($0, position) }
    }

    /// Runs `body` with one lock held for many emitter and voice moves: the way to move thousands
    /// of emitters per frame.
    ///
    /// ```swift
    /// let crowd = try (0..<1_000).map { _ in try engine.makeEmitter(SpatialProperties()) }
    /// let positions = (0..<1_000).map { Vector3(Float($0 % 40), 0, -Float($0 / 40)) }
    /// engine.batch { frame in
    ///     for (emitter, p) in zip(crowd, positions) { frame.setPosition(p, of: emitter) }
    /// }
    /// ```
    ///
    /// The ``Batch`` is valid only inside `body`, while the lock is held: one kept and used after
    /// `batch` returned would touch the engine without its lock, so that use traps
    /// (a precondition on the batch's validity, checked by every method).
    public func batch<R>(_ body: (inout Batch) throws -> R) rethrows -> R {
        try withAL {
            // An odd epoch marks the batch open; closing it makes every copy of it invalid.
            core.batchEpoch &+= 1
            defer { core.batchEpoch &+= 1 }
            var b = Batch(core: core, link: link, epoch: core.batchEpoch)
            return try body(&b)
        }
    }

    /// Changes made inside ``AudioEngine/batch(_:)``; only valid inside that call.
    ///
    /// Using a batch after its `batch { }` call returned is a programmer error and traps.
    public struct Batch {
        let core: EngineCore
        /// The engine's link: handles of another engine are ignored like stale ones.
        let link: EngineLink
        let epoch: UInt64

        /// Whether this batch's `batch { }` call is still running (its lock held).
        var isValid: Bool { core.batchEpoch == epoch }

        @inline(__always)
        private func checkValid() {
            precondition(isValid, "an AudioEngine.Batch was used after its batch { } call returned")
        }

        /// Moves an emitter (non-finite positions and stale handles are ignored).
        public mutating func setPosition(_ position: Vector3, of emitter: Emitter) {
            checkValid()
            guard position.isFinite, emitter.link === link, !core.isShutDown,
                  let i = core.pool.emitterIndex(emitter.id) else { return }
            core.pool.setEmitterPosition(i, position)
        }

        /// Moves an emitter and sets its velocity (for the Doppler effect): non-finite values and
        /// stale handles are ignored. An unchanged velocity costs what a plain move costs.
        public mutating func setPosition(_ position: Vector3, velocity: Vector3, of emitter: Emitter) {
            checkValid()
            guard position.isFinite, velocity.isFinite, emitter.link === link, !core.isShutDown,
                  let i = core.pool.emitterIndex(emitter.id) else { return }
            var p = core.pool.emitterSpatial[i]
            guard p.velocity != velocity else {
                core.pool.setEmitterPosition(i, position)
                return
            }
            p.position = position
            p.velocity = velocity
            core.pool.setEmitter(i, p)
        }

        /// Replaces an emitter's spatial properties (invalid ones and stale handles are ignored).
        public mutating func setProperties(_ properties: SpatialProperties, of emitter: Emitter) {
            checkValid()
            guard properties.isValid, emitter.link === link, !core.isShutDown,
                  let i = core.pool.emitterIndex(emitter.id) else { return }
            core.pool.setEmitter(i, properties)
        }

        /// Moves a positioned voice (non-finite positions and stale handles are ignored).
        public mutating func setPosition(_ position: Vector3, of voice: Voice) {
            checkValid()
            guard position.isFinite, voice.link === link, !core.isShutDown else { return }
            core.pool.modify(voice.id) { v in
                guard v.placement == .spatial else { return }
                v.spatial.position = position
                v.dirtyPosition = true
            }
        }
    }

    // MARK: Frame

    /// Once per game frame: ranks every voice, steals and resumes sources with fades, ends
    /// finished voices, and pushes every changed property to OpenAL in one deferred batch.
    ///
    /// Audio timing follows the engine clock — samples rendered on a loopback engine, the
    /// monotonic clock on a live device — so an irregular frame cannot make voices drift;
    /// `deltaTime` is recorded as the frame time only. Call it from one thread (the game loop);
    /// `play`, `stop` and the setters may be called from any thread meanwhile. Steady state
    /// allocates nothing.
    public func update(deltaTime: Double = 0) {
        eachSubsystem { $0.beginFrame(self) }   // the session's duck ramp
        checkDevice()
        let (ended, changes, marks) = withAL { () -> (Bool, BusChanges, [MarkerEvent]) in
            guard !core.isShutDown else { return (false, BusChanges(), []) }
            core.stepFrame()
            return (core.pool.hasEnded, core.takeBusChanges(), takeVoiceMarkers())
        }
        eachSubsystem { $0.endFrame(self, changes: changes) }   // music: gains, fades, holds
        sendMarkers(marks)
        if ended { deliverVoiceEvents() }
    }

    /// Ended voices, as they end (delivered after `update` and `render`).
    ///
    /// Every read returns a new stream, and every stream sees every event: two consumers each
    /// get all of them. A consumer that falls behind keeps its newest 1024 events; older ones
    /// drop, for it alone. A stream whose consumer stops (its loop breaks, its task is cancelled)
    /// is forgotten. ``shutdown()`` finishes every stream — a `for await` loop ends after the
    /// events already buffered — and a stream read after shutdown is finished at once.
    ///
    /// ```swift
    /// Task {
    ///     for await event in engine.voiceEvents where event.reason == .finished {
    ///         print("a voice finished")
    ///     }
    ///     print("the engine was shut down")
    /// }
    /// ```
    public var voiceEvents: AsyncStream<VoiceEvent> { voiceEventBroadcast.stream() }

    /// Calls `observer` for every ended voice (as ``voiceEvents`` carries them), on the thread that
    /// calls ``update(deltaTime:)`` or ``render(frames:)``, right after it — before the next render:
    /// what a synchronous game loop or a scene player reacts to in the same frame. Until
    /// ``shutdown()``. The observer must not block; it may call the engine.
    ///
    /// ```swift
    /// engine.observeVoiceEvents { event in
    ///     if event.reason == .finished { print("ended at \(event.audioTime) s of output") }
    /// }
    /// ```
    public func observeVoiceEvents(_ observer: @escaping @Sendable (VoiceEvent) -> Void) {
        voiceEventBroadcast.observe(observer)
    }

    /// Hands ended voices to the event streams, outside the AL lock. Called by `update` and
    /// `render` when their pass left ended voices behind.
    func deliverVoiceEvents() {
        var awaited: [(id: VoiceID, reason: VoiceEndReason)] = []
        defer { completions.resume(awaited) }   // the tasks awaiting `finished`, outside the lock
        guard voiceEventBroadcast.hasConsumers else {
            // Nobody listens: drop the records so they cannot pile up.
            withAL {
                core.pool.drainEnded { _, _, _, _ in }
                swap(&awaited, &core.pool.awaitedEnds)
            }
            return
        }
        var ended: [VoiceEvent] = []
        withAL {
            // Engine clock to audio clock: they differ by the time the output was held so far.
            let audioNow = core.audioTime()
            let held = core.now - audioNow
            core.pool.drainEnded { id, reason, key, time in
                ended.append(VoiceEvent(voice: Voice(engine: self, id: id), reason: reason, sound: core.sounds.sound(forKey: key),
                                        audioTime: max(0, min(audioNow, time - held))))
            }
            swap(&awaited, &core.pool.awaitedEnds)
        }
        voiceEventBroadcast.send(ended)
    }

    /// What ``Voice/finished`` waits on: the voice's end reason once it ends (at once when it has
    /// ended already; nil when it ended so long ago that its slot has ended another voice
    /// since), ``VoiceEndReason/engineShutDown`` when the engine shuts down first.
    func finished(_ voice: Voice) async -> VoiceEndReason? {
        guard voice.link === link else { return nil }
        if voice.id == .refused { return .refused }
        return await withCheckedContinuation { (continuation: CheckedContinuation<VoiceEndReason?, Never>) in
            let now: VoiceEndReason?? = withAL {
                guard !core.isShutDown else { return .some(.engineShutDown) }
                switch core.pool.awaitEnd(voice.id) {
                case .ended(let reason):
                    return .some(reason)
                case .live:
                    // Filed inside the AL lock: the voice cannot end before its waiter is known.
                    return completions.register(voice.id, continuation) ? .none : .some(.engineShutDown)
                }
            }
            if let reason = now { continuation.resume(returning: reason) }
        }
    }
}
