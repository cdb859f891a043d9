/// A live edit of a clip handle's gain (a bank's clip `loudness:` or `gain:` saved while it plays).
extension AudioEngine {
    /// Gives the playing voices that `clip` started the gain of `updated`, another handle of the
    /// same loaded clip (``Clip/withGain(_:)``): each voice's gain is multiplied by
    /// `updated.gain ÷ clip.gain` from the next rendered frame, so its play's gain, its sound's
    /// gain and variation and its curves are kept, and nothing restarts — as
    /// ``redefine(_:as:)`` does for a sound's gain. A voice of a layered or timeline
    /// sound moves by its own clip's change. Voices of the same clip started by a handle of
    /// another gain are left alone; those of an equal handle (same clip, same gain) are one
    /// handle's. Next plays take the handle they are given.
    ///
    /// Returns the number of voices moved: 0 when `updated` is not the same loaded clip (another
    /// file, or the clip loaded again), when the gains are equal, or from a gain of 0 (nothing to
    /// scale). Throws ``EarshotError/wrongEngine`` for another engine's handle and
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let hum = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
    /// _ = try engine.play(hum, options: .init(loop: true))
    /// let quieter = try hum.withGain(0.5)                    // −6 dB
    /// print(try engine.redefineGain(of: hum, as: quieter))  // 1: the hum drops at once
    /// ```
    @discardableResult
    public func redefineGain(of clip: Clip, as updated: Clip) throws(EarshotError) -> Int {
        guard clip.engineID == link.id, updated.engineID == link.id else { throw .wrongEngine }
        return try withAL { () throws(EarshotError) -> Int in
            guard !core.isShutDown else { throw .engineShutDown }
            guard clip.id == updated.id, clip.generation == updated.generation, core.isLoaded(clip),
                  clip.gain != updated.gain, clip.gain > 0 else { return 0 }
            let voices = core.pool.voices(ofClip: clip.id, gain: clip.gain)
            let factor = updated.gain / clip.gain   // both finite, 0…16, the old one > 0
            core.rescale(voices, gain: factor, pitch: nil)
            for id in voices {
                core.pool.setClipGain(id, updated.gain)
                core.timelines.scalePartGain(id, by: factor)
            }
            return voices.count
        }
    }
}
