import COpenAL

/// Where a positioned voice is heard from when it is not where it is, and the filter its path
/// puts on it: the rooms' propagation (Rooms/) hears a voice in the next room from the door it
/// comes through, at the length of its path, darker round the corner. Kept with the voice's
/// generation, so the slot's next voice starts without it.
struct HeardPlacement {
    var generation: UInt32 = .max
    var position = Vector3.zero
    var filter = LowPassFilter.open
}

extension VoicePool {
    /// The heard position of the voice in slot `index`, nil when it has none (heard where it is).
    @inline(__always)
    func heardPosition(_ index: Int) -> Vector3? {
        heard[index].generation == slots[index].generation ? heard[index].position : nil
    }

    /// The voice's properties as OpenAL is given them (through the listener rig), at its heard
    /// position when the rooms hear it elsewhere: what the engine's own distance gain and the
    /// ranking measure, so that a voice in another room is as far as its way is long.
    @inline(__always)
    func heardSpatial(_ index: Int) -> SpatialProperties {
        var s = heard(voiceSpatial(index))
        if heardInUse, let p = heardPosition(index) { s.position = p }
        return s
    }

    /// Whether the voice in slot `index` is heard from elsewhere (``heardInUse`` checked first:
    /// with no geometry ever set, one load).
    @inline(__always)
    func hasHeardPlacement(_ index: Int) -> Bool {
        heardInUse && heard[index].generation == slots[index].generation
    }

    /// The audibility of a voice with a heard placement: at its heard position, through its
    /// path's broadband loss (diffraction, openness or the walls), so that a voice behind a
    /// closed door or far along a corridor ranks as quietly as it is heard. Out of line: only
    /// voices the rooms place pay for it.
    @inline(never)
    func heardAudibility(_ index: Int) -> Float {
        let bus = busGains[slots[index].busIndex] * masterGain * slots[index].gain
        return bus * heardSpatial(index).attenuation(listenerPosition: listenerPosition, model: distanceModel)
            * heard[index].filter.gain
    }

    /// The propagation filter of the voice in slot `index` (open when it has no heard placement).
    func heardFilter(_ index: Int) -> LowPassFilter {
        heard[index].generation == slots[index].generation ? heard[index].filter : .open
    }

    /// Hears the voice in slot `index` from `position` through `filter` (nil: where it is, unfiltered).
    /// A real voice's source changes at once (inside the caller's AL section); a virtual one
    /// takes both when it starts (`pushSpatial`).
    func setHeard(ofSlot index: Int, position: Vector3?, filter: LowPassFilter) {
        guard slots[index].placement != .pan else { return }
        let g = slots[index].generation
        let had = heard[index].generation == g
        if let position {
            // A filter within 0.05 dB of the one applied is kept: a moving voice's path changes
            // a little every frame, and each filter change costs the source a round of EFX calls.
            let keep = had && Self.close(heard[index].filter, filter)
            if had, heard[index].position == position, keep { return }
            heardInUse = true
            heard[index] = HeardPlacement(generation: g, position: position, filter: keep ? heard[index].filter : filter)
        } else {
            guard had else { return }
            heard[index].generation = .max
        }
        // The engine's share of the distance gain follows the heard position (the way's length),
        // as OpenAL's does.
        if engineDistanceInUse { updateDistanceGain(index) }
        guard slots[index].phase == .real else { return }
        let source = slots[index].source
        pushPosition(index, to: source)
        router?.setPropagationFilter(position == nil ? .open : heard[index].filter, source: source)
    }

    /// Sends the last zone send of the voice in slot `index` to room reverb slot `slot` (0: back
    /// to the zones): the reverb of its own room when the listener is in another (Rooms/). A
    /// virtual voice takes it when the rooms next see it real.
    func setRoomSend(ofSlot index: Int, to slot: ALuint) {
        guard slots[index].placement != .pan, slots[index].phase == .real else { return }
        router?.setRoomSend(slot, source: slots[index].source)
    }

    /// Whether two filters differ by less than 0.05 dB in both gains (or are both exactly open).
    @inline(__always)
    static func close(_ a: LowPassFilter, _ b: LowPassFilter) -> Bool {
        if a == b { return true }
        if (a.gain == 1) != (b.gain == 1) || (a.gainHF == 1) != (b.gainHF == 1) { return false }
        return abs(a.gain - b.gain) <= 0.0058 * max(a.gain, b.gain) && abs(a.gainHF - b.gainHF) <= 0.0058 * max(a.gainHF, b.gainHF)
    }
}

extension VoicePool {
    /// Calls `body` with the slot, generation and position of every live positioned voice.
    @inline(__always)
    func forEachPositioned(_ body: (Int, UInt32, Vector3) -> Void) {
        for index in live {
            guard let p = position(ofSlot: index) else { continue }
            body(index, slots[index].generation, p)
        }
    }

    /// The voice's distance × cone gain were it at `position` (its own or its emitter's settings).
    func attenuation(ofSlot index: Int, at position: Vector3) -> Float {
        var s = voiceSpatial(index)
        s.position = position
        return s.attenuation(listenerPosition: listenerPosition, model: distanceModel)
    }
}
