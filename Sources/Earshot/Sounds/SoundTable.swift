/// The engine's sounds: each one's definition, clip selection, voices now, last start and
/// counters. Lives in the engine core and is touched only under the AL lock.
///
/// A voice knows its sound by a *key*: the slot and the low 16 bits of its generation, so a sound
/// removed and its slot reused cannot be mistaken for the old one by a voice or an event still
/// under way. Steady-state plays allocate nothing: the selector's arrays are sized when the sound
/// is made, and each sound's list of voices keeps its capacity.
final class SoundTable {
    /// `(generation & 0xFFFF) << 16 | (slot + 1)`; 0 is "no sound".
    typealias Key = UInt32

    /// The most sounds an engine holds at once (the key keeps 16 bits for the slot).
    static let maxSounds = SoundDefinition.maxSoundsPerEngine

    struct Entry {
        var generation: UInt32 = 0
        var definition: SoundDefinition?
        var selector: SoundSelector?
        /// Engine time of the last start (−∞: never).
        var lastStart = -Double.infinity
        /// Voices of the sound in start order, oldest first; ended ones are pruned lazily.
        var voices: [VoiceID] = []
        /// Voices among `voices` held virtual by the `virtual` limit mode (an upper bound until
        /// the next prune).
        var held = 0
        /// A timeline sound's clip selection per layer (nil for a layer with one clip).
        var layerSelectors: [SoundSelector?] = []
    }

    /// Counters since the engine started (see ``EngineStats``).
    struct Stats {
        var limitSteals = 0
        var limitRefusals = 0
        var limitHolds = 0
        var cooldownRefusals = 0
    }

    @exclusivity(unchecked) private(set) var entries: [Entry] = []   // read on every play, under the AL lock
    private var free: [Int] = []
    var stats = Stats()
    /// The voices each switch sound started (its cases' voices carry their own sound's key).
    let switchVoices = SwitchVoiceTable()
    /// The engine's identity (``EngineLink/id``), set once by the engine core: sounds it makes
    /// carry it, and a sound with another engine's identity has no slot here.
    var engineID: UInt64 = 0
    /// Sounds that may have voices held by their limit (released by ``releaseHeld(pool:)``).
    private var soundsWithHeld = 0

