import Logging

extension AudioEngine {
    /// Changes what a sound is while it plays — the live tuning of a designer's bank: the sound
    /// keeps its handle's identity (its slot), its voices keep playing, and from the next
    /// rendered frame:
    ///
    /// - its playing voices take the new ``SoundDefinition/gain`` and ``SoundDefinition/pitch``:
    ///   each voice's gain (and pitch) is multiplied by new ÷ old, so a play's own factor and its
    ///   random variation are kept — for a voice under curves its own gain and pitch, the curves
    ///   still multiplying them; nothing restarts, the playhead (and ``Voice/time``, loops
    ///   counted) runs on; the layers of a layered sound, and the parts of a timeline sound,
    ///   each take their layer's new gain and pitch the same way (a gain set on a timeline's
    ///   handle later scales the new levels); a switch's change reaches the voices of its cases
    ///   playing, and the next cases a following switch starts on a label change;
    /// - its curves (``SoundDefinition/curves``, each layer's) are those its playing voices
    ///   follow from the next ``update(deltaTime:)`` — a voice that had none gets them;
    /// - its next plays take every new value: clips and selection, variation, the instance
    ///   ``SoundDefinition/limit`` (counting the voices playing now), the
    ///   ``SoundDefinition/cooldown`` (from the last start), the bus, the priority, looping and
    ///   the distance settings. Voices playing keep their bus, priority and loop.
    ///
    /// The selection carries on (a `shuffle` keeps its order, `avoidRepeat` its history) while
    /// the clips, the selection rule, the weights and `avoidRepeat` stay the same; otherwise it
    /// starts afresh. Layers added or removed, and a layer's new clip, apply to the next plays.
    ///
    /// Returns the handle to play from now on (equal to `sound`, carrying `definition`; plays of
    /// the old handle value take the old handle's gain, pitch, bus and priority). Throws as
    /// ``makeSound(_:)`` does for `definition` (``EarshotError/unknownParameter(name:nearest:)``
    /// for a curve naming an undefined parameter), ``EarshotError/soundRemoved`` for a removed sound
    /// and ``EarshotError/wrongEngine`` for another engine's; nothing changes then.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let hum = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")], loop: true))
    /// _ = try engine.play(hum)
    /// var quieter = hum.definition
    /// quieter.gain = 0.25                                    // −12 dB
    /// let tuned = try engine.redefine(hum, as: quieter)      // the hum drops at once, no restart
    /// print(tuned == hum)                                    // true
    /// ```
    public func redefine(_ sound: Sound, as definition: SoundDefinition) throws(EarshotError) -> Sound {
        guard sound.engineID == link.id else { throw .wrongEngine }
        try definition.validate()
        return try withAL { () throws(EarshotError) -> Sound in
            guard !core.isShutDown else { throw .engineShutDown }
            guard let slot = core.sounds.slot(sound), let old = core.sounds.entries[slot].definition else {
                throw .soundRemoved
            }
            for clip in definition.clips where clip.engineID != core.engineID { throw .wrongEngine }
            for clip in definition.clips where !core.isLoaded(clip) { throw .clipUnloaded }
            for layer in definition.layers where layer.clip.engineID != core.engineID { throw .wrongEngine }
            for layer in definition.layers where !core.isLoaded(layer.clip) { throw .clipUnloaded }
            guard core.busIndex(definition.bus) != nil else {
                throw .invalidArgument("no bus named \"\(definition.bus.name)\" (add it with addBus first)")
            }
            try core.parameters.check(definition)   // its curves name defined parameters
            try core.checkSwitch(definition)        // a switch's labels and cases
            let key = core.sounds.key(slot)
            let playing = core.voices(ofSound: key)
            let cases = core.switchVoices(key)   // a switch's: its cases' voices carry their own key
            try core.parameters.redefineSound(key, definition)
            core.sounds.redefine(slot, as: definition, playing: cases.isEmpty ? playing : playing + cases, pool: core.pool)
            let gain = Self.ratio(definition.gain, old.gain), pitch = Self.ratio(definition.pitch, old.pitch)
            core.rescale(playing, gain: gain, pitch: pitch)
            core.redefineLayers(playing, key: key, old: old, new: definition, gain: gain, pitch: pitch)
            core.redefineTimelines(playing, old: old, new: definition, gain: gain, pitch: pitch)   // Timelines/
            core.rescaleWholes(cases, gain: gain, pitch: pitch)
            core.attachCurves(playing, key: key, definition: definition)
            return Sound(engineID: core.engineID, id: sound.id, generation: sound.generation, definition: definition)
        }
    }

    /// new ÷ old, finite; 1 when unchanged; from a gain of 0 the new gain itself (the play's own
    /// factor is lost then).
    private static func ratio(_ new: Float, _ old: Float) -> Float? {
        if new == old { return nil }
        guard old > 0 else { return new }
        let r = new / old
        return r.isFinite ? r : nil
    }
}

