/// A live redefinition of a timeline sound (``AudioEngine/redefine(_:as:)``) reaching every part
/// of its playing voices, not only the handle's; of a following switch's case sound, that case's
/// parts' levels.
extension EngineCore {
    /// `handles`: the sound's live voices. Each part of the timeline voices among them takes the sound's gain and pitch change times
    /// its layer's, in the pool and in the handle's part levels (``TimelineTable/Entry/gains``),
    /// so that a gain set on the handle later scales the new levels rather than undo them, and in
    /// the options its tails will start with. The
    /// handle's own part was rescaled by the sound's change already (with the sound's voices).
    func redefineTimelines(_ handles: [VoiceID], old: SoundDefinition, new: SoundDefinition, gain: Float?,
                           pitch: Float?) {
        guard !timelines.isEmpty else { return }
        func ratio(_ n: Float, _ o: Float) -> Float? { n == o ? nil : (o > 0 ? n / o : n) }
        func times(_ a: Float?, _ b: Float?) -> Float? { a.map { $0 * (b ?? 1) } ?? b }
        // A following switch's cases are other sounds: its parts of this sound only, below.
        for h in handles where timelines.index(h) != nil && timelines.entry(h)?.follow == nil {
            timelines.scaleParts(of: h) { p in
                guard let j = parameters.voices.entry(p) else { return (gain, pitch) }
                let k = Int(parameters.voices.entries[j].layer)
                var layer: (gain: Float?, pitch: Float?) = (nil, nil)
                if k >= 0, k < old.layers.count, k < new.layers.count {
                    layer = (ratio(new.layers[k].gain, old.layers[k].gain), ratio(new.layers[k].pitch, old.layers[k].pitch))
                }
                if p == h {
                    rescale([p], gain: layer.gain, pitch: layer.pitch)
                } else {
                    rescale([p], gain: times(layer.gain, gain), pitch: times(layer.pitch, pitch))
                }
                return (times(layer.gain, gain), times(layer.pitch, pitch))
            }
            // A timeline's tails start later with the play's options, which hold the old sound
            // gain and pitch (their layers' come from the new definition). A following switch's
            // hold the switch play's: its next case takes its case sound's from its definition.
            if timelines.entry(h)?.follow == nil { timelines.scaleOptions(of: h, gain: gain, pitch: pitch) }
        }
        // A following switch's case voices of this sound — its handle or a later case, not a
        // handle — were rescaled with the sound's voices (a layered case's first layer by its
        // layer's change too, redefineLayers): their part levels follow, no other case's.
        var first: (gain: Float?, pitch: Float?) = (nil, nil)
        if old.isLayered, new.isLayered, !old.layers.isEmpty, !new.layers.isEmpty {
            first = (ratio(new.layers[0].gain, old.layers[0].gain), ratio(new.layers[0].pitch, old.layers[0].pitch))
        }
        let part = (gain: times(first.gain, gain), pitch: times(first.pitch, pitch))
        guard part.gain != nil || part.pitch != nil else { return }
        for p in handles { timelines.scaleFollowingPart(p, gain: part.gain, pitch: part.pitch) }
    }
}
