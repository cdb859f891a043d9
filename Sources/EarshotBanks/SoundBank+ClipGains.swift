import Earshot

extension SoundBank {
    /// A save that changes a clip's `loudness:` or `gain:` (its handle's gain) moves the voices
    /// that handle started playing, as a sound's `gain:` does (``AudioEngine/redefineGain(of:as:)``):
    /// a loop heard through a sound with `loudness:` — whose factor moves the other way, through
    /// the sound's redefinition — stays at the sound's target, and one without it reaches the
    /// clip's new target, without a restart. Two ids of one file at one level are one handle:
    /// its voices follow the first of them the save changes. The changes are made at once
    /// (``AudioEngine/redefineGains(_:)``): one after another, a save that swaps two ids' gains
    /// moved the first id's voices and then matched them again as the second's.
    func applyClipGains(_ t: BankTransaction, over c: BankContents) throws(EarshotError) {
        var changes: [(of: Clip, as: Clip)] = []
        for (id, new) in t.clips.sorted(by: { $0.key < $1.key }) {
            guard let old = c.clips[id], old.gain != new.gain else { continue }
            changes.append((of: old, as: new))
        }
        guard !changes.isEmpty else { return }
        try engine.redefineGains(changes)
    }
}
