/// One voice under curves, or one layer of a layered voice: what the voice's own gain, pitch and
/// priority are (the curves multiply or offset them), what was written to the pool last, and its
/// own parameter values. Kept beside the pool (``VoiceCurveTable``), not in its hot per-voice state.
struct VoiceCurveEntry {
    /// The pool generation of the voice this entry describes (stale once it differs).
    var generation: UInt32 = 0
    var active = false
    /// The curve set of its sound (and layer), -1: none (a voice under bus curves only).
    var set: Int32 = -1
    /// For a layer after the first: the slot of the layered voice's first layer (the voice the
    /// game holds), -1 otherwise.
    var leader: Int32 = -1
    var leaderGeneration: UInt32 = 0
    /// The layer of a layered voice it plays (-1: not a layer), and the sound (its key) whose
    /// curves it follows (0: none) — for a live change of the sound's curves.
    var layer: Int16 = -1
    var soundKey: UInt32 = 0
    /// For the first layer of a layered voice: the other layers.
    var followers: [VoiceID] = []
    /// A voice's gain, pitch and priority.
    struct Controls {
        var gain: Float = 1
        var pitch: Float = 1
        var priority: UInt8 = 128
    }
    /// The voice's own values (without curves) and its share of the layered voice's own (a
    /// layer's gain and pitch relative to the first layer's when the game changes them).
    var base = Controls()
    /// For a layer after the first: its own gain over its first layer's, so that it keeps its
    /// level when the game raises a first layer from gain 0 (from which no proportion can be taken).
    var leaderShare: Float = 1
    /// What was last written to the pool (a different value there is the game's own change).
    var written = Controls()
    /// The filter factors last computed (applied to the source by ``ParameterFilterStage``).
    var lowPass: Float = 1
    var send: Float = 1
    var hasFilters = false
    /// The epochs the factors were computed at, and whether its own values moved since.
    var globalEpoch: UInt64 = 0
    var emitterEpoch: UInt64 = 0
    var dirty = true
    /// The voice's own parameter values (the game's ``Voice/setParameter(_:_:ramp:)``).
    var locals: [LocalParameter] = []
    /// Position in ``VoiceCurveTable/managed``.
    var managedIndex: Int32 = -1
}

extension VoiceCurveEntry {
    /// The entry of the voice of generation `generation` whose own values are `gain`, `pitch`
    /// and `priority`, with `written` last written to the pool (its own values when none given).
    init(generation: UInt32, gain: Float, pitch: Float, priority: UInt8,
         written: (gain: Float, pitch: Float, priority: UInt8)? = nil) {
        self.generation = generation
        base = Controls(gain: gain, pitch: pitch, priority: priority)
        self.written = written.map { Controls(gain: $0.gain, pitch: $0.pitch, priority: $0.priority) } ?? base
    }
}

/// The voices under curves (``VoiceCurveEntry``, indexed by pool slot) and the list of them.
final class VoiceCurveTable {
    var entries: [VoiceCurveEntry]
    /// Slots of active entries, unordered.
    private(set) var managed: [Int] = []
    /// Active entries with a low-pass or send curve (the filter stage's list).
    var filtered = 0

    init(capacity: Int) {
        entries = [VoiceCurveEntry](repeating: VoiceCurveEntry(), count: capacity)
        managed.reserveCapacity(capacity)
    }

    /// The active entry of a live voice, or nil.
    func entry(_ id: VoiceID) -> Int? {
        let i = Int(id.index)
        guard i < entries.count, entries[i].active, entries[i].generation == id.generation else { return nil }
        return i
    }

    func activate(_ i: Int, _ e: VoiceCurveEntry) {
        if i >= entries.count { entries += [VoiceCurveEntry](repeating: VoiceCurveEntry(), count: i + 1 - entries.count) }
        if entries[i].active { deactivate(i) }
        var e = e
        e.active = true
        e.managedIndex = Int32(managed.count)
        entries[i] = e
        managed.append(i)
        if e.hasFilters { filtered += 1 }
    }

    func deactivate(_ i: Int) {
        guard entries[i].active else { return }
        let at = Int(entries[i].managedIndex)
        let last = managed.removeLast()
        if last != i {
            managed[at] = last
            entries[last].managedIndex = Int32(at)
        }
        if entries[i].hasFilters { filtered -= 1 }
        entries[i].active = false
        entries[i].managedIndex = -1
        entries[i].followers.removeAll()
        entries[i].locals.removeAll()
    }

