import COpenAL

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
            let id = core.play(try PlayResolver.resolve(clip, options: options, in: core, logger: logger),
                               markers: clip.markers)
            ALCheck.after("play")
            return id
        }
        return Voice(engine: self, id: id)
    }

    /// Stops a voice, fading it out over `fade` seconds (at least the engine's `fadeTime`, so a
    /// stop never clicks). A stale handle does nothing.
    public func stop(_ voice: Voice, fade: Double = 0) {
        let fade = fade.isFinite ? max(0, fade) : 0
        withPool(voice) { pool in
            if core.timelines.stop(voice.id, fade: fade, pool: pool) { return }   // a timeline's parts (Timelines/)
            pool.stop(voice.id, fade: fade)
            core.parameters.forEachLayer(of: voice.id) { pool.stop($0, fade: fade) }   // a layered voice's other layers
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
            return core.timelines.status(voice.id, pool: core.pool, now: core.now)   // a timeline's whole
                ?? core.pool.status(voice.id, now: core.now)
        }
    }

    /// Voices currently playing, real or virtual.
    public var activeVoiceCount: Int {
        withAL { core.isShutDown ? 0 : core.pool.liveCount }
    }

    // MARK: Voice properties

    /// Runs `body` under the AL lock with a live voice's slot index; nil (and `body` not run)
    /// for another engine's voice, a finished one, or after shutdown.
    func withSlot<T>(of voice: Voice, _ body: (Int) -> T) -> T? {
        guard voice.link === link else { return nil }
        return withAL {
            guard !core.isShutDown, let i = core.pool.slot(voice.id) else { return nil }
            return body(i)
        }
    }

    /// Runs `body` under the AL lock with the pool, for a voice of this engine before shutdown
    /// (a stale voice is the pool's to ignore).
    private func withPool(_ voice: Voice, _ body: (VoicePool) -> Void) {
        guard voice.link === link else { return }
        withAL {
            guard !core.isShutDown else { return }
            body(core.pool)
        }
    }

    /// Reads a live voice; nil for a stale handle.
    func read<T>(_ voice: Voice, _ body: (VoiceState) -> T) -> T? {
        withSlot(of: voice) { core.pool.voiceStates[$0] }.map(body)
    }

    /// A voice's own gain and pitch, as the game set them (``Voice/gain``, ``Voice/pitch``): a
    /// timeline's or following switch's handle's factor on its parts, a voice under curves its
    /// value without them, any other voice the pool's; nil for a stale handle.
    func own(_ voice: Voice) -> (gain: Float, pitch: Float)? {
        withSlot(of: voice) { i in
            core.timelines.scales(voice.id) ?? core.parameters.voices.own(voice.id, pool: core.pool)
                ?? (core.pool.voiceStates[i].gain, core.pool.voiceStates[i].pitch)
        }
    }

    /// A voice's position, or nil for a stale handle or a non-positional voice.
    public func position(of voice: Voice) -> Vector3? {
        withSlot(of: voice) { core.pool.position(ofSlot: $0) } ?? nil
    }

    /// Moves a positioned voice (ignored for a voice following an emitter: move the emitter).
    /// Non-finite positions are ignored; a stale handle does nothing.
    public func setPosition(_ position: Vector3, of voice: Voice) {
        guard position.isFinite else { return }
        withPool(voice) { pool in
            pool.setPosition(voice.id, position)
            core.timelines.forEachOtherPart(of: voice.id, pool: pool) { pool.setPosition($0, position) }
        }
    }

    /// Replaces a positioned voice's spatial properties (invalid values are ignored).
    public func setSpatialProperties(_ properties: SpatialProperties, of voice: Voice) {
        guard properties.isValid else { return }
        withPool(voice) { pool in
            pool.setSpatial(voice.id, properties)
            core.timelines.forEachOtherPart(of: voice.id, pool: pool) { pool.setSpatial($0, properties) }
        }
    }

    /// Sets a voice's gain (finite, ≥ 0; other values are ignored).
    public func setGain(_ gain: Float, of voice: Voice) {
        guard gain.isFinite, gain >= 0 else { return }
        withPool(voice) { pool in
            if core.timelines.scale(voice.id, gain: gain, pitch: nil, pool: pool, now: core.now) { return }
            // A voice under curves: its own value, its curves applied at once.
            if core.parameters.voices.setOwn(voice.id, gain: gain, pitch: nil, stage: core.parameters, pool: pool,
                                             now: core.now) { return }
            pool.setGain(voice.id, gain)
        }
    }

    /// Sets a voice's pitch (finite, > 0; other values are ignored).
    public func setPitch(_ pitch: Float, of voice: Voice) {
        guard pitch.isFinite, pitch > 0 else { return }
        withPool(voice) { pool in
            if core.timelines.scale(voice.id, gain: nil, pitch: pitch, pool: pool, now: core.now) { return }
            if core.parameters.voices.setOwn(voice.id, gain: nil, pitch: pitch, stage: core.parameters, pool: pool,
                                             now: core.now) { return }
            pool.setPitch(voice.id, pitch, now: core.now)
        }
    }

    /// Sets a non-positional voice's pan (−1…+1; other values are ignored). On a stereo clip's
    /// voice it is the balance: the far side's channel at `1 − |pan|`, ramped by OpenAL across
    /// its next mix (<doc:StereoAndSpread>).
    public func setPan(_ pan: Float, of voice: Voice) {
        guard pan.isFinite, (-1...1).contains(pan) else { return }
        withPool(voice) { pool in
            pool.setPan(voice.id, pan)
            core.timelines.forEachOtherPart(of: voice.id, pool: pool) { pool.setPan($0, pan) }
        }
    }

    /// Sets a voice's priority (0 most important … 255 least).
    public func setPriority(_ priority: UInt8, of voice: Voice) {
        withPool(voice) { $0.setPriority(voice.id, priority) }
    }

    /// Pauses or resumes one voice. A paused voice gives up its source (fading out) and its
    /// playhead stands still; resumed, it fades back in where it was.
    public func setPaused(_ paused: Bool, of voice: Voice) {
        withPool(voice) { pool in
            let now = core.now
            pool.accountPauses(now: now)   // a start delay is playback time
            pool.setPaused(voice.id, paused, now: now)
            // A layered voice's other layers, in step.
            core.parameters.forEachLayer(of: voice.id) { pool.setPaused($0, paused, now: now) }
            core.timelines.forEachOtherPart(of: voice.id, pool: pool) { pool.setPaused($0, paused, now: now) }
        }
    }
}
