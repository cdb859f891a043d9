import Earshot

/// What a `set:` of an emitter's gain scales: the emitter's gain is its play's gain, and its
/// voice keeps its own level on top — its clip's (`loudness:`, `gain:`), its sound's `gain:` and
/// `loudness:`, the clip a sound picked, its first layer's gain, its random variation. The level
/// is taken by ratio from the voice's start (its gain over the emitter's), not rebuilt from the
/// definition, which cannot know the clip picked or the variation drawn, and leaves a layered
/// sound's first layer or a timeline's parts wrong.
struct EmitterVoiceLevel {
    /// The voice's gain apart from the emitter's.
    var level: Float = 1
    /// The emitter's gain the voice started with.
    var startGain: Float = 1
    /// The voice is a handle whose gain scales its parts' start gains (a timeline sound, a
    /// following switch, a switch whose picked case is a timeline: ``Voice/isHandleOverParts``;
    /// ``Voice/gain`` is a factor on each part's start gain, which already holds the emitter's
    /// start gain and every level). Read only after a start at gain 0, where there is no ratio:
    /// above 0 a handle's level reads 1/startGain by the same ratio as a plain voice's.
    var scalesParts = false
    /// The voice's pitch over the emitter's at its start (its sound's `pitch:`, its random ±
    /// cents, a first layer's pitch), and the emitter's pitch then: a `set:` of the emitter's
    /// pitch moves the voice's by the same ratio, as one of its gain does.
    var pitchLevel: Float = 1
    var startPitch: Float = 1

    /// The voice's gain for the emitter's gain `value`. A timeline played at gain 0 keeps its
    /// parts' levels as at gain 1 (TimelineTable.Entry.gains): its factor is the gain itself.
    func voiceGain(emitterGain value: Float) -> Float {
        if startGain == 0, scalesParts { return value }
        return level * value
    }

    /// The voice's pitch for the emitter's pitch `value` (a pitch is never 0: always by ratio;
    /// a handle's pitch reads 1, so its level is 1/startPitch).
    func voicePitch(emitterPitch value: Float) -> Float {
        pitchLevel * value
    }
}

extension SceneRuntime {
    /// The level of a clip's voice started at emitter gain `gain`: its handle's gain, exactly.
    static func level(of clip: Clip, gain: Float, pitch: Float) -> EmitterVoiceLevel {
        EmitterVoiceLevel(level: clip.gain, startGain: gain, startPitch: pitch)
    }

    /// The level of `voice`, a play of `sound` at emitter gain `gain`: its own start gain
    /// (``Voice/gain``: without a curve's factor) over the emitter's. After a start at gain 0,
    /// where there is no ratio, the definition's: the sound's gain, its first layer's, its clips'
    /// when they share one (not the clip picked among clips of different levels, nor the variation).
    static func level(of voice: Voice, sound: Sound, gain: Float, pitch: Float, loop: Bool) -> EmitterVoiceLevel {
        let d = sound.definition
        // The engine's word on what it filed (the case a switch picked), not a guess from the definition.
        var out = EmitterVoiceLevel(startGain: gain, scalesParts: voice.isHandleOverParts, startPitch: pitch)
        // The voice's own pitch (``Voice/pitch``: without a curve's factor).
        if let p = voice.pitch, p.isFinite, p > 0, pitch > 0 { out.pitchLevel = p / pitch }
        if gain > 0, let g = voice.gain, g.isFinite {
            out.level = g / gain
            return out
        }
        let first = d.layers.first
        let clips = first.map { [$0.clip] } ?? d.clips
        let clipGains = Set(clips.map(\.gain))
        out.level = d.gain * (first?.gain ?? 1) * (clipGains.count == 1 ? clipGains.first ?? 1 : 1)
        return out
    }
}
