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
    /// An edit to a gain of 0 keeps each voice's level, and an edit back from 0 restores it,
    /// times the new gain over the one before the 0: a loop muted so and set back to its old
    /// gain is heard as before. (The voices a handle of gain 0 started have no level to restore
    /// and stay silent.)
    ///
    /// Returns the number of voices moved: 0 when `updated` is not the same loaded clip (another
    /// file, or the clip loaded again), or when the gains are equal. Throws ``EarshotError/wrongEngine`` for another engine's handle and
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
        try redefineGains([(of: clip, as: updated)])
    }

    /// ``redefineGain(of:as:)`` for several handles at once (a bank save that changes several
    /// ids of one file): the voices of every change are found first, then moved, so that a
    /// voice moved by one change is not matched again by another — two handles whose gains a
    /// save swaps each keep their own voices. A voice matched by two changes of one handle
    /// follows the first. Returns the number of voices moved; throws as ``redefineGain(of:as:)``.
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let hum = try engine.loadClip(path: "Assets/Sounds/hum-loop.wav")
    /// let (soft, loud) = (try hum.withGain(0.5), hum)
    /// _ = try engine.play(soft, options: .init(loop: true))
    /// _ = try engine.play(loud, options: .init(loop: true))
    /// print(try engine.redefineGains([(of: soft, as: loud), (of: loud, as: soft)]))   // 2: swapped
    /// ```
    @discardableResult
    public func redefineGains(_ changes: [(of: Clip, as: Clip)]) throws(EarshotError) -> Int {
        for c in changes where c.of.engineID != link.id || c.as.engineID != link.id { throw .wrongEngine }
        return try withAL { () throws(EarshotError) -> Int in
            guard !core.isShutDown else { throw .engineShutDown }
            var claimed = Set<VoiceID>()
            var moves: [(voices: [VoiceID], from: Float, to: Float)] = []
            for (clip, updated) in changes {
                guard clip.id == updated.id, clip.generation == updated.generation, core.isLoaded(clip),
                      clip.gain != updated.gain else { continue }
                var voices = core.pool.voices(ofClip: clip.id, gain: clip.gain)
                if clip.gain == 0 { voices = voices.filter { core.pool.hasClipMute($0) } }   // muted by an edit
                moves.append((voices.filter { claimed.insert($0).inserted }, clip.gain, updated.gain))
            }
            for m in moves {
                if m.from > 0 {
                    core.moveClipGain(m.voices, from: m.from, to: m.to)
                } else {
                    for id in m.voices { core.unmuteClipGain(id, to: m.to) }
                }
            }
            return moves.reduce(0) { $0 + $1.voices.count }
        }
    }
}

extension EngineCore {
    /// Moves `voices`, started by a clip handle of gain `old` (> 0), to the handle's gain `new`.
    func moveClipGain(_ voices: [VoiceID], from old: Float, to new: Float) {
        let factor = new / old   // both finite, 0…16, the old one > 0
        if new == 0 {   // scaled by 0 its level is lost: kept for an edit back
            for id in voices {
                guard let i = pool.slot(id) else { continue }
                let own = parameters.voices.own(id, pool: pool)?.gain ?? pool.gain(ofSlot: i)
                pool.setClipMute(ClipMute(voice: id, clipGain: old, gain: own, partGain: timelines.partGain(id)))
            }
        }
        rescale(voices, gain: factor, pitch: nil)
        for id in voices {
            pool.setClipGain(id, new)
            timelines.scalePartGain(id, by: factor)
        }
    }

    /// Voice `id`, muted by an edit of its clip handle's gain to 0, takes its level back as it
    /// was before, then moves from the handle's gain then to `new`.
    func unmuteClipGain(_ id: VoiceID, to new: Float) {
        guard let m = pool.takeClipMute(id) else { return }
        if !parameters.voices.restoreOwnGain(id, m.gain, stage: parameters, pool: pool, now: now) {
            pool.setGain(id, m.gain)
        }
        if let g = m.partGain { timelines.setPartGain(id, g) }
        pool.setClipGain(id, m.clipGain)
        if new != m.clipGain { moveClipGain([id], from: m.clipGain, to: new) }
    }
}
