import Logging

extension AudioEngine {
    /// Changes what a sound is while it plays — the live tuning of a designer's bank: the sound
    /// keeps its handle's identity (its slot), its voices keep playing, and from the next
    /// rendered frame:
    ///
    /// - its playing voices take the new ``SoundDefinition/gain`` and ``SoundDefinition/pitch``:
    ///   each voice's gain (and pitch) is multiplied by new ÷ old, so a play's own factor and its
    ///   random variation are kept; nothing restarts, the playhead runs on;
    /// - its next plays take every new value: clips and selection, variation, the instance
    ///   ``SoundDefinition/limit`` (counting the voices playing now), the
    ///   ``SoundDefinition/cooldown`` (from the last start), the bus, the priority, looping and
    ///   the distance settings. Voices playing keep their bus, priority and loop.
    ///
    /// The selection carries on (a `shuffle` keeps its order, `avoidRepeat` its history) while
    /// the clips, the selection rule, the weights and `avoidRepeat` stay the same; otherwise it
    /// starts afresh.
    ///
    /// Returns the handle to play from now on (equal to `sound`, carrying `definition`; plays of
    /// the old handle value take the old handle's gain, pitch, bus and priority). Throws as
    /// ``makeSound(_:)`` does for `definition`, ``EarshotError/soundRemoved`` for a removed sound
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
            guard let slot = core.sounds.slot(sound), let old = core.sounds.entries[slot].definition else { throw .soundRemoved }
            for clip in definition.clips where clip.engineID != core.engineID { throw .wrongEngine }
            for clip in definition.clips where !core.isLoaded(clip) { throw .clipUnloaded }
            guard core.busIndex(definition.bus) != nil else {
                throw .invalidArgument("no bus named \"\(definition.bus.name)\" (add it with addBus first)")
            }
            let playing = core.voices(ofSound: core.sounds.key(slot))
            core.sounds.redefine(slot, as: definition, playing: playing, pool: core.pool)
            core.rescale(playing, gain: Self.ratio(definition.gain, old.gain), pitch: Self.ratio(definition.pitch, old.pitch))
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
    func voices(ofSound key: UInt32) -> [VoiceID] {
        var found: [(start: Double, id: VoiceID)] = []
        for index in pool.live where pool.slots[index].soundKey == key {
            found.append((pool.slots[index].startAt, VoiceID(index: UInt32(index), generation: pool.slots[index].generation)))
        }
        return found.sorted { ($0.start, $0.id.index) < ($1.start, $1.id.index) }.map(\.id)
    }

    /// Multiplies the gain and pitch of `voices` (nil: unchanged); they reach OpenAL with the
    /// next push, as a voice's own setter's do.
    func rescale(_ voices: [VoiceID], gain: Float?, pitch: Float?) {
        guard gain != nil || pitch != nil else { return }
        let t = now
        for id in voices {
            pool.modify(id) { v in
                if let gain {
                    v.gain = Self.varied(v.gain, by: gain)
                    v.dirtyGain = true
                }
                if let pitch {
                    v.rebaseRealPlayhead(now: t)
                    v.pitch = Self.varied(v.pitch, by: pitch)
                    v.dirtyPitch = true
                }
            }
        }
    }
}
