import Logging

/// Plays of timeline sounds (``SoundLayer/Timing``), inside the AL section of the play: the
/// sound's cooldown and limit once for the whole, each layer's clip picked and varied, every
/// part but the tails started with the play's start plus its delay — scheduled on the voice
/// pool's start heap, so each is heard on its frame whatever the render's size — and the whole
/// filed in ``TimelineTable`` under the handle the game holds.
extension EngineCore {
    @inline(never)   // out of the plain sound's play path
    func playTimeline(sound slot: Int, options: PlayOptions, logger: Logger) throws(EarshotError) -> VoiceID? {
        guard let definition = sounds.entries[slot].definition else { throw .soundRemoved }
        guard let (key, target, t, decision) = try admit(sound: slot, options: options) else { return nil }
        let options = alignedStart(options)   // as a layered sound's: every part on its frame
        // Played at gain 0: the parts are resolved as a play at gain 1 (the sound's own gain)
        // and start silent, so that the handle keeps their levels and a gain set on it later is
        // heard (TimelineTable.Entry.gains).
        var partOptions = options
        if options.gain == 0 { partOptions.gain = definition.gain }
        let layers = definition.layers
        var sets: [Int] = []
        var plays: [(layer: Int, play: ResolvedPlay, clip: Clip)] = []
        var anchor: ResolvedPlay?
        // Resolve every part before starting any: a part that fails starts none.
        for k in layers.indices where layers[k].timing?.tail != true {
            sets.append(try parameters.set(forSound: key, layer: k, definition: definition))
            let (r, clip) = try timelinePart(k, of: definition, slot: slot, options: partOptions, target: target,
                                             anchor: &anchor, held: decision == .hold, logger: logger)
            plays.append((k, r, clip))
        }
        // The handle: the part expected to last longest (the sustain first, then loops).
        var best = 0, bestEnd = -Double.infinity
        for (n, p) in plays.enumerated() {
            let r = p.play
            let end: Double
            if layers[p.layer].timing?.sustain == true {
                end = .greatestFiniteMagnitude
            } else if r.loop {
                end = .greatestFiniteMagnitude / 2
            } else {
                end = r.delay + (Double(r.frames) * Double(r.passes) - r.startFrame) / (Double(r.rate) * Double(r.pitch))
            }
            if end > bestEnd { (best, bestEnd) = (n, end) }
        }
        plays[best].play.soundKey = key
        var handle: VoiceID?
        // The tails start with the parts' options, at the handle's gain (silent after a play at 0).
        var entry = TimelineTable.Entry(handle: .refused, soundSlot: slot, soundKey: key, parts: [], tails: [],
                                        sustain: nil, options: partOptions, gains: [], pitches: [])
        if options.gain == 0 { entry.gainScale = 0 }
        entry.options.delay = 0
        entry.options.startTime = nil
        entry.tails = layers.indices.filter { layers[$0].timing?.tail == true }
        for (n, p) in plays.enumerated() {
            var start = p.play
            if options.gain == 0 { start.gain = 0 }
            let id = parameters.play(start, set: sets[n], layer: p.layer, soundKey: key, in: self)
            guard id != .refused else { continue }   // the pool's refusal, recorded by it
            pool.mark(id, markers: p.clip.markers, from: p.play.startFrame)
            registerLayer(id, start, layer: p.layer, soundKey: key)   // the monitor's sound and layer
            if n == best || handle == nil { handle = id }
            entry.parts.append(id)
            entry.gains.append(p.play.gain)
            entry.pitches.append(p.play.pitch)
            if layers[p.layer].timing?.sustain == true { entry.sustain = id }
        }
        guard let handle else { return nil }
        entry.handle = handle
        timelines.add(entry)
        sounds.started(slot, voice: handle, now: t, decision: decision, pool: pool)
        return handle
    }

    /// Layer `k`'s part: its clip picked, the play's options with the layer's loop, its gain and
    /// pitch varied, and its start the anchor's (the first part resolved) plus its delay.
    private func timelinePart(_ k: Int, of definition: SoundDefinition, slot: Int, options: PlayOptions,
                              target: PlayResolver.Target, anchor: inout ResolvedPlay?, held: Bool,
                              logger: Logger) throws(EarshotError) -> (ResolvedPlay, Clip) {
        let layer = definition.layers[k]
        let clip = layer.timing.map { $0.alternatives.isEmpty ? layer.clip : layer.clips[sounds.nextClip(slot, layer: k, using: &random)] }
            ?? layer.clip
        var o = options
        o.loop = o.loopCount == 0 && definition.layerLoops(k, playLoop: options.loop)
        var r = try PlayResolver.resolve(clip, options: o, target: target, in: self, logger: logger, sound: 0, held: held)
        r.gain = layer.gain == 0 ? 0 : Self.varied(r.gain, by: layer.gain)
        r.pitch = Self.varied(r.pitch, by: layer.pitch)
        if let timing = layer.timing { vary(&r, cents: timing.pitchVariation, decibels: timing.gainVariation) }
        let delay = layer.timing?.delay ?? 0
        if let a = anchor {
            r.delay = a.delay + delay
            r.mixTarget = a.mixTarget.isFinite ? a.mixTarget + delay : .nan
            r.startAudioTime = a.startAudioTime + delay
        } else {
            anchor = r
            r.delay += delay
            if r.mixTarget.isFinite { r.mixTarget += delay }
            r.startAudioTime += delay
        }
        return (r, clip)
    }

    /// ``Voice/release()``: a timeline's loops end their passes and its tails start on the
    /// sustain loop's last frame; any other looping voice ends its pass.
    func release(_ id: VoiceID, logger: Logger) {
        guard timelines.index(id) != nil else {
            _ = pool.endLoop(id, now: now)
            return
        }
        guard let (at, tails) = timelines.release(id, pool: pool, now: now),
              let e = timelines.entry(id), sounds.key(e.soundSlot) == e.soundKey,
              let definition = sounds.entries[e.soundSlot].definition,
              let target = try? PlayResolver.target(e.options, in: self) else { return }
        var anchor: ResolvedPlay?
        for k in tails {
            var o = e.options
            o.delay = at
            guard let (r, clip) = try? timelinePart(k, of: definition, slot: e.soundSlot, options: o, target: target,
                                                    anchor: &anchor, held: false, logger: logger) else { continue }
            let set = (try? parameters.set(forSound: e.soundKey, layer: k, definition: definition)) ?? -1
            let part = parameters.play(r, set: set, layer: k, soundKey: e.soundKey, in: self)
            guard part != .refused else { continue }
            pool.mark(part, markers: clip.markers, from: r.startFrame)
            registerLayer(part, r, layer: k, soundKey: e.soundKey)
            timelines.addPart(part, gain: r.gain, pitch: r.pitch, to: id, pool: pool, now: now)   // at the handle's gain
        }
    }
}
