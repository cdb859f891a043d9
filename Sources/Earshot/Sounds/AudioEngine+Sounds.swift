import Logging
#if canImport(Glibc)
import Glibc
#endif

extension AudioEngine {
    /// Makes a ``Sound`` from `definition`: its clips must be loaded in this engine.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a value out of range (the definition's
    /// ``SoundDefinition/validate()``), ``EarshotError/wrongEngine`` for a clip another engine
    /// loaded, ``EarshotError/clipUnloaded`` for a clip that is not loaded, and
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let beep = try engine.loadClip(path: "Assets/Sounds/beep.wav")
    /// let ping = try engine.makeSound(SoundDefinition(clips: [beep], cooldown: 0.1))
    /// _ = try engine.play(ping)
    /// ```
    public func makeSound(_ definition: SoundDefinition) throws(EarshotError) -> Sound {
        try definition.validate()
        return try withAL { () throws(EarshotError) -> Sound in
            guard !core.isShutDown else { throw .engineShutDown }
            for clip in definition.clips where clip.engineID != core.engineID { throw .wrongEngine }
            for clip in definition.clips where !core.isLoaded(clip) { throw .clipUnloaded }
            guard core.busIndex(definition.bus) != nil else {
                throw .invalidArgument("no bus named \"\(definition.bus.name)\" (add it with addBus first)")
            }
            try core.parameters.check(definition)   // its curves name defined parameters
            try core.checkSwitch(definition)        // a switch's labels and cases
            let (slot, generation) = try core.sounds.make(definition, poolCapacity: core.pool.capacity)
            return Sound(engineID: core.engineID, id: UInt32(slot), generation: generation, definition: definition)
        }
    }

    /// Removes a sound: its handle goes stale (playing it throws ``EarshotError/soundRemoved``).
    /// Voices it started play on to their end as plain clip voices. A stale handle does nothing.
    public func removeSound(_ sound: Sound) {
        withAL {
            guard !core.isShutDown, let slot = core.sounds.slot(sound) else { return }
            core.parameters.forgetSound(core.sounds.key(slot))
            core.sounds.remove(slot, pool: core.pool)
        }
    }

    /// Plays a sound: picks its clip, varies pitch and gain, applies its cooldown and instance
    /// limit, then starts a voice as ``play(_:options:)-(Clip,_)`` does.
    ///
    /// A refused play is reported as ``play(_:options:)-(Clip,_)`` reports one: no error, and the
    /// returned voice's ``Voice/status`` is ``VoiceStatus/refused`` — whether the sound's
    /// cooldown, its limit in ``SoundDefinition/StealMode/refuse`` mode or a full voice pool
    /// refused it; each is counted in ``stats`` and reported on ``voiceEvents``
    /// (``VoiceEndReason/cooldown`` or ``VoiceEndReason/refused``, with the sound). Throws
    /// ``EarshotError/soundRemoved`` for a
    /// removed sound, ``EarshotError/clipUnloaded`` when the picked clip was unloaded, and
    /// ``EarshotError/invalidArgument(_:)`` for bad options — the same error, word for word, as
    /// ``play(_:options:)-(Clip,_)`` for the same voice options, through the same checks
    /// (``PlayResolver``), before any cooldown or limit is consulted. Allocation-free.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let step = try engine.loadClip(path: "Assets/Sounds/step.wav")
    /// let steps = try engine.makeSound(SoundDefinition(clips: [step], limit: .init(count: 3, steal: .refuse)))
    /// for _ in 0..<5 {
    ///     if try engine.play(steps).status == .refused { print("refused: three are playing") }
    /// }
    /// ```
    @discardableResult
    public func play(_ sound: Sound, options: SoundPlayOptions = SoundPlayOptions()) throws(EarshotError) -> Voice {
        if case .emitter(let e) = options.placement, e.link !== link { throw .wrongEngine }
        guard sound.engineID == link.id else { throw .wrongEngine }
        // The voice's options before the random variation, checked as a clip's are, before the
        // lock (the handle carries the definition its slot holds).
        let voiceOptions = options.playOptions(for: sound.definition)
        try PlayResolver.check(voiceOptions)
        let id = try withAL { () throws(EarshotError) -> VoiceID? in
            guard !core.isShutDown else { throw .engineShutDown }
            guard let slot = core.sounds.slot(sound) else { throw .soundRemoved }
            return try core.play(sound: slot, options: voiceOptions, logger: logger)
        }
        return Voice(engine: self, id: id ?? .refused)
    }

