// The voice pool, levels: how loud the real voices of a bus are now, for the sidechain's
// detector (Mix/Sidechain.swift). OpenAL gives no per-bus signal, so a real voice's level is its
// clip's level envelope at the voice's playhead — estimated on the engine clock from where its
// source started (`realOffset` at `realClock`) — times the gain it is heard at.
extension VoicePool {
    /// Where a real voice's playhead is at `now`, in clip frames: from `realOffset` at
    /// `realClock` at the clip rate times the pitch, wrapped into the clip (a loop, or a pass of a
    /// loop count: `realOffset` counts across the passes); nil for a voice past its last frame.
    @inline(__always)
    func estimatedPlayhead(ofReal index: Int, now: Double) -> Double? {
        let frames = Double(slots[index].clipFrames)
        var p = slots[index].realOffset
            + max(0, now - slots[index].realClock) * slots[index].clipRate * Double(slots[index].pitch)
        guard frames > 0, slots[index].loop || p < slots[index].totalFrames else { return nil }
        if p >= frames { p = p.truncatingRemainder(dividingBy: frames) }
        return p
    }

    /// The gain a real voice is heard at: its audibility (master, bus, voice gain, distance and
    /// cone) times its steal/resume envelope and its own envelope.
    @inline(__always)
    func heardGain(ofReal index: Int) -> Float {
        slots[index].audibility * slots[index].fade * slots[index].ownFade
    }

    /// Adds, for every real voice on a bus marked in `buses`, its power at `now` into
    /// `power[bus]`: `blockPower(clipID, playhead)` (the clip's mean square there) times the
    /// square of its heard gain (and, for a channel pair, the power its balance leaves). Visits
    /// the real voices once; allocates nothing (an index loop: `for … in` over the array
    /// allocates in debug builds, where it is not specialised).
    func accumulatePower(into power: inout [Float], buses: [Bool], now: Double,
                         blockPower: (UInt32, Double) -> Float) {
        var k = 0
        while k < real.count {
            let index = real[k]
            k += 1
            let b = slots[index].busIndex
            guard b < buses.count, buses[b], b < power.count else { continue }
            let g = heardGain(ofReal: index)
            guard g > 0, let playhead = estimatedPlayhead(ofReal: index, now: now) else { continue }
            var p = blockPower(slots[index].clipID, playhead) * g * g
            // A channel pair: what its balance leaves (VoicePool+Balance.swift).
            if slots[index].image & VoiceState.ImageFlags.paired != 0 { p *= StereoImage.balancePower(slots[index].pan) }
            power[b] += p
        }
    }
}

extension VoiceState {
    /// Moves a real voice's playhead estimate (`realOffset` at `realClock`) to `now` at the
    /// current pitch: call before the pitch changes, so that the estimate stays true after it.
    /// Returns the frames a loop wrapped away (for the voice's timeline, VoiceTimeline.swift).
    @discardableResult
    mutating func rebaseRealPlayhead(now: Double) -> Double {
        guard phase == .real, now > realClock else { return 0 }
        let p = realOffset + (now - realClock) * clipRate * Double(pitch)
        var wrapped = p
        if loop, clipFrames > 0 { wrapped = p.truncatingRemainder(dividingBy: Double(clipFrames)) }
        realOffset = wrapped
        realClock = now
        return p - wrapped
    }
}
