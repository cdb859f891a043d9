/// Starting voices under curves: the curves' values are in the voice's gain, pitch and priority
/// from its first frame (a layer at −40 dB never starts at full level for a frame).
extension ParameterStage {
    /// Starts the voice of `resolved` under curve set `set` (-1: its bus's only), as layer of
    /// `leader` when given; registers it when some curve applies to it.
    func play(_ resolved: ResolvedPlay, set: Int, leader: VoiceID? = nil, layer: Int = -1, soundKey: UInt32 = 0,
              in core: EngineCore) -> VoiceID {
        let pool = core.pool
        let bus = busSetIndex(resolved.busIndex)
        guard set >= 0 || bus >= 0 || leader != nil else { return pool.start(resolved, now: core.now) }
        // The voice's values before it exists: the leader's own and its emitter's values
        // count; the global ones otherwise.
        let leaderSlot = leader.flatMap { voices.entry($0) }
        func value(_ p: Int) -> Double {
            if let l = leaderSlot { for v in voices.entries[l].locals where v.parameter == p { return v.value.current } }
            if resolved.emitterIndex >= 0,
               let v = emitterValue(resolved.emitterIndex, generation: pool.emitterGeneration(resolved.emitterIndex),
                                    p) {
                return v
            }
            return global[p].current
        }
        var f = CurveFactors()
        if set >= 0 { f = sets[set].evaluate(value) }
        if bus >= 0 { f = f + sets[bus].evaluate(value) }
        var r = resolved
        r.gain = Self.finite(resolved.gain * f.gain, max: .greatestFiniteMagnitude)
        r.pitch = Self.finitePitch(resolved.pitch * Float(f.pitch))
        r.priority = UInt8(max(0, min(255, (Double(resolved.priority) + f.priority).rounded())))
        let id = pool.start(r, now: core.now)
        guard id != .refused, let i = pool.slot(id) else { return id }
        var e = VoiceCurveEntry(generation: id.generation, gain: resolved.gain, pitch: resolved.pitch,
                                priority: resolved.priority, written: (r.gain, r.pitch, r.priority))
        e.set = Int32(set)
        e.layer = Int16(layer)
        e.soundKey = soundKey
        e.lowPass = Float(max(0, min(1, f.lowPass)))
        e.send = Float(max(0, min(1, f.send)))
        e.hasFilters = (set >= 0 && sets[set].hasFilters) || (bus >= 0 && sets[bus].hasFilters)
        e.globalEpoch = globalEpoch
        e.dirty = false
        if let leader, let l = leaderSlot {
            e.leader = Int32(l)
            e.leaderGeneration = leader.generation
            voices.entries[l].followers.append(id)
        }
        voices.activate(i, e)
        if e.hasFilters, pool.voiceStates[i].phase == .real { applyFilters(i, pool: pool) }
        return id
    }

    /// Sends slot `i`'s low-pass and send factors to its sources (a real voice; a channel
    /// pair's two).
    func applyFilters(_ i: Int, pool: some VoiceKernel) {
        guard let router = pool.router else { return }
        let f = SendRouter.CurveFilter(gainHF: voices.entries[i].lowPass, send: voices.entries[i].send)
        pool.forEachSource(ofSlot: i) { router.setCurveFilter(f, source: $0) }
    }
}

/// The low-pass and send curves, after the voices (a ``CoreStage``): each voice under such a
/// curve that holds a source has its factors on that source (both of a channel pair's) — once
/// when it starts on it or when they change. Costs one comparison while no curve drives a filter.
final class ParameterFilterStage: CoreStage {
    unowned let parameters: ParameterStage
    var phase: CoreStage.Phase { .afterVoices }

    init(parameters: ParameterStage) {
        self.parameters = parameters
    }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        let voices = parameters.voices
        guard voices.filtered > 0 else { return }
        let pool = core.pool
        guard let router = pool.router else { return }
        for i in voices.managed where voices.entries[i].hasFilters {
            guard pool.voiceStates[i].phase == .real,
                  pool.voiceStates[i].generation == voices.entries[i].generation else { continue }
            let wanted = SendRouter.CurveFilter(gainHF: voices.entries[i].lowPass, send: voices.entries[i].send)
            pool.forEachSource(ofSlot: i) { if router.curveFilter($0) != wanted { router.setCurveFilter(wanted, source: $0) } }
        }
    }
}

extension ParameterStage {
    /// Calls `body` with each other layer of a layered voice (nothing for any other voice): what
    /// the game does to the voice it holds — stop, pause — reaches every layer in the same AL
    /// section, so they stay aligned.
    @inline(__always)
    func forEachLayer(of id: VoiceID, _ body: (VoiceID) -> Void) {
        guard let i = voices.entry(id), !voices.entries[i].followers.isEmpty else { return }
        for f in voices.entries[i].followers { body(f) }
    }
}

extension ParameterStage {
    /// Takes a playing voice into the table (a voice without curves given a value of its own, or
    /// a voice on a bus that just got curves): its values now are its own.
    func adopt(_ slot: Int, id: VoiceID, pool: some VoiceKernel) -> Int {
        let v = pool.voiceStates
        var e = VoiceCurveEntry(generation: id.generation, gain: v[slot].gain, pitch: v[slot].pitch,
                                priority: v[slot].priority)
        e.hasFilters = { let b = busSetIndex(pool.voiceStates[slot].busIndex); return b >= 0 && sets[b].hasFilters }()
        e.dirty = true
        voices.activate(slot, e)
        return slot
    }

    /// Takes every voice playing on bus `bus` into the table (its curves changed).
    func adoptBusVoices(_ bus: Int, pool: some VoiceKernel) {
        let b = busSetIndex(bus)
        for i in pool.live where pool.voiceStates[i].busIndex == bus {
            let id = VoiceID(index: UInt32(i), generation: pool.voiceStates[i].generation)
            if let k = voices.entry(id) {
                let s = Int(voices.entries[k].set)
                let has = (s >= 0 && sets[s].hasFilters) || (b >= 0 && sets[b].hasFilters)
                voices.setHasFilters(k, has)
                voices.entries[k].dirty = true
            } else if b >= 0 {
                _ = adopt(i, id: id, pool: pool)
            }
        }
    }
}