    func make(_ definition: SoundDefinition,
              poolCapacity: Int) throws(EarshotError) -> (slot: Int, generation: UInt32) {
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
        } else {
            guard entries.count < Self.maxSounds else {
                throw .invalidArgument("an engine holds at most \(Self.maxSounds) sounds (remove some with removeSound)")
            }
            slot = entries.count
            entries.append(Entry())
        }
        entries[slot].definition = definition
        entries[slot].selector = SoundSelector(definition)
        entries[slot].layerSelectors = Self.layerSelectors(definition)
        entries[slot].lastStart = -.infinity
        entries[slot].voices = []
        if let limit = definition.limit {
            // The `virtual` mode keeps its held voices too: room for as many as the pool holds.
            entries[slot].voices.reserveCapacity(limit.count + 4 + (limit.steal == .virtual ? poolCapacity : 0))
        }
        entries[slot].held = 0
        return (slot, entries[slot].generation)
    }

    /// Replaces a live sound's definition in place (its curves changed: AudioEngine+LiveCurves.swift);
    /// its selection, voices and counters stay.
    func replaceDefinition(_ slot: Int, _ definition: SoundDefinition) {
        entries[slot].definition = definition
    }

    /// Replaces a live sound's definition in place (``AudioEngine/redefine(_:as:)``): its voices,
    /// last start and held count stay; the selector carries on unless what it picks from changed.
    /// `playing`: the sound's live voices, oldest first — a sound given a limit starts counting
    /// them; one whose limit goes lets its held voices be heard.
    func redefine(_ slot: Int, as definition: SoundDefinition, playing: [VoiceID], pool: some VoiceKernel) {
        guard let old = entries[slot].definition else { return }
        entries[slot].definition = definition
        if old.clips != definition.clips || old.selection != definition.selection || old.weights != definition.weights
            || old.avoidRepeat != definition.avoidRepeat {
            entries[slot].selector = SoundSelector(definition)
        }
        if old.layers.map(\.clips) != definition.layers.map(\.clips) || old.layers.map(\.timing?.selection) != definition.layers.map(\.timing?.selection) {
            entries[slot].layerSelectors = Self.layerSelectors(definition)
        }
        if let limit = definition.limit {
            entries[slot].voices.reserveCapacity(limit.count + 4 + (limit.steal == .virtual ? pool.capacity : 0))
            if old.limit == nil { entries[slot].voices = playing }
        } else {
            entries[slot].voices = []
        }
        if entries[slot].held > 0, definition.limit?.steal != .virtual {
            // Nothing holds them any more: they compete for sources like any voice.
            for id in playing { if let i = pool.slot(id), pool.isHeld(i) { pool.release(held: i) } }
            entries[slot].held = 0
            soundsWithHeld -= 1
        }
    }

    /// The slot of a live sound handle, or nil when it was removed.
    func slot(_ sound: Sound) -> Int? {
        guard sound.engineID == engineID else { return nil }
        let i = Int(sound.id)
        guard i < entries.count, entries[i].generation == sound.generation, entries[i].definition != nil else {
            return nil
        }
        return i
    }

    func remove(_ slot: Int, pool: some VoiceKernel) {
        let key = self.key(slot)
        // Its voices play on as clip voices: they no longer count for, or report, the sound.
        pool.forgetSound(key)
        if entries[slot].held > 0 { soundsWithHeld -= 1 }
        entries[slot] = Entry(generation: entries[slot].generation &+ 1)
        free.append(slot)
    }

    func key(_ slot: Int) -> Key { (entries[slot].generation & 0xFFFF) << 16 | UInt32(slot + 1) }

    /// The sound a key names, if it still exists.
    func sound(forKey key: Key) -> Sound? {
        guard key != 0 else { return nil }
        let slot = Int(key & 0xFFFF) - 1
        guard slot < entries.count, let d = entries[slot].definition,
              entries[slot].generation & 0xFFFF == key >> 16 else { return nil }
        return Sound(engineID: engineID, id: UInt32(slot), generation: entries[slot].generation, definition: d)
    }

    // MARK: Playing

    /// What the instance limit lets a play of the sound do now (nothing is changed yet: the
    /// steal or hold is applied by ``started(_:voice:now:decision:pool:)`` once the new voice
    /// exists, so a play that fails on the way takes nothing from the others).
    enum Decision: Equatable {
        /// Under the limit.
        case play
        /// Play, held virtual (the `virtual` mode).
        case hold
        /// Play, and steal this voice (the `oldest` and `quietest` modes).
        case steal(VoiceID)
        /// Refused (the `refuse` mode).
        case refuse
    }

    /// Whether a play at `now` comes sooner than the sound's cooldown after its last start
    /// (counted when it does).
    func coolingDown(_ slot: Int, now: Double) -> Bool {
        guard let d = entries[slot].definition, d.cooldown > 0, now - entries[slot].lastStart < d.cooldown else {
            return false
        }
        stats.cooldownRefusals += 1
        return true
    }

    /// The instance limit's decision for a play on `emitterIndex` (-1: none); a refusal is
    /// counted here.
    func decide(_ slot: Int, emitterIndex: Int, pool: some VoiceKernel) -> Decision {
        guard let limit = entries[slot].definition?.limit else { return .play }
        // Fewer voices recorded than the limit (ended ones included): under it without a look.
        if entries[slot].voices.count < limit.count, limit.perEmitter == nil { return .play }
        prune(slot, pool: pool)
        var audible = 0, onEmitter = 0
        for id in entries[slot].voices {
            guard let i = pool.slot(id), !pool.isHeld(i) else { continue }
            audible += 1
            if emitterIndex >= 0, pool.emitter(ofSlot: i) == emitterIndex { onEmitter += 1 }
        }
        let emitterFull = emitterIndex >= 0 && limit.perEmitter.map { onEmitter >= $0 } ?? false
        guard audible >= limit.count || emitterFull else { return .play }
        // At the limit: among the emitter's voices when that is the limit reached.
        let among = emitterFull ? emitterIndex : -1
        switch limit.steal {
        case .refuse:
            stats.limitRefusals += 1
            return .refuse
        case .virtual:
            return .hold
        case .oldest, .quietest:
            var victim: VoiceID?
            var quietest = Float.infinity
            for id in entries[slot].voices {
                guard let i = pool.slot(id), !pool.isHeld(i),
                      among < 0 || pool.emitter(ofSlot: i) == among else { continue }
                if limit.steal == .oldest {
                    victim = id
                    break
                }
                let heard = pool.heardLevel(i)
                if heard < quietest {
                    quietest = heard
                    victim = id
                }
            }
            return victim.map { .steal($0) } ?? .play
        }
    }

    /// Records a voice the sound started at `now` and applies the limit's `decision` (its voices
    /// are kept only when it has a limit: the list then holds at most the limit's count and the
    /// held ones, pruned when full).
    func started(_ slot: Int, voice: VoiceID, now: Double, decision: Decision, pool: some VoiceKernel) {
        entries[slot].lastStart = now
        switch decision {
        case .play, .refuse:
            break
        case .hold:
            stats.limitHolds += 1
            if entries[slot].held == 0 { soundsWithHeld += 1 }
            entries[slot].held += 1
        case .steal(let victim):
            // By handle: the new voice's play may have evicted a virtual voice and reused its slot.
            if let i = pool.slot(victim) {
                pool.steal(i)
                stats.limitSteals += 1
            }
            entries[slot].voices.removeAll { $0 == victim }
        }
        if entries[slot].definition?.limit != nil { entries[slot].voices.append(voice) }
    }

    /// A following switch's voice moved on to a new case (its parts `old` let go): the limit
    /// counts the new case's voice `new` in their place, or the switch would look silent to its
    /// limit once the old case ended.
    func replaced(_ slot: Int, _ old: [VoiceID], by new: VoiceID) {
        guard entries[slot].definition?.limit != nil,
              let k = entries[slot].voices.firstIndex(where: { old.contains($0) }) else { return }
        entries[slot].voices[k] = new
    }

    /// A timeline's selectors: one per layer with alternatives.
    private static func layerSelectors(_ d: SoundDefinition) -> [SoundSelector?] {
        guard d.isTimeline else { return [] }
        return d.layers.map { l in
            guard let t = l.timing, !t.alternatives.isEmpty else { return nil }
            return SoundSelector(count: t.alternatives.count + 1, selection: t.selection)
        }
    }

    /// Picks the clip index of layer `layer`'s next part (0: its only clip).
    func nextClip<G: RandomNumberGenerator>(_ slot: Int, layer: Int, using generator: inout G) -> Int {
        guard layer < entries[slot].layerSelectors.count else { return 0 }
        return entries[slot].layerSelectors[layer]?.next(using: &generator) ?? 0
    }

    /// Picks the clip index of the next play.
    func nextClip<G: RandomNumberGenerator>(_ slot: Int, using generator: inout G) -> Int {
        entries[slot].selector?.next(using: &generator) ?? 0
    }

    /// Voices of the sound now (held ones included).
    func instanceCount(_ slot: Int, pool: some VoiceKernel) -> Int {
        guard entries[slot].definition?.limit != nil else { return pool.count(ofSound: key(slot)) }
        prune(slot, pool: pool)
        return entries[slot].voices.count
    }

    /// Drops ended voices (and stolen ones still fading) from the sound's list.
    private func prune(_ slot: Int, pool: some VoiceKernel) {
        entries[slot].voices.removeAll { id in
            guard let i = pool.slot(id) else { return true }
            return pool.wasStolen(i)
        }
    }

    /// Once per frame: a sound whose audible voices fell under its limit lets its newest held
    /// voices be heard (the `virtual` mode). Costs nothing while no sound holds a voice.
    func releaseHeld(pool: some VoiceKernel) {
        guard soundsWithHeld > 0 else { return }
        for slot in entries.indices where entries[slot].held > 0 {
            guard let limit = entries[slot].definition?.limit else { continue }
            prune(slot, pool: pool)
            var audible = 0, held = 0
            for id in entries[slot].voices {
                guard let i = pool.slot(id) else { continue }
                if pool.isHeld(i) { held += 1 } else { audible += 1 }
            }
            var k = entries[slot].voices.count - 1
            while audible < limit.count, k >= 0 {
                if let i = pool.slot(entries[slot].voices[k]), pool.isHeld(i),
                   limit.perEmitter.map({ emitterCount(slot, emitter: pool.emitter(ofSlot: i), pool: pool) < $0 }) ?? true {
                    pool.release(held: i)
                    audible += 1
                    held -= 1
                }
                k -= 1
            }
            entries[slot].held = held
            if held == 0 { soundsWithHeld -= 1 }
        }
    }

    /// Audible voices of the sound on emitter `emitter` (-1: not on an emitter, no limit).
    private func emitterCount(_ slot: Int, emitter: Int, pool: some VoiceKernel) -> Int {
        guard emitter >= 0 else { return 0 }
        var n = 0
        for id in entries[slot].voices {
            if let i = pool.slot(id), !pool.isHeld(i), pool.emitter(ofSlot: i) == emitter { n += 1 }
        }
        return n
    }
}
