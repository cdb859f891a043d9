import Logging

/// Plays of sounds under curves and of layered sounds, inside the AL section of the play.
extension EngineCore {
    /// A voice of sound `key` (`definition`, not layered) started from `resolved`: through the
    /// parameters when the sound has curves.
    @inline(__always)
    func playSoundVoice(_ resolved: ResolvedPlay, key: SoundTable.Key, definition: SoundDefinition,
                        markers: [Marker]) throws(EarshotError) -> VoiceID {
        guard definition.parameterPart != nil else { return play(resolved, markers: markers) }
        let id = try playCurvedSoundVoice(resolved, key: key, definition: definition)
        pool.mark(id, markers: markers, from: resolved.startFrame)
        return id
    }

    @inline(never)   // out of the plain sound's play path
    private func playCurvedSoundVoice(_ resolved: ResolvedPlay, key: SoundTable.Key,
                                      definition: SoundDefinition) throws(EarshotError) -> VoiceID {
        let set = try parameters.set(forSound: key, layer: -1, definition: definition)
        return parameters.play(resolved, set: set, soundKey: key, in: self)
    }

    /// One play of the layered sound in `slot`: cooldown and limit once for the whole voice, then
    /// every layer started in this AL section with the same start — on a loopback engine the
    /// same render frame; on a live device the same mixing-clock frame, through the exact-start
    /// machinery (a play without a delay or start time is given a lead of two frames, at least
    /// 30 ms, so that every layer can be scheduled on one frame). Returns the first layer's
    /// voice (the handle the game holds), nil when refused.
    @inline(never)   // out of the plain sound's play path
    func playLayers(sound slot: Int, options: PlayOptions, logger: Logger) throws(EarshotError) -> VoiceID? {
        guard let definition = sounds.entries[slot].definition else { throw .soundRemoved }
        guard let (key, target, t, decision) = try admit(sound: slot, options: options) else { return nil }
        let options = alignedStart(options)
        var sets: [Int] = []
        sets.reserveCapacity(definition.layers.count)
        for k in definition.layers.indices { sets.append(try parameters.set(forSound: key, layer: k, definition: definition)) }
        // Resolve every layer before starting any: a layer that fails starts none.
        var plays: [ResolvedPlay] = []
        plays.reserveCapacity(definition.layers.count)
        for (k, layer) in definition.layers.enumerated() {
            var r = try PlayResolver.resolve(layer.clip, options: options, target: target, in: self, logger: logger,
                                             sound: k == 0 ? key : 0, held: decision == .hold)
            r.gain = Self.varied(r.gain, by: layer.gain)
            if layer.gain == 0 { r.gain = 0 }
            r.pitch = Self.varied(r.pitch, by: layer.pitch)
            if let first = plays.first {
                // One start for all: the first layer's delay and mixing-clock target.
                r.delay = first.delay
                r.mixTarget = first.mixTarget
            }
            plays.append(r)
        }
        let leader = parameters.play(plays[0], set: sets[0], layer: 0, soundKey: key, in: self)
        guard leader != .refused else { return nil }
        // The first layer's markers: reported for the voice the game holds.
        pool.mark(leader, markers: definition.layers[0].clip.markers, from: plays[0].startFrame)
        // The leader is registered even without curves: its layers follow it.
        registerLayer(leader, plays[0], layer: 0, soundKey: key)
        // Each layer's level over the first's, from the definition (a layered sound draws no
        // variation): what it keeps when the first layer is raised from gain 0.
        let levels = definition.layers.map { $0.gain == 0 ? 0 : Self.varied($0.clip.gain, by: $0.gain) }
        for k in plays.indices.dropFirst() {
            let id = parameters.play(plays[k], set: sets[k], leader: leader, layer: k, soundKey: key, in: self)
            if let j = parameters.voices.entry(id) {
                parameters.voices.entries[j].leaderShare = levels[0] > 0 ? levels[k] / levels[0] : levels[k]
            }
        }
        sounds.started(slot, voice: leader, now: t, decision: decision, pool: pool)
        return leader
    }

    /// `options` with the lead a play of several voices needs on a live device so that each can
    /// be scheduled on its mixing-clock frame (two frames, at least 30 ms) when it has no delay
    /// or start time of its own; unchanged on loopback.
    func alignedStart(_ options: PlayOptions) -> PlayOptions {
        var options = options
        if !isLoopback, usesDeviceClock, !isDeviceLost, options.delay == 0, options.startTime == nil {
            options.delay = min(max(2 * lastFrameTime, 0.03), 0.25)
        }
        return options
    }

    /// Files voice `id` (started from `r`) in the curve table as layer `layer` of sound `soundKey`
    /// when no curve put it there: a layered sound's leader (its layers follow it), a timeline's
    /// part (the monitor shows which sound and layer it plays).
    func registerLayer(_ id: VoiceID, _ r: ResolvedPlay, layer: Int, soundKey: UInt32) {
        guard parameters.voices.entry(id) == nil, let i = pool.slot(id) else { return }
        var e = VoiceCurveEntry(generation: id.generation, gain: r.gain, pitch: r.pitch, priority: r.priority)
        e.layer = Int16(layer)
        e.soundKey = soundKey
        e.globalEpoch = parameters.globalEpoch
        e.dirty = false
        parameters.voices.activate(i, e)
    }
}
