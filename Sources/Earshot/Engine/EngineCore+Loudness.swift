/// The core as the live bus loudness's host (AL lock held): ``BusLoudness`` reads each bus's
/// K-weighted power estimate through ``LoudnessHost`` and changes nothing here.
extension EngineCore: LoudnessHost {
    func estimateLoudnessPower(into power: inout [Float], all: [Bool]) {
        for b in power.indices { power[b] = 0 }
        pool.accumulatePower(into: &power, buses: all, now: now) { clip, playhead in
            Int(clip) < clips.count ? clips[Int(clip)].loudnessLevels.power(at: playhead) : 0
        }
        mixer.addStreamedPower(into: &power, masterGain: masterGain)   // music: unweighted power
    }
}
