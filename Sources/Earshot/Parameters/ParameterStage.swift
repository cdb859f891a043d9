/// The engine's game parameters (a ``CoreStage`` before the voices): the definitions, the global
/// values and their seeks, the compiled curves of sounds, layers and buses, and a side table of
/// the voices those curves shape (``VoiceCurveEntry``, indexed like the voice pool's slots).
///
/// Each frame it moves every seeking value by the frame's playback time, then gives each voice
/// under curves its gain, pitch and priority as its own values times (or plus) what its curves
/// say; the low-pass and send curves are applied after the voices (``ParameterFilterStage``),
/// when each voice's source for the frame is known. A voice whose curves read only global values
/// takes its sound's cached result: one evaluation per sound (and per bus) per frame in which a
/// value moved, not one per voice. The voice pool's own per-voice state is not grown: the
/// voice's own gain, pitch and priority are kept here, and a game's change of them through
/// ``Voice`` is noticed by comparing the pool's value with the one written last.
///
/// Touched only under the AL lock, like the pool. Steady frames allocate nothing.
final class ParameterStage: CoreStage {
    var phase: CoreStage.Phase { .beforeVoices }

    // MARK: Definitions and global values

    private(set) var definitions: [ParameterDefinition] = []
    private var indexByName: [String: Int] = [:]
    private(set) var global: [ParameterValue] = []
    /// Global values still moving toward their target.
    private var globalMoving = 0
    /// Bumped whenever a global value changes: cached curve results of an older epoch are stale.
    private(set) var globalEpoch: UInt64 = 1
    /// Bumped whenever an emitter's value changes: voices on emitters evaluate again.
    private var emitterEpoch: UInt64 = 1

    // MARK: Curves

    /// Compiled curve sets: sounds' (per layer) and buses'.
    var sets: [CurveSet] = []
    /// Set index by sound key and layer (`key << 8 | layer + 1`; layer 0 for a plain sound).
    private var setBySound: [UInt64: Int] = [:]
    /// Sets of removed sounds (and replaced ones, ``recompile(soundKey:definition:pool:)``):
    /// taken again for a new set once no voice follows them (voices a removed sound started play
    /// on under its curves), so a game that makes and removes sounds does not grow the table.
    private var retiredSets: [Int] = []
    /// Set index by bus index (-1: no curves).
    private(set) var busSet: [Int] = []
    /// Some bus has curves: every play registers its voice.
    private(set) var hasBusCurves = false

    // MARK: Voices

    let voices: VoiceCurveTable
    /// Emitters' own values, by emitter index (with the emitter's generation).
    var emitterLocals: [Int: (generation: UInt32, values: [LocalParameter])] = [:]

    init(capacity: Int) {
        voices = VoiceCurveTable(capacity: capacity)
    }

    /// Whether plays must go through ``play(_:set:leader:in:)`` (some bus has curves).
    var isActive: Bool { hasBusCurves }

    // MARK: Definitions

    func index(of name: String) throws(EarshotError) -> Int {
        if let i = indexByName[name] { return i }
        throw .unknownParameter(name: name, nearest: ParameterStage.nearest(name, in: definitions.map(\.name)))
    }

    /// Defines a parameter or redefines one (its value is kept, clamped to the new range; a new
    /// one starts at its default).
    func define(_ d: ParameterDefinition) throws(EarshotError) {
        if let i = indexByName[d.name] {
            definitions[i] = d
            let c = d.clamped(global[i].current) ?? d.defaultValue
            let wasMoving = global[i].isMoving
            global[i].current = c
            global[i].target = d.clamped(global[i].target) ?? c
            if wasMoving != global[i].isMoving { globalMoving += global[i].isMoving ? 1 : -1 }
            globalEpoch &+= 1
            return
        }
        guard definitions.count < ParameterDefinition.maxParametersPerEngine else {
            throw .invalidArgument("an engine defines at most \(ParameterDefinition.maxParametersPerEngine) parameters")
        }
        indexByName[d.name] = definitions.count
        definitions.append(d)
        global.append(ParameterValue(d.defaultValue))
    }

    /// Sets a global value (clamped to the range); `ramp` overrides the seek.
    func setGlobal(_ p: Int, _ value: Double, ramp: Double?) throws(EarshotError) {
        let d = definitions[p]
        guard let v = d.clamped(value) else {
            throw .invalidArgument("parameter \"\(d.name)\": value \(value) is not finite")
        }
        let wasMoving = global[p].isMoving
        let before = global[p].current
        global[p].set(v, seek: d.seek, ramp: ramp)
        if wasMoving != global[p].isMoving { globalMoving += global[p].isMoving ? 1 : -1 }
        if global[p].current != before { globalEpoch &+= 1 }
    }