    /// Voices of `sound` now — real, virtual or held back by its limit (0 for a removed sound);
    /// a switch's are the voices of its cases it started.
    public func instanceCount(of sound: Sound) -> Int {
        withAL {
            guard !core.isShutDown, let slot = core.sounds.slot(sound) else { return 0 }
            let count = core.sounds.instanceCount(slot, pool: core.pool)
            // A switch without a limit: its cases' voices carry their own sound's key.
            guard let d = core.sounds.entries[slot].definition, d.isSwitch, d.limit == nil else { return count }
            return count + core.switchVoices(core.sounds.key(slot)).count
        }
    }
}

extension EngineCore {
    /// What a play of a sound passes before anything is picked or started: its bus and emitter
    /// (``PlayResolver/target(_:in:)``), its cooldown and its limit. Returns the sound's key, the
    /// target, the time of the play and the limit's decision; nil when refused (recorded as such).
    @inline(__always)
    func admit(sound slot: Int, options: PlayOptions) throws(EarshotError)
        -> (key: SoundTable.Key, target: PlayResolver.Target, time: Double, decision: SoundTable.Decision)? {
        let key = sounds.key(slot)
        let target = try PlayResolver.target(options, in: self)
        let t = now
        if sounds.coolingDown(slot, now: t) {
            pool.recordRefusal(.cooldown, sound: key)
            return nil
        }
        let decision = sounds.decide(slot, emitterIndex: target.emitterIndex, pool: pool)
        if decision == .refuse {
            pool.recordRefusal(.refused, sound: key)
            return nil
        }
        return (key, target, t, decision)
    }

    /// One play of the sound in `slot` with its voice's checked `options` (the definition's
    /// values and the play's, before variation): selection, variation, cooldown and limit, then
    /// the voice. Nil when refused (recorded for the event stream).
    func play(sound slot: Int, options: PlayOptions, logger: Logger) throws(EarshotError) -> VoiceID? {
        guard let definition = sounds.entries[slot].definition else { throw .soundRemoved }
        if definition.parameterPart != nil,
           definition.isComposite { return try playComposite(sound: slot, definition, options: options, logger: logger) }
        // Everything that can fail or refuse before the clip is picked: a refused play must not
        // move the selection on (a sequence would skip, avoidRepeat would repeat).
        guard let (key, target, t, decision) = try admit(sound: slot, options: options) else { return nil }
        let clip = definition.clips[sounds.nextClip(slot, using: &random)]
        var resolved = try PlayResolver.resolve(clip, options: options, target: target, in: self, logger: logger,
                                                sound: key, held: decision == .hold)
        vary(&resolved, cents: definition.pitchVariation, decibels: definition.gainVariation)
        // through its curves, if any
        let id = try playSoundVoice(resolved, key: key, definition: definition, markers: clip.markers)
        guard id != .refused else { return nil }   // the pool's refusal, recorded by it
        sounds.started(slot, voice: id, now: t, decision: decision, pool: pool)
        return id
    }

    /// A sound of layers, a timeline or a switch: the layered and timeline plays, a switch's case.
    @inline(never)   // out of the plain sound's play path
    private func playComposite(sound slot: Int, _ definition: SoundDefinition, options: PlayOptions,
                               logger: Logger) throws(EarshotError) -> VoiceID? {
        if definition.isSwitch { return try playSwitch(sound: slot, options: options, logger: logger) }
        if definition.isTimeline { return try playTimeline(sound: slot, options: options, logger: logger) }
        return try playLayers(sound: slot, options: options, logger: logger)
    }

    /// Moves a play's pitch by a uniform random ± `cents` and its gain by ± `decibels` (each
    /// only when above 0), from the engine's seeded generator.
    @inline(__always)
    func vary(_ resolved: inout ResolvedPlay, cents: Double, decibels: Double) {
        if cents > 0 {
            let c = (random.nextUnit() * 2 - 1) * cents
            resolved.pitch = Self.varied(resolved.pitch, by: Float(pow(2, c / 1200)))
        }
        if decibels > 0 {
            let db = (random.nextUnit() * 2 - 1) * decibels
            resolved.gain = Self.varied(resolved.gain, by: Float(pow(10, db / 20)))
        }
    }

    /// A checked gain or pitch (finite; a pitch above 0) times a variation factor (¼…4 for pitch,
    /// −48…+48 dB for gain), kept finite and a pitch above 0: the engine's own randomness never
    /// makes a valid play fail (OpenAL caps the gain at 16 and the pitch far inside these bounds).
    static func varied(_ value: Float, by factor: Float) -> Float {
        let v = value * factor
        if !v.isFinite { return .greatestFiniteMagnitude }
        return v == 0 && value > 0 ? .leastNonzeroMagnitude : v
    }
}