    /// One frame: ends entries of ended voices (and the layers of an ended or stopping first
    /// layer), moves the voices' own values, notices the game's own changes, and writes gain,
    /// pitch and priority where the factors changed.
    func step(_ stage: ParameterStage, pool: some VoiceKernel, now: Double, elapsed: Double, emitterEpoch: UInt64) {
        var k = 0
        while k < managed.count {
            let i = managed[k]
            guard pool.voiceStates[i].phase != .free, pool.voiceStates[i].generation == entries[i].generation else {
                deactivate(i)
                continue   // `managed[k]` is another entry now
            }
            if entries[i].leader >= 0, followLeader(i, pool: pool, now: now) {
                k += 1
                continue
            }
            if !entries[i].locals.isEmpty, !pool.voiceStates[i].paused, !pool.busPaused[pool.voiceStates[i].busIndex] {
                for l in entries[i].locals.indices where entries[i].locals[l].value.advance(elapsed) { entries[i].dirty = true }
                if entries[i].dirty { for f in entries[i].followers { if let j = entry(f) { entries[j].dirty = true } } }
            }
            // The game's own change of the voice's gain, pitch or priority (through `Voice`).
            adoptGameChanges(i, pool: pool)
            if pool.voiceStates[i].priority != entries[i].written.priority {
                entries[i].base.priority = pool.voiceStates[i].priority
                entries[i].written.priority = pool.voiceStates[i].priority
                entries[i].dirty = true
            }
            if entries[i].dirty || entries[i].globalEpoch != stage.globalEpoch
                || (pool.voiceStates[i].emitterIndex >= 0 && entries[i].emitterEpoch != emitterEpoch) {
                apply(i, stage: stage, pool: pool, now: now)
                entries[i].emitterEpoch = emitterEpoch
            }
            k += 1
        }
    }

    /// The factors of slot `i` written to the pool.
    func apply(_ i: Int, stage: ParameterStage, pool: some VoiceKernel, now: Double) {
        let f = stage.factors(slot: i, set: Int(entries[i].set), pool: pool)
        entries[i].dirty = false
        entries[i].globalEpoch = stage.globalEpoch
        let gain = ParameterStage.finite(entries[i].base.gain * f.gain, max: .greatestFiniteMagnitude)
        let pitch = ParameterStage.finitePitch(entries[i].base.pitch * Float(f.pitch))
        let priority = UInt8(max(0, min(255, (Double(entries[i].base.priority) + f.priority).rounded())))
        pool.setGain(ofSlot: i, gain)
        pool.setPitch(ofSlot: i, pitch, now: now)
        pool.setPriority(ofSlot: i, priority)
        entries[i].written.gain = gain
        entries[i].written.pitch = pitch
        entries[i].written.priority = priority
        entries[i].lowPass = Float(max(0, min(1, f.lowPass)))
        entries[i].send = Float(max(0, min(1, f.send)))
    }

    /// A layer follows its first layer: it stops when that one ends or is stopped, and pauses
    /// and moves with it. True when the layer was stopped (nothing else to do this frame).
    private func followLeader(_ i: Int, pool: some VoiceKernel, now: Double) -> Bool {
        let l = Int(entries[i].leader)
        let id = VoiceID(index: UInt32(i), generation: entries[i].generation)
        guard pool.voiceStates[l].phase != .free, pool.voiceStates[l].generation == entries[i].leaderGeneration,
              !pool.voiceStates[l].ownStops, pool.voiceStates[l].fadeAction != .stop else {
            pool.stopLayer(i, id: id)
            return true
        }
        pool.follow(i, id: id, leader: l, now: now)
        return false
    }

    /// Scales the own gain and pitch of a voice under curves (nil: unchanged) — a live edit of
    /// its sound (``AudioEngine/redefine(_:as:)``) — and writes the result at once. A change the
    /// game made since the last frame is taken first. False when the voice is not in the table
    /// (its pool values are its own).
    func scaleOwn(_ id: VoiceID, gain: Float?, pitch: Float?, stage: ParameterStage, pool: some VoiceKernel,
                  now: Double) -> Bool {
        guard let i = entry(id) else { return false }
        adoptGameChanges(i, pool: pool)
        if let gain {
            entries[i].base.gain = EngineCore.varied(entries[i].base.gain, by: gain)
            // A layer's share of its first layer moves with either's own change.
            if gain > 0, gain.isFinite {
                if entries[i].leader >= 0 { entries[i].leaderShare *= gain }
                for f in entries[i].followers { if let j = entry(f) { entries[j].leaderShare /= gain } }
            }
        }
        if let pitch { entries[i].base.pitch = EngineCore.varied(entries[i].base.pitch, by: pitch) }
        apply(i, stage: stage, pool: pool, now: now)   // accounts the position before a pitch change
        return true
    }

