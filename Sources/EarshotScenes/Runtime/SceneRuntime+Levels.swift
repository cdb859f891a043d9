import Earshot

/// What a `set:` of an emitter's gain keeps: the emitter's gain is the play's, and its voice is
/// heard at that times its own level — its clip's (`loudness:`, `gain:`), or its sound's `gain:`
/// and `loudness:` times its clips' level when they share one. Setting the voice's gain to the
/// emitter's alone would drop that level (a normalised clip jumping back to its file's loudness).
/// A sound's random gain variation is not kept (each play draws its own anyway).
extension SceneRuntime {
    static func level(of sound: Sound) -> Float {
        let d = sound.definition
        let clips = d.layers.isEmpty ? d.clips : d.layers.prefix(1).map(\.clip)   // a layered voice: its first layer's
        let clipGains = Set(clips.map(\.gain))
        return d.gain * (clipGains.count == 1 ? clipGains.first ?? 1 : 1)
    }
}
