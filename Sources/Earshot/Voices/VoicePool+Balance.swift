import COpenAL

/// A stereo voice's channel buffers and, while it plays as a channel pair, its second source.
struct BalanceState {
    var channels = ClipChannelBuffers()
    /// The source playing the right channel while the voice plays as a pair (0 otherwise); the
    /// voice's own source (``VoiceState/source``) plays the left one.
    var partner: ALuint = 0
}

// The voice pool and 2D stereo voices: a stereo clip played without a position keeps its image
// and `pan` is its balance (Spatial/StereoImage.swift, `balanceGains`). OpenAL Soft 1.19.1 cannot
// set one channel's gain on a source, so such a voice plays its two channels on two mono
// sources — the left channel's buffer hard left, the right's hard right (head-relative at ±90°,
// no distance attenuation: on stereo output the far channel gets exactly 0, `Alc/ALu.c`'s
// `ScaleAzimuthFront` and the stereo decoder), each with its channel's balance gain, started
// together (`alSourcePlayv`) so that they stay sample-aligned. It is one voice: one slot, one
// handle, one standing; stopped, paused, faded, stolen and virtualised as one (its second source
// goes with its first, `releaseSource`); the ranking counts the second source as taken.
// Mono voices, positioned ones and forced-3D ones never come here.
extension VoicePool {
    /// Whether the voice in slot `index` plays as a channel pair when it takes a source: a
    /// stereo clip with no position that keeps its image (not ``SpatialMode/threeD``).
    @inline(__always)
    func wantsPair(_ index: Int) -> Bool {
        slots[index].image == VoiceState.ImageFlags.stereo && slots[index].placement == .pan
            && balance[index].channels.left != 0
    }

    /// The sources voice `index` takes when it starts: 2 for a channel pair (1 when the pool has
    /// only one). Notes that pairs are in use, for the ranking.
    func sourcesNeeded(_ index: Int) -> Int {
        guard wantsPair(index) else { return 1 }
        pairsInUse = true
        return sources.count > 1 ? 2 : 1
    }

    /// The ranking with channel pairs among its candidates: of the best `k` candidates (the
    /// first `k` of `rankScratch`, in any order), the winners that fit in `available` sources
    /// when each waiting pair needs two, moved to the front in standing order; returns how many.
    /// A pair that does not fit is passed over and the candidates below it that fit win: one
    /// source left goes to the best mono voice below, not idle (and no voice is stolen for a pair
    /// that cannot start). Passing over at most `pairs` waiting pairs, the winners are among
    /// the best `available + pairs`: the caller ranks that many. Runs only when some waiting
    /// pair is a candidate and the sources are short.
    func fitPairs(_ k: Int, available: Int) -> Int {
        rankScratch.withUnsafeMutableBufferPointer { a in
            a[0..<k].sort { $0.key > $1.key }
        }
        var need = 0, won = 0
        for j in 0..<k {
            if need == available { break }
            let i = rankScratch[j].index
            let n = slots[i].phase == .virtual ? sourcesNeeded(i) : 1   // a real pair's second source is counted already
            if need + n > available { continue }
            need += n
            rankScratch.swapAt(won, j)   // the ones passed over go behind the winners
            won += 1
        }
        return won
    }

    /// The second source of voice `index`, about to start on its first: 0 (one source) unless it
    /// wants a pair. One that finds no second source free plays on one this time, its image
    /// moving with `pan` (counted: ``EngineStats/balanceFallbacks``); it tries
    /// again the next time it takes a source.
    func takePartner(_ index: Int) -> ALuint {
        guard wantsPair(index) else { return 0 }
        guard let partner = freeSources.popLast() else {
            stats.balanceFallbacks += 1
            return 0
        }
        balance[index].partner = partner
        slots[index].image |= VoiceState.ImageFlags.paired
        partnersInUse += 1
        return partner
    }

