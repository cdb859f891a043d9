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

    /// Keeps voice `id`'s level as it was before its clip handle's gain went to 0.
    func setClipMute(_ m: ClipMute) {
        guard let i = slot(m.voice) else { return }
        voiceClipMute[i] = m
    }

    /// Voice `id`'s level before its clip handle's gain went to 0 (nil: never muted so, or its
    /// slot now holds another voice); taken once.
    func takeClipMute(_ id: VoiceID) -> ClipMute? {
        guard let i = slot(id), let m = voiceClipMute[i], m.voice == id else { return nil }
        voiceClipMute[i] = nil
        return m
    }

    /// Whether voice `id` keeps a level from before its clip handle's gain went to 0.
    func hasClipMute(_ id: VoiceID) -> Bool {
        guard let i = slot(id), let m = voiceClipMute[i] else { return false }
        return m.voice == id
    }
}

/// A voice's level before a live edit took its clip handle's gain to 0: scaling it by 0 loses
/// it, so it is kept for an edit back.
struct ClipMute {
    /// Whose (a slot reused by another voice keeps a stale one, ignored).
    var voice: VoiceID
    /// The handle's gain before (> 0).
    var clipGain: Float
    /// The voice's own gain before (without its curves' factors).
    var gain: Float
    /// Its own gain as a part of a voice made of several (TimelineTable.Entry.gains), if one.
    var partGain: Float?
}
