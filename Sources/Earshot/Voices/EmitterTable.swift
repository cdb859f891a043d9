/// The voice pool's emitters: generation-counted handles, each emitter's properties and
/// environment, and its attenuation for the listener, cached per change.
///
/// Plain bookkeeping with no OpenAL in it: voices that follow an emitter compare its versions
/// with the ones they last sent and push what changed themselves (`VoicePool.advance`). Like the
/// pool, it is only touched under the engine's AL lock; steady-state work allocates nothing.
final class EmitterTable {
    struct State {
        var generation: UInt32 = 0
        var alive = false
        /// Bumped by any change.
        var version: UInt32 = 0
        /// Bumped by changes other than the position.
        var fullVersion: UInt32 = 0
        /// Distance × cone attenuation for the listener, valid while `gainVersion == version`
        /// and the listener and distance model have not changed (see ``attenuation(_:listenerPosition:model:epoch:)``).
        var gain: Float = 1
        /// The engine's share of the distance gain (``SpatialProperties/engineDistanceGain(listenerPosition:model:)``),
        /// cached with `gain`.
        var engineGain: Float = 1
        var gainVersion: UInt32 = 0
    }

    /// Emitters' bookkeeping and, in a table of its own (one cache line each), their properties.
    let states = SlotTable<State>(repeating: State(), count: 0)
    let spatial = SlotTable<SpatialProperties>(repeating: SpatialProperties(), count: 0)
    /// Per emitter: occlusion, obstruction, air absorption, send level.
    let environment = SlotTable<EnvironmentProperties>(repeating: .open, count: 0)
    // `@exclusivity(unchecked)` as in the pool, for the reason and the figures given there.
    @exclusivity(unchecked) private var freeIndices: [Int] = []
    /// The listener geometry (the pool's `geometryEpoch`) every live emitter's cached
    /// attenuation was last brought up to date for.
    @exclusivity(unchecked) private(set) var gainsEpoch: UInt32 = 0
    /// Several listeners' mapping (the pool's ``VoicePool/rig``): the attenuations are those of
    /// each emitter as heard through it; nil with one listener.
    @exclusivity(unchecked) var rig: (any ListenerRig)?

    var count: Int { states.count }
    var isEmpty: Bool { states.isEmpty }

    func make(_ p: SpatialProperties) -> EmitterID {
        let index: Int
        if let free = freeIndices.popLast() {
            index = free
        } else {
            index = states.count
            states.append(State())
            spatial.append(SpatialProperties())
            environment.append(.open)
        }
        environment[index] = .open
        states[index].alive = true
        spatial[index] = p
        states[index].version &+= 1
        states[index].fullVersion &+= 1
        return EmitterID(index: UInt32(index), generation: states[index].generation)
    }

    func index(of id: EmitterID) -> Int? {
        let i = Int(id.index)
        guard i < states.count, states[i].alive, states[i].generation == id.generation else { return nil }
        return i
    }

    func set(_ index: Int, _ p: SpatialProperties) {
        spatial[index] = p
        states[index].version &+= 1
        states[index].fullVersion &+= 1
    }

    /// Sets an emitter's environment; its voices pick it up like a property change.
    func setEnvironment(_ index: Int, _ e: EnvironmentProperties) {
        environment[index] = e
        states[index].version &+= 1
        states[index].fullVersion &+= 1
    }

    func setPosition(_ index: Int, _ position: Vector3) {
        spatial[index].position = position
        states[index].version &+= 1
    }

    /// Frees an emitter's index: its handles go stale, and a later ``make(_:)`` may reuse it.
    func remove(_ index: Int) {
        states[index].alive = false
        states[index].generation &+= 1
        freeIndices.append(index)
    }

    // MARK: Attenuation cache

    /// An emitter's attenuation for the current listener, computed once per change of the emitter
    /// or of the listener, however many voices follow it. `epoch` is the pool's geometry epoch
    /// (bumped when the listener moves or the distance model changes).
    @inline(__always)
    func attenuation(_ e: Int, listenerPosition: Vector3, model: DistanceModel, epoch: UInt32) -> Float {
        gainsCurrent(e, listenerPosition: listenerPosition, model: model, epoch: epoch)
            ? states[e].gain : heard(e).attenuation(listenerPosition: listenerPosition, model: model)
    }

    /// The engine's share of an emitter's distance gain for the current listener, cached like
    /// ``attenuation(_:listenerPosition:model:epoch:)``.
    @inline(__always)
    func engineGain(_ e: Int, listenerPosition: Vector3, model: DistanceModel, epoch: UInt32) -> Float {
        gainsCurrent(e, listenerPosition: listenerPosition, model: model, epoch: epoch)
            ? states[e].engineGain : heard(e).engineDistanceGain(listenerPosition: listenerPosition, model: model)
    }

    /// Brings emitter `e`'s cached gains up to date if it changed; false when the listener moved
    /// since the last pass (the next `schedule` refreshes every emitter; compute directly until then).
    @inline(__always)
    private func gainsCurrent(_ e: Int, listenerPosition: Vector3, model: DistanceModel, epoch: UInt32) -> Bool {
        guard gainsEpoch == epoch else { return false }
        if states[e].gainVersion != states[e].version { computeGain(e, listenerPosition: listenerPosition, model: model) }
        return true
    }

    @inline(__always)
    private func computeGain(_ e: Int, listenerPosition: Vector3, model: DistanceModel) {
        let g = heard(e).attenuationAndEngineGain(listenerPosition: listenerPosition, model: model)
        states[e].gain = g.attenuation
        states[e].engineGain = g.engine
        states[e].gainVersion = states[e].version
    }

    /// Emitter `e`'s properties as the OpenAL listener hears them (as they are, with one listener).
    @inline(__always)
    private func heard(_ e: Int) -> SpatialProperties {
        guard let rig else { return spatial[e] }
        return rig.heard(spatial[e])
    }

    /// Brings every live emitter's cached attenuation up to date in one tight pass (independent
    /// iterations over contiguous tables: much cheaper per emitter than one at a time from the
    /// voice loop).
    func refreshGains(listenerPosition: Vector3, model: DistanceModel, epoch: UInt32) {
        let all = gainsEpoch != epoch
        for e in 0..<states.count where states[e].alive {
            if all || states[e].gainVersion != states[e].version { computeGain(e, listenerPosition: listenerPosition, model: model) }
        }
        gainsEpoch = epoch
    }
}