    /// Loads the second source with the right channel as `startReal` loads the first with the
    /// left: the same passes, looping and pitch.
    func loadPartner(_ index: Int, _ partner: ALuint) {
        let right = balance[index].channels.right
        let p = Int(partner)
        if slots[index].passes > 1 {
            alSourcei(partner, AL_BUFFER, 0)
            let passes = Int(slots[index].passes)
            if queueScratch.count < passes { queueScratch = [ALuint](repeating: 0, count: passes) }
            for k in 0..<passes { queueScratch[k] = right }
            alSourceQueueBuffers(partner, ALsizei(passes), queueScratch)
            attached[p] = 0
        } else if attached[p] != right {
            alSourcei(partner, AL_BUFFER, ALint(bitPattern: right))
            attached[p] = right
        }
        if pushed[p].loop != slots[index].loop {
            alSourcei(partner, AL_LOOPING, slots[index].loop ? AL_TRUE : AL_FALSE)
            pushed[p].loop = slots[index].loop
        }
        pushPitch(slots[index].pitch, to: partner)
    }

    /// Sends the second source its placement (hard right, as the first is hard left: `main`)
    /// and its sends; a playing pair also takes its balance gains (a `pan` change: OpenAL ramps
    /// each source's gain across its next mix, so a moving balance has no step). Taken, it drops
    /// the rooms' propagation filter a positioned voice before it left there (as `pushSpatial`
    /// sets the first source's): the router multiplies it into the direct path of any source.
    func pushPartner(_ index: Int, main: SpatialProperties) {
        let partner = balance[index].partner
        var s = main
        s.position = PlayOptions.panPosition(pairSide)
        s.apply(to: partner, since: pushed[Int(partner)].spatial)
        pushed[Int(partner)].spatial = s
        let starting = slots[index].phase != .real
        router?.apply(source: partner, positioned: false, bus: slots[index].busIndex,
                      environment: environment(ofSlot: index), starting: starting)
        if starting, heardInUse { router?.setPropagationFilter(.open, source: partner) }
        if slots[index].phase == .real { pushPairGains(index) }
    }

    /// Calls `body` with each source the real voice in slot `index` plays on: its own, and its
    /// second when it plays as a channel pair (a curve's filter goes on both; ``VoiceKernel``).
    @inline(__always)
    func forEachSource(ofSlot index: Int, _ body: (ALuint) -> Void) {
        guard slots[index].phase == .real else { return }
        body(slots[index].source)
        if slots[index].image & VoiceState.ImageFlags.paired != 0 { body(balance[index].partner) }
    }

    /// Where a pair's channels go, as a `pan` (the right one; the left mirrored): where a stereo
    /// source's channels are heard — hard left and right on stereo output (OpenAL's ±30°
    /// widened to ±90°, and a mono source at ±90° gets exactly 0 on the far side), ±30° with
    /// HRTF or on surround output, where OpenAL uses the angles as given.
    var pairSide: Float { stereoPairPanning ? 1 : 1.0 / 3 }

    /// The pair's gains: the voice's gain times each channel's balance gain.
    func pushPairGains(_ index: Int) {
        let g = effectiveGain(index)
        let b = StereoImage.balanceGains(slots[index].pan)
        alSourcef(slots[index].source, AL_GAIN, g * b.left)
        alSourcef(balance[index].partner, AL_GAIN, g * b.right)
    }

    /// Stops and frees the second source of a pair leaving its sources (`releaseSource`).
    func releasePartner(_ index: Int) {
        let partner = balance[index].partner
        alSourceStop(partner)
        if slots[index].queued {
            alSourcei(partner, AL_BUFFER, 0)
            attached[Int(partner)] = 0
        }
        freeSources.append(partner)
        dropPartner(index)
    }

    /// Forgets a pair's second source (released, or lost with the device).
    func dropPartner(_ index: Int) {
        balance[index].partner = 0
        slots[index].image &= ~VoiceState.ImageFlags.paired
        partnersInUse -= 1
    }

    /// Points every live stereo voice at its clip's new channel buffers (after a rebuild).
    func rebindChannelBuffers(_ channels: (UInt32) -> ClipChannelBuffers) {
        for index in live where slots[index].image != 0 { balance[index].channels = channels(slots[index].clipID) }
    }
}
