/// Changing a sound's curves while its voices play: what a designer's live edit (a bank reloaded)
/// needs — the voices take the new curves within one frame, without restarting.
extension AudioEngine {
    /// Replaces the curves of `sound` — its own, and each layer's when `layers` is given (one
    /// list per layer, in order) — for the voices playing now and the plays to come. From the next
    /// ``update(deltaTime:)`` the playing voices follow the new curves; nothing restarts (their
    /// playheads run on). The sound's ``Sound/definition`` in handles made before keeps the old
    /// curves (a handle is a value); ``AudioEngine`` plays by the new ones.
    ///
    /// Throws ``EarshotError/soundRemoved`` for a removed sound, ``EarshotError/wrongEngine`` for
    /// another engine's, ``EarshotError/unknownParameter(name:nearest:)`` and
    /// ``EarshotError/invalidArgument(_:)`` for bad curves or a `layers` count that is not the
    /// sound's, ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// try engine.defineParameter(ParameterDefinition(name: "rpm", range: 0...8000))
    /// let hum = try engine.makeSound(SoundDefinition(clips: [try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")], loop: true))
    /// let voice = try engine.play(hum)
    /// try engine.setCurves([ParameterCurve(parameter: "rpm", property: .gain, points: [.init(0, -12)])], for: hum)
    /// engine.update()   // the voice is 12 dB down, still playing
    /// ```
    public func setCurves(_ curves: [ParameterCurve], layers: [[ParameterCurve]]? = nil,
                          for sound: Sound) throws(EarshotError) {
        guard sound.engineID == link.id else { throw .wrongEngine }
        var d = sound.definition
        d.curves = curves
        if let layers {
            guard layers.count == d.layers.count else {
                throw .invalidArgument("\(layers.count) lists of layer curves for a sound of \(d.layers.count) layers")
            }
            for k in layers.indices { d.layers[k].curves = layers[k] }
        }
        try d.validateParameters()
        try withAL { () throws(EarshotError) in
            guard !core.isShutDown else { throw .engineShutDown }
            guard let slot = core.sounds.slot(sound) else { throw .soundRemoved }
            try core.parameters.check(d)
            guard var current = core.sounds.entries[slot].definition else { throw .soundRemoved }
            current.curves = d.curves
            if layers != nil { current.layers = d.layers }
            core.sounds.replaceDefinition(slot, current)
            try core.parameters.recompile(soundKey: core.sounds.key(slot), definition: current, pool: core.pool)
        }
    }
}

extension ParameterStage {
    /// Compiles a sound's curves again (after ``AudioEngine/setCurves(_:layers:for:)``) and points
    /// every playing voice of it at the new sets, from the next frame.
    func recompile(soundKey key: UInt32, definition: SoundDefinition, pool: some VoiceKernel) throws(EarshotError) {
        forgetSound(key)
        var byLayer: [Int: Int] = [:]
        for layer in (definition.isLayered ? Array(definition.layers.indices) : [-1]) {
            byLayer[layer] = try set(forSound: key, layer: layer, definition: definition)
        }
        // Voices registered for the sound take their layer's new set.
        for i in voices.managed where voices.entries[i].soundKey == key {
            let s = byLayer[Int(voices.entries[i].layer)] ?? -1
            voices.entries[i].set = Int32(s)
            let b = busSetIndex(pool.voiceStates[i].busIndex)
            voices.setHasFilters(i, (s >= 0 && sets[s].hasFilters) || (b >= 0 && sets[b].hasFilters))
            voices.entries[i].dirty = true
        }
        // A plain sound's voices that had no curves when they started: adopted now.
        if !definition.isLayered, let s = byLayer[-1], s >= 0 {
            for i in pool.live where pool.voiceStates[i].soundKey == key {
                let id = VoiceID(index: UInt32(i), generation: pool.voiceStates[i].generation)
                guard voices.entry(id) == nil else { continue }
                let j = adopt(i, id: id, pool: pool)
                voices.entries[j].set = Int32(s)
                voices.entries[j].soundKey = key
                voices.setHasFilters(j, voices.entries[j].hasFilters || sets[s].hasFilters)
            }
        }
    }
}
