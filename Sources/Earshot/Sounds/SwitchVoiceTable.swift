/// The switch sounds whose plays started each pool voice — a case's voice carries its case
/// sound's key, so without this a switch could not find the voices it started (a live
/// redefinition of its gain or pitch reaches them through it: Sounds/AudioEngine+Redefine.swift).
///
/// One column per pool slot, generation-checked (a reused slot is a new voice, which the switch
/// never started); a nested switch's case voice records every switch above it. Allocated at the
/// first switch play: nothing for an engine that plays none, and nothing on any other play.
final class SwitchVoiceTable {
    /// Per pool slot: the voice's generation and the keys of the switches that started it.
    private var generations: [UInt32] = []
    private var keys: [[SoundTable.Key]] = []

    /// The most switches one voice records (a case inside a case inside a switch…): the bound
    /// keeps a column small whatever the definitions do; deeper ones are not reached by a
    /// redefinition.
    static let maxDepth = 8

    /// Records that the switch `key` started voice `id` (its case's voice, or a timeline's handle).
    func record(_ id: VoiceID, switch key: SoundTable.Key, capacity: Int) {
        let i = Int(id.index)
        guard i < capacity else { return }
        if generations.count < capacity {
            generations += Array(repeating: .max, count: capacity - generations.count)
            keys += Array(repeating: [], count: capacity - keys.count)
        }
        if generations[i] != id.generation {
            generations[i] = id.generation
            keys[i] = []
        }
        guard keys[i].count < Self.maxDepth, !keys[i].contains(key) else { return }
        keys[i].append(key)
    }

    /// The live voices the switch `key` started, oldest slot first.
    func voices(ofSwitch key: SoundTable.Key, pool: some VoiceKernel) -> [VoiceID] {
        var found: [VoiceID] = []
        for i in keys.indices where keys[i].contains(key) {
            let id = VoiceID(index: UInt32(i), generation: generations[i])
            if pool.slot(id) != nil { found.append(id) }
        }
        return found
    }
}
