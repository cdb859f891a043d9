import Logging

/// Plays of switch sounds (``SoundSwitch``), inside the AL section of the play: the switch's own
/// cooldown and limit, the label the voice hears, then its case's sound played as any sound is
/// (its selection, variation, limit and cooldown). A following switch's voice is filed in the
/// ``TimelineTable``, which calls ``follow(_:_:)`` each frame to cross-fade it to a new case.
extension EngineCore {
    @inline(never)   // out of the plain sound's play path
    func playSwitch(sound slot: Int, options: PlayOptions, logger: Logger) throws(EarshotError) -> VoiceID? {
        guard let definition = sounds.entries[slot].definition, let sw = definition.switchCases else {
            throw .soundRemoved
        }
        guard let (key, target, t, decision) = try admit(sound: slot, options: options) else { return nil }
        let p = try parameters.index(of: sw.parameter)
        let generation = target.emitterIndex >= 0 ? pool.emitterGeneration(target.emitterIndex) : 0
        let label = parameters.labelIndex(p, emitter: target.emitterIndex, generation: generation)
        guard let (caseSlot, caseDefinition) = caseSound(sw, label: label, parameter: p) else {
            pool.recordRefusal(.refused, sound: key)   // no case for the label and no default
            return nil
        }
        // Played at gain 0, a case whose handle scales its parts (a timeline, a following loop)
        // starts at the switch's own gain and is silenced after: a gain set later is a factor
        // on that level, the switch's and the case's gains kept (a play at 0 has none to scale).
        var caseOptions = options
        if options.gain == 0 { caseOptions.gain = definition.gain }
        let o = Self.caseOptions(caseOptions, of: definition, for: caseDefinition)
        let follows = sw.follow && o.loop && !caseDefinition.isTimeline && !caseDefinition.isSwitch
        let scaled = options.gain == 0 && (follows || caseDefinition.isTimeline)
        guard let id = try play(sound: caseSlot, options: scaled ? o : Self.caseOptions(options, of: definition, for: caseDefinition),
                                logger: logger) else { return nil }
        sounds.started(slot, voice: id, now: t, decision: decision, pool: pool)
        var filed = false
        if follows, let own = ownLevels(id) {
            filed = timelines.add(TimelineTable.Entry(
                handle: id, soundSlot: slot, soundKey: key, parts: [id], tails: [], sustain: nil, options: caseOptions,
                gains: [own.gain], pitches: [own.pitch],
                follow: .init(switchSlot: slot, parameter: p, label: label, fade: sw.fade,
                              emitterIndex: target.emitterIndex)))
        }
        // A following switch's handle is found by its entry's sound key; any other case voice here.
        if !filed { sounds.switchVoices.record(id, switch: key, capacity: pool.capacity) }
        if scaled { _ = timelines.scale(id, gain: 0, pitch: nil, pool: pool, now: now) }
        return id
    }

    /// The slot and definition of the case of label `label` (its default without one); nil when
    /// there is none or its sound was removed.
    private func caseSound(_ sw: SoundSwitch, label: Int, parameter p: Int) -> (Int, SoundDefinition)? {
        let labels = parameters.definitions[p].labels
        guard label < labels.count, let sound = sw.sound(for: labels[label]), let slot = sounds.slot(sound),
              let d = sounds.entries[slot].definition else { return nil }
        return (slot, d)
    }

    /// A case's voice options: the switch play's, times the case's gain and pitch; the case's
    /// bus, priority and loop unless the switch or its play set their own.
    static func caseOptions(_ options: PlayOptions, of switchDefinition: SoundDefinition,
                            for c: SoundDefinition) -> PlayOptions {
        var o = options
        o.gain = varied(options.gain, by: c.gain)
        o.pitch = varied(options.pitch, by: c.pitch)
        if options.loopCount == 0 { o.loop = options.loop || c.loop }
        if options.bus == switchDefinition.bus { o.bus = c.bus }
        if options.priority == switchDefinition.priority { o.priority = c.priority }
        return o
    }

    /// A following switch's frame: when the label its voice hears changed, the case playing
    /// fades out over the switch's fade while the new label's case fades in over the same time.
    func follow(_ handle: VoiceID, _ f: TimelineTable.Follow) {
        guard let definition = sounds.entries[f.switchSlot].definition, let sw = definition.switchCases,
              f.parameter < parameters.definitions.count else { return }
        let generation = f.emitterIndex >= 0 ? pool.emitterGeneration(f.emitterIndex) : 0
        let label = parameters.labelIndex(f.parameter, emitter: f.emitterIndex, generation: generation)
        guard label != f.label, let e = timelines.entry(handle) else { return }
        let labels = parameters.definitions[f.parameter].labels
        let before = f.label < labels.count ? sw.sound(for: labels[f.label]) : nil
        let after = sw.sound(for: labels[label])
        guard before != after else {
            timelines.followed(handle, label: label, retiredHandle: false)
            return
        }
        for p in e.parts where pool.slot(p) != nil { pool.stop(p, fade: f.fade) }
        timelines.followed(handle, label: label, retiredHandle: true)
        guard let (caseSlot, caseDefinition) = caseSound(sw, label: label, parameter: f.parameter) else { return }
        var o = Self.caseOptions(e.options, of: definition, for: caseDefinition)
        o.fadeIn = max(o.fadeIn, f.fade)
        // The play's timing was for its first case: the next one starts now, from its beginning
        // (a delay would hold it again after every change; a past start time would skip into it).
        o.delay = 0
        o.startTime = nil
        o.offset = 0
        guard let id = try? play(sound: caseSlot, options: o, logger: EarshotLogging.logger("earshot.engine")),
              let own = ownLevels(id) else { return }
        timelines.addPart(id, gain: own.gain, pitch: own.pitch, to: handle, pool: pool, now: now)
        sounds.replaced(f.switchSlot, e.parts, by: id)
    }

    /// Case voice `id`'s own gain and pitch, a part level of its handle (nil: not live): under
    /// curves without their factors — the handle's gain writes part level × gain as the part's
    /// own, and the curves apply theirs to it (the pool's value would apply them twice).
    private func ownLevels(_ id: VoiceID) -> (gain: Float, pitch: Float)? {
        guard let i = pool.slot(id) else { return nil }
        return parameters.voices.own(id, pool: pool) ?? (pool.gain(ofSlot: i), pool.pitch(ofSlot: i))
    }

    /// A switch's parameter is defined and labelled, its cases name its labels, and its sounds
    /// are this engine's and live (``AudioEngine/makeSound(_:)``).
    func checkSwitch(_ definition: SoundDefinition) throws(EarshotError) {
        guard let sw = definition.switchCases else { return }
        let p = try parameters.index(of: sw.parameter)
        let d = parameters.definitions[p]
        guard !d.labels.isEmpty else {
            throw .invalidArgument("switch on \"\(sw.parameter)\": the parameter has no labels (define it with labels:)")
        }
        for label in sw.cases.keys.sorted() where !d.labels.contains(label) {
            throw .invalidArgument("switch on \"\(sw.parameter)\": no label \"\(label)\" (its labels: \(d.labels.joined(separator: ", ")))")
        }
        for s in sw.sounds {
            guard s.engineID == engineID else { throw .wrongEngine }
            guard sounds.slot(s) != nil else { throw .soundRemoved }
        }
    }
}