extension EngineCore {
    /// The live voices of the sound `key`, oldest first (by start time, then slot).
    func voices(ofSound key: UInt32) -> [VoiceID] { pool.voices(ofSound: key) }

    /// Multiplies the own gain and pitch of `voices` (nil: unchanged); they reach OpenAL with
    /// the next push, as a voice's own setter's do. A voice under curves has its own values in
    /// the curve table (the pool's are those times its curves'): those are scaled, or the curves'
    /// present value would be baked into them.
    func rescale(_ voices: [VoiceID], gain: Float?, pitch: Float?) {
        guard gain != nil || pitch != nil else { return }
        let t = now
        for id in voices {
            guard let i = pool.slot(id) else { continue }
            if parameters.voices.scaleOwn(id, gain: gain, pitch: pitch, stage: parameters, pool: pool,
                                          now: t) { continue }
            if let gain { pool.setGain(id, Self.varied(pool.gain(ofSlot: i), by: gain)) }
            // The time played so far counts at the old pitch, its loops' wraps too.
            if let pitch { pool.setPitch(id, Self.varied(pool.pitch(ofSlot: i), by: pitch), now: t) }
        }
    }
}

extension EngineCore {
    /// The layers of the playing voices of a layered sound (each first layer's followers, in
    /// layer order) take their layer's new gain and pitch, times the sound's change.
    func redefineLayers(_ leaders: [VoiceID], key: UInt32, old: SoundDefinition, new: SoundDefinition, gain: Float?,
                        pitch: Float?) {
        guard old.isLayered, new.isLayered else { return }
        func ratio(_ n: Float, _ o: Float, _ sound: Float?) -> Float? {
            let layer: Float? = n == o ? nil : (o > 0 ? n / o : n)
            switch (layer, sound) {
            case (nil, nil): return nil
            case (let l?, nil): return l
            case (nil, let s?): return s
            case (let l?, let s?): return l * s
            }
        }
        // A timeline's parts: redefineTimelines (a following switch's case voice is one sound's).
        for leader in leaders where timelines.index(leader) == nil || timelines.entry(leader)?.follow != nil {
            guard let e = parameters.voices.entry(leader) else { continue }
            // The first layer is the leader, already rescaled by the sound's change: its layer's own.
            if new.layers.count > 0, old.layers.count > 0 {
                rescale([leader], gain: ratio(new.layers[0].gain, old.layers[0].gain, nil),
                        pitch: ratio(new.layers[0].pitch, old.layers[0].pitch, nil))
            }
            for (k, follower) in parameters.voices.entries[e].followers.enumerated() {
                let layer = k + 1
                guard layer < new.layers.count, layer < old.layers.count else {
                    rescale([follower], gain: gain, pitch: pitch)
                    continue
                }
                rescale([follower], gain: ratio(new.layers[layer].gain, old.layers[layer].gain, gain),
                        pitch: ratio(new.layers[layer].pitch, old.layers[layer].pitch, pitch))
            }
        }
    }

    /// Playing voices of the sound `key` that follow no curve set (it had no curves when they
    /// started) get the sound's sets now, so that curves added by an edit reach them too. A
    /// layered sound's voices are all registered (their sets are set, or made, here).
    func attachCurves(_ leaders: [VoiceID], key: UInt32, definition: SoundDefinition) {
        let layered = definition.isLayered
        guard layered || !definition.curves.isEmpty else { return }
        for leader in leaders {
            guard let i = pool.slot(leader) else { continue }
            if layered {
                guard let e = parameters.voices.entry(leader) else { continue }
                var members = [leader] + parameters.voices.entries[e].followers
                if members.count > definition.layers.count { members = Array(members.prefix(definition.layers.count)) }
                for (layer, id) in members.enumerated() {
                    guard let j = parameters.voices.entry(id),
                          let s = try? parameters.set(forSound: key, layer: layer,
                                                      definition: definition) else { continue }
                    parameters.voices.entries[j].set = Int32(s)
                    parameters.voices.entries[j].dirty = true
                }
                continue
            }
            guard let s = try? parameters.set(forSound: key, layer: -1, definition: definition), s >= 0 else {
                continue
            }
            if let j = parameters.voices.entry(leader) {
                parameters.voices.entries[j].set = Int32(s)
                parameters.voices.entries[j].dirty = true
                continue
            }
            var e = VoiceCurveEntry(generation: leader.generation, gain: pool.gain(ofSlot: i),
                                    pitch: pool.pitch(ofSlot: i),
                                    priority: pool.priority(ofSlot: i))
            e.set = Int32(s)
            e.globalEpoch = 0   // evaluates at the next frame
            e.dirty = true
            parameters.voices.activate(i, e)
        }
    }
}