    /// The closest name within two edits, or a third of its length (for the error's suggestion).
    static func nearest(_ name: String, in names: [String]) -> String? {
        let a = Array(name.lowercased().prefix(128))
        var best: (String, Int)?
        for n in names {
            let b = Array(n.lowercased().prefix(128))
            var row = Array(0...b.count)
            for i in 1...max(a.count, 1) where !a.isEmpty {
                var prev = row[0]
                row[0] = i
                for j in stride(from: 1, through: b.count, by: 1) {
                    let cur = row[j]
                    row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                    prev = cur
                }
            }
            let d = a.isEmpty ? b.count : row[b.count]
            if d <= max(2, max(a.count, b.count) / 3), d < max(a.count, b.count),
               d < (best?.1 ?? .max) { best = (n, d) }
        }
        return best?.0
    }

    // MARK: Compiling curves

    func compile(_ curves: [ParameterCurve]) throws(EarshotError) -> CurveSet {
        var out: [CurveSet.Curve] = []
        out.reserveCapacity(curves.count)
        for c in curves {
            out.append(.init(parameter: try index(of: c.parameter), property: c.property, points: c.points,
                             shape: c.shape))
        }
        return CurveSet(curves: out)
    }

    /// Checks that every curve of `definition` names a defined parameter.
    func check(_ definition: SoundDefinition) throws(EarshotError) {
        for name in definition.parameterNames.sorted() { _ = try index(of: name) }
    }

    /// The set of sound `key`'s layer `layer` (-1: a plain sound), made on first use; -1 when
    /// it has no curves.
    func set(forSound key: UInt32, layer: Int, definition: SoundDefinition) throws(EarshotError) -> Int {
        let k = UInt64(key) << 8 | UInt64(layer + 1)
        if let s = setBySound[k] { return s }
        var curves = definition.curves
        if layer >= 0 { curves += definition.layers[layer].curves }
        let s: Int
        if curves.isEmpty {
            s = -1
        } else {
            let compiled = try compile(curves)
            if let free = takeRetiredSet() {
                sets[free] = compiled
                s = free
            } else {
                sets.append(compiled)
                s = sets.count - 1
            }
        }
        setBySound[k] = s
        return s
    }

    /// A retired set no voice follows any more (nil: none). A new sound's first play only.
    private func takeRetiredSet() -> Int? {
        for (k, s) in retiredSets.enumerated() where !voices.managed.contains(where: { voices.entries[$0].set == Int32(s) }) {
            retiredSets.swapAt(k, retiredSets.count - 1)
            retiredSets.removeLast()
            return s
        }
        return nil
    }

    /// Gives the compiled sets of sound `key` (its own and each layer's) the curves of
    /// `definition` in place (``AudioEngine/redefine(_:as:)``): the voices under them evaluate
    /// the new curves at the next frame; a set whose curves are all gone stays, empty (no
    /// effect). Sets not made yet are made on first use. Throws, changing nothing,
    /// for a curve naming an undefined parameter.
    func redefineSound(_ key: UInt32, _ definition: SoundDefinition) throws(EarshotError) {
        var compiled: [(set: Int, curves: CurveSet)] = []
        for (k, s) in setBySound where k >> 8 == UInt64(key) && s >= 0 {
            let layer = Int(k & 0xFF) - 1
            var curves = definition.curves
            if layer >= 0, layer < definition.layers.count { curves += definition.layers[layer].curves }
            compiled.append((s, try compile(curves)))
        }
        for (s, c) in compiled { sets[s] = c }
        // Those known to have no curves are asked again at the next play.
        setBySound = setBySound.filter { $0.key >> 8 != UInt64(key) || $0.value >= 0 }
        globalEpoch &+= 1   // every voice evaluates again
    }

    /// Forgets a removed sound's compiled sets: retired, they are taken again for another
    /// sound's once the voices still following them have ended.
    func forgetSound(_ key: UInt32) {
        for (k, s) in setBySound where k >> 8 == UInt64(key) && s >= 0 { retiredSets.append(s) }
        setBySound = setBySound.filter { $0.key >> 8 != UInt64(key) }
    }

    /// Gives bus `bus` these curves (empty: none).
    func setBusCurves(_ curves: [ParameterCurve], bus: Int) throws(EarshotError) {
        let compiled = curves.isEmpty ? nil : try compile(curves)
        if bus >= busSet.count { busSet += [Int](repeating: -1, count: bus + 1 - busSet.count) }
        if let compiled {
            if busSet[bus] >= 0 { sets[busSet[bus]] = compiled } else { sets.append(compiled); busSet[bus] = sets.count - 1 }
        } else {
            busSet[bus] = -1
        }
        hasBusCurves = busSet.contains { $0 >= 0 }
        globalEpoch &+= 1   // every voice on the bus evaluates again
    }

    /// The curves a bus has now (as compiled).
    func busSetIndex(_ bus: Int) -> Int { bus < busSet.count ? busSet[bus] : -1 }

    // MARK: Values a voice reads