    /// The game set the voice's gain or pitch (through `Voice`) since the last write: its own
    /// values become those, and for a first layer its layers follow in proportion.
    /// The own gain and pitch of voice `id` under curves (nil: not under curves): what the game
    /// set — the pool's value while a change of the game's is not adopted yet, else the base.
    func own(_ id: VoiceID, pool: some VoiceKernel) -> (gain: Float, pitch: Float)? {
        guard let i = entry(id) else { return nil }
        let gain = pool.voiceStates[i].gain, pitch = pool.voiceStates[i].pitch
        return (gain != entries[i].written.gain ? gain : entries[i].base.gain,
                pitch != entries[i].written.pitch ? pitch : entries[i].base.pitch)
    }

    /// The game sets the own gain or pitch of voice `id` under curves (``Voice/gain``): taken as
    /// its base at once and written with its curves, rather than left in the pool for the next
    /// frame to notice — which misses a value equal to the one the curves last wrote (under a
    /// −6 dB curve, halving the gain). False when the voice is not in the table.
    func setOwn(_ id: VoiceID, gain: Float?, pitch: Float?, stage: ParameterStage, pool: some VoiceKernel,
                now: Double) -> Bool {
        guard let i = entry(id) else { return false }
        adoptGameChanges(i, pool: pool)
        adopt(i, gain: gain, pitch: pitch)
        apply(i, stage: stage, pool: pool, now: now)
        return true
    }

    /// Gives voice `id` its own gain `gain` back (after a live edit of its clip's gain to 0,
    /// which scaled it to nothing): that voice's alone — its layers kept their levels. False
    /// when the voice is not in the table.
    func restoreOwnGain(_ id: VoiceID, _ gain: Float, stage: ParameterStage, pool: some VoiceKernel, now: Double) -> Bool {
        guard let i = entry(id) else { return false }
        adoptGameChanges(i, pool: pool)
        (entries[i].base.gain, entries[i].written.gain) = (gain, gain)
        entries[i].dirty = true
        apply(i, stage: stage, pool: pool, now: now)
        return true
    }

    private func adoptGameChanges(_ i: Int, pool: some VoiceKernel) {
        let gain = pool.voiceStates[i].gain, pitch = pool.voiceStates[i].pitch
        let gainMoved = gain != entries[i].written.gain, pitchMoved = pitch != entries[i].written.pitch
        guard gainMoved || pitchMoved else { return }
        adopt(i, gain: gainMoved ? gain : nil, pitch: pitchMoved ? pitch : nil)
    }

    /// Takes the game's own `gain` and `pitch` (nil: unchanged) as slot `i`'s base; a first
    /// layer's followers move in proportion.
    private func adopt(_ i: Int, gain new: Float?, pitch newPitch: Float?) {
        let gainMoved = new != nil, pitchMoved = newPitch != nil
        let gain = new ?? entries[i].base.gain, pitch = newPitch ?? entries[i].base.pitch
        let old = entries[i].base
        if gainMoved { (entries[i].base.gain, entries[i].written.gain) = (gain, gain) }
        if pitchMoved { (entries[i].base.pitch, entries[i].written.pitch) = (pitch, pitch) }
        entries[i].dirty = true
        for f in entries[i].followers {
            guard let j = entry(f) else { continue }
            if gainMoved {
                entries[j].base.gain = old.gain > 0 ? entries[j].base.gain * (gain / old.gain) : gain * entries[j].leaderShare
            }
            if pitchMoved { entries[j].base.pitch = ParameterStage.finitePitch(entries[j].base.pitch * (pitch / old.pitch)) }
            entries[j].dirty = true
        }
    }
}

extension ParameterStage {
    /// A gain kept finite and within 0…`max`.
    @inline(__always)
    static func finite(_ v: Float, max m: Float) -> Float { v.isFinite ? min(max(v, 0), m) : m }
    /// A pitch kept finite and above 0 (OpenAL clamps it further).
    @inline(__always)
    static func finitePitch(_ v: Float) -> Float {
        if !v.isFinite { return 64 }
        return v > 0 ? v : .leastNormalMagnitude
    }
}

extension VoiceCurveTable {
    /// Changes whether an active entry has a low-pass or send curve.
    func setHasFilters(_ i: Int, _ has: Bool) {
        guard entries[i].active, entries[i].hasFilters != has else { return }
        entries[i].hasFilters = has
        filtered += has ? 1 : -1
    }
}
