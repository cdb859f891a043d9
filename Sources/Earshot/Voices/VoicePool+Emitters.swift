// The voice pool's emitters: the pool's side of EmitterTable (EmitterTable.swift), its cached
// attenuations for the current listener, and removal, which stops or detaches their voices.
extension VoicePool {
    /// An emitter's attenuation for the current listener, computed once per change of the emitter
    /// or of the listener, however many voices follow it.
    @inline(__always)
    func emitterAttenuation(_ e: Int) -> Float {
        emitterTable.attenuation(e, listenerPosition: listenerPosition, model: distanceModel, epoch: geometryEpoch)
    }

    /// The attenuation of a voice that follows emitter `e` with distance settings of its own
    /// (`voice`, see ``SpatialProperties/distance(forVoice:)``), out of line: the merge is large.
    @inline(never)
    func attenuation(emitter e: Int, voice: SpatialProperties) -> Float {
        heard(emitterSpatial[e].distance(forVoice: voice)).attenuation(listenerPosition: listenerPosition, model: distanceModel)
    }

    /// Brings every live emitter's cached attenuation up to date in one tight pass (see
    /// ``EmitterTable/refreshGains(listenerPosition:model:epoch:)``).
    func refreshEmitterGains() {
        emitterTable.refreshGains(listenerPosition: listenerPosition, model: distanceModel, epoch: geometryEpoch)
    }

    /// The engine's share of an emitter's distance gain (see ``VoiceState/distanceGain``), for
    /// the voices that follow it without settings of their own: cached with its attenuation.
    @inline(__always)
    func emitterEngineGain(_ e: Int) -> Float {
        emitterTable.engineGain(e, listenerPosition: listenerPosition, model: distanceModel, epoch: geometryEpoch)
    }

    /// The engine's share of the distance gain of a voice not yet in a slot (a new play); notes
    /// the voice's own distance settings (``noteDistanceSettings(_:)``).
    func initialDistanceGain(_ v: borrowing VoiceState) -> Float {
        switch v.placement {
        case .pan: return 1
        case .spatial:
            noteDistanceSettings(v.spatial)
            if v.image & VoiceState.ImageFlags.spread != 0 { return spreadGain(heard(v.spatial)) }
            return heard(v.spatial).engineDistanceGain(listenerPosition: listenerPosition, model: distanceModel)
        case .emitter:
            if v.ownDistance { noteDistanceSettings(v.spatial) }
            let e = emitterSpatial[v.emitterIndex]
            let s = heard(v.ownDistance ? e.distance(forVoice: v.spatial) : e)
            if v.image & VoiceState.ImageFlags.spread != 0 { return spreadGain(s) }
            return s.engineDistanceGain(listenerPosition: listenerPosition, model: distanceModel)
        }
    }

    func makeEmitter(_ p: SpatialProperties) -> EmitterID {
        noteDistanceSettings(p)
        return emitterTable.make(p)
    }

    /// Every set of spatial properties a voice or an emitter takes passes here: the first with
    /// distance settings the engine computes a gain for turns ``engineDistanceInUse`` on.
    @inline(__always)
    func noteDistanceSettings(_ p: SpatialProperties) {
        if !p.hasPlainDistance { engineDistanceInUse = true }
    }

    func emitterIndex(_ id: EmitterID) -> Int? {
        emitterTable.index(of: id)
    }

    func setEmitter(_ index: Int, _ p: SpatialProperties) {
        noteDistanceSettings(p)
        emitterTable.set(index, p)
    }

    /// Sets an emitter's environment; its voices pick it up like a property change.
    func setEmitterEnvironment(_ index: Int, _ e: EnvironmentProperties) {
        emitterTable.setEnvironment(index, e)
    }

    /// Sets a voice's own environment (used when it does not follow an emitter).
    func setVoiceEnvironment(_ index: Int, _ e: EnvironmentProperties) {
        voiceEnvironment[index] = e
        if slots[index].placement == .spatial { slots[index].dirtySpatial = true }
        serviceNeeded = true
    }

    func emitterGeneration(_ index: Int) -> UInt32 { emitters[index].generation }

    /// An emitter's properties.
    func emitterProperties(_ index: Int) -> SpatialProperties {
        emitterSpatial[index]
    }

    /// An emitter's occlusion, obstruction, air absorption and send level.
    func environment(ofEmitter index: Int) -> EnvironmentProperties {
        emitterEnvironment[index]
    }

    /// Moves an emitter and sets its velocity (for the Doppler effect); an unchanged velocity
    /// costs what a plain move costs.
    func setEmitterPosition(_ index: Int, _ position: Vector3, velocity: Vector3) {
        var p = emitterSpatial[index]
        guard p.velocity != velocity else {
            setEmitterPosition(index, position)
            return
        }
        p.position = position
        p.velocity = velocity
        setEmitter(index, p)
    }

    func setEmitterPosition(_ index: Int, _ position: Vector3) {
        emitterTable.setPosition(index, position)
    }

    func removeEmitter(_ index: Int) {
        stopAll { $0.emitterIndex == index && $0.placement == .emitter }
        // Voices still fading out keep the emitter's last properties as their own.
        for i in live where slots[i].emitterIndex == index {
            slots[i].spatial = voiceSpatial(i)
            slots[i].ownDistance = false
            slots[i].placement = .spatial
            slots[i].emitterIndex = -1
        }
        emitterTable.remove(index)
    }
}