    /// The value of parameter `p` for the voice in slot `i`: its own (its leader's, for a layer),
    /// else its emitter's, else the global one.
    @inline(__always)
    func value(_ p: Int, slot i: Int, pool: some VoiceKernel) -> Double {
        let owner = voices.entries[i].leader >= 0 ? Int(voices.entries[i].leader) : i
        for l in voices.entries[owner].locals where l.parameter == p { return l.value.current }
        let e = pool.voiceStates[i].emitterIndex
        if e >= 0, let el = emitterLocals[e], pool.emitterGeneration(e) == el.generation {
            for l in el.values where l.parameter == p { return l.value.current }
        }
        return global[p].current
    }

    /// The factors of the voice in slot `i` under set `s` and its bus's set.
    func factors(slot i: Int, set s: Int, pool: some VoiceKernel) -> CurveFactors {
        let bus = busSetIndex(pool.voiceStates[i].busIndex)
        let own = needsOwnEvaluation(slot: i, pool: pool)
        var f = CurveFactors()
        if s >= 0 { f = own ? sets[s].evaluate { value($0, slot: i, pool: pool) } : cachedGlobal(s) }
        if bus >= 0 { f = f + (own ? sets[bus].evaluate { value($0, slot: i, pool: pool) } : cachedGlobal(bus)) }
        return f
    }

    /// Whether the voice reads a value of its own or its emitter's (else the cached global result).
    @inline(__always)
    func needsOwnEvaluation(slot i: Int, pool: some VoiceKernel) -> Bool {
        let owner = voices.entries[i].leader >= 0 ? Int(voices.entries[i].leader) : i
        if !voices.entries[owner].locals.isEmpty { return true }
        let e = pool.voiceStates[i].emitterIndex
        return e >= 0 && !emitterLocals.isEmpty && emitterLocals[e] != nil
    }

    /// Set `s` evaluated with the global values (cached per global epoch).
    @inline(__always)
    func cachedGlobal(_ s: Int) -> CurveFactors {
        if sets[s].cachedEpoch != globalEpoch {
            sets[s].cached = sets[s].evaluate { global[$0].current }
            sets[s].cachedEpoch = globalEpoch
        }
        return sets[s].cached
    }

    // MARK: The frame

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        let pool = core.pool
        // Playback time: frozen while the whole engine is held.
        if globalMoving > 0, !(core.interruptionHold || core.pauseAllExcept != nil) {
            var changed = false
            for p in global.indices where global[p].isMoving {
                if global[p].advance(time.elapsed) { changed = true }
                if !global[p].isMoving { globalMoving -= 1 }
            }
            if changed { globalEpoch &+= 1 }
        }
        if !emitterLocals.isEmpty { advanceEmitters(time.elapsed, core: core) }
        voices.step(self, pool: pool, now: time.now, elapsed: time.elapsed, emitterEpoch: emitterEpoch)
    }

    private func advanceEmitters(_ elapsed: Double, core: EngineCore) {
        guard !(core.interruptionHold || core.pauseAllExcept != nil) else { return }
        var changed = false
        for (e, var el) in emitterLocals {
            guard core.pool.emitterIndex(EmitterID(index: UInt32(e), generation: el.generation)) != nil else {
                emitterLocals[e] = nil   // a removed emitter
                continue
            }
            guard el.values.contains(where: { $0.value.isMoving }) else { continue }
            for k in el.values.indices where el.values[k].value.advance(elapsed) { changed = true }
            emitterLocals[e] = el
        }
        if changed { emitterEpoch &+= 1 }
    }

    /// Sets emitter `e`'s own value of `p`.
    func setEmitter(_ e: Int, generation: UInt32, _ p: Int, _ value: Double, ramp: Double?) throws(EarshotError) {
        let d = definitions[p]
        guard let v = d.clamped(value) else {
            throw .invalidArgument("parameter \"\(d.name)\": value \(value) is not finite")
        }
        var el: (generation: UInt32, values: [LocalParameter]) = emitterLocals[e].flatMap { $0.generation == generation ? $0 : nil } ?? (generation: generation, values: [])
        if let k = el.values.firstIndex(where: { $0.parameter == p }) {
            el.values[k].value.set(v, seek: d.seek, ramp: ramp)
        } else {
            var pv = ParameterValue(global[p].current)
            pv.set(v, seek: d.seek, ramp: ramp)
            el.values.append(LocalParameter(parameter: p, value: pv))
        }
        emitterLocals[e] = el
        emitterEpoch &+= 1
    }

    /// Emitter `e`'s own value of `p`, if it has one.
    func emitterValue(_ e: Int, generation: UInt32, _ p: Int) -> Double? {
        guard let el = emitterLocals[e], el.generation == generation else { return nil }
        return el.values.first { $0.parameter == p }?.value.current
    }

    func teardown(_ core: EngineCore) {}
}
