/// A live redefinition of a switch sound (``AudioEngine/redefine(_:as:)``) reaching the voices
/// of its cases, which carry their case sound's key rather than the switch's.
extension EngineCore {
    /// The voices the switch `key` started that play now: a following switch's handles (their
    /// parts are its cases) and any other switch's case voices (``SwitchVoiceTable``). Empty for
    /// any other sound, at no cost while no switch has played.
    func switchVoices(_ key: SoundTable.Key) -> [VoiceID] {
        timelines.handles(ofSound: key, following: true) + sounds.switchVoices.voices(ofSwitch: key, pool: pool)
    }

    /// Multiplies the gain and pitch of each of `voices` as a whole: a timeline's or a following
    /// switch's every part, in the pool and in its handle's part levels and next-part options (a
    /// gain set on the handle later, or the next case of a following switch, keeps the change);
    /// a layered voice's followers with it.
    func rescaleWholes(_ voices: [VoiceID], gain: Float?, pitch: Float?) {
        guard gain != nil || pitch != nil else { return }
        func followers(_ id: VoiceID) -> [VoiceID] {
            parameters.voices.entry(id).map { parameters.voices.entries[$0].followers } ?? []
        }
        for id in voices {
            guard timelines.index(id) != nil else {
                rescale([id] + followers(id), gain: gain, pitch: pitch)
                continue
            }
            timelines.scaleParts(of: id) { p in
                rescale([p] + followers(p), gain: gain, pitch: pitch)
                return (gain, pitch)
            }
            timelines.scaleOptions(of: id, gain: gain, pitch: pitch)
        }
    }
}
