/// The voices a clip handle started, for a live edit of that handle's gain
/// (Clips/AudioEngine+ClipGain.swift).
extension VoicePool {
    /// The live voices of clip `clipID` started by a handle of gain `gain`, oldest first.
    func voices(ofClip clipID: UInt32, gain: Float) -> [VoiceID] {
        var found: [(start: Double, id: VoiceID)] = []
        for index in live where slots[index].clipID == clipID && voiceClipGain[index] == gain {
            found.append((slots[index].startAt, VoiceID(index: UInt32(index), generation: slots[index].generation)))
        }
        return found.sorted { ($0.start, $0.id.index) < ($1.start, $1.id.index) }.map(\.id)
    }

    /// Records that voice `id` now carries a clip handle's gain of `gain`.
    func setClipGain(_ id: VoiceID, _ gain: Float) {
        guard let i = slot(id) else { return }
        voiceClipGain[i] = gain
    }
}
