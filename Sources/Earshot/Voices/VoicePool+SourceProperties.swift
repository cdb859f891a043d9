import COpenAL

// The voice pool, what a source is sent: gain, placement (pan, own position or emitter), pitch
// and environment, each only when it differs from what the source already has.
extension VoicePool {
    @inline(__always)
    func effectiveGain(_ index: Int) -> Float {
        slots[index].gain * busGains[slots[index].busIndex] * slots[index].fade * slots[index].ownFade * slots[index].distanceGain
    }

    /// The spatial properties a positioned voice is heard with: its own, its emitter's, or (an
    /// emitter voice with settings of its own) its emitter's with its distance settings under
    /// the emitter's explicit ones.
    @inline(__always)
    func voiceSpatial(_ index: Int) -> SpatialProperties {
        switch slots[index].placement {
        case .pan, .spatial: return slots[index].spatial
        case .emitter:
            let e = emitterSpatial[slots[index].emitterIndex]
            return slots[index].ownDistance ? e.distance(forVoice: slots[index].spatial) : e
        }
    }

    /// The engine's share of a positioned voice's distance gain now (``VoiceState/distanceGain``).
    @inline(__always)
    func engineDistanceGain(_ index: Int) -> Float {
        switch slots[index].placement {
        case .pan: return 1
        case .spatial:
            return slots[index].spatial.engineDistanceGain(listenerPosition: listenerPosition, model: distanceModel)
        case .emitter:
            if !slots[index].ownDistance { return emitterEngineGain(slots[index].emitterIndex) }
            return voiceSpatial(index).engineDistanceGain(listenerPosition: listenerPosition, model: distanceModel)
        }
    }

    /// Brings a positioned voice's ``VoiceState/distanceGain`` up to date; a real voice whose
    /// gain changed is marked for the next service. Out of line, and only called while
    /// ``engineDistanceInUse``: run for every positioned voice, it cost ~60 instructions per
    /// voice and update (with the copies it made) although no voice needed it.
    @inline(never)
    func updateDistanceGain(_ index: Int) {
        let g = engineDistanceGain(index)
        guard g != slots[index].distanceGain else { return }
        slots[index].distanceGain = g
        if slots[index].phase == .real {
            slots[index].dirtyGain = true
            serviceNeeded = true
        }
    }

    /// Sends a voice's placement to its source: only what differs from what the source has.
    func pushSpatial(_ index: Int, to source: ALuint) {
        var s: SpatialProperties
        switch slots[index].placement {
        case .pan:
            // Head-relative on the unit circle, no distance attenuation: a constant-power pan.
            s = SpatialProperties(position: PlayOptions.panPosition(slots[index].pan), referenceDistance: 1, rolloff: 0, isRelative: true)
        case .spatial, .emitter:
            s = voiceSpatial(index)
            // A curve or another model than the engine's: the engine applies the distance gain
            // (`distanceGain`), OpenAL only the cone.
            if s.distanceComputedByEngine(model: distanceModel) { s.rolloff = 0 }
        }
        let i = Int(source)
        s.apply(to: source, since: pushed[i].spatial)
        pushed[i].spatial = s
        router?.apply(source: source, positioned: slots[index].placement != .pan, bus: slots[index].busIndex,
                      environment: environment(ofSlot: index), starting: slots[index].phase != .real)
    }

    /// The occlusion, obstruction, air absorption and send level of a voice (its emitter's when
    /// it follows one).
    @inline(__always)
    func environment(ofSlot index: Int) -> EnvironmentProperties {
        slots[index].placement == .emitter ? emitterEnvironment[slots[index].emitterIndex] : voiceEnvironment[index]
    }

    /// Where a positioned voice is (its own position, or its emitter's); nil for a panned voice.
    @inline(__always)
    func position(ofSlot index: Int) -> Vector3? {
        switch slots[index].placement {
        case .pan: return nil
        case .spatial: return slots[index].spatial.position
        case .emitter: return emitterSpatial[slots[index].emitterIndex].position
        }
    }

    /// Moves a voice's position only (the per-frame hot path for emitters and voices).
    @inline(__always)
    func pushPosition(_ index: Int, to source: ALuint) {
        guard let p = position(ofSlot: index) else { return }
        alSource3f(source, AL_POSITION, p.x, p.y, p.z)
        // Keep the per-source cache true to what OpenAL has: a later `pushSpatial` compares with
        // it, and a stale cached position made a move back to it (A → B → A) look redundant.
        pushed[Int(source)].spatial?.position = p
    }

    func pushPitch(_ pitch: Float, to source: ALuint) {
        guard pushed[Int(source)].pitch != pitch else { return }
        alSourcef(source, AL_PITCH, pitch)
        pushed[Int(source)].pitch = pitch
    }

    /// The sources of the voices playing on a source now: whether each is positioned, its bus
    /// index and its environment.
    func realSources() -> [(source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties)] {
        real.map { (slots[$0].source, slots[$0].placement != .pan, slots[$0].busIndex, environment(ofSlot: $0)) }
    }
}
