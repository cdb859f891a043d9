/// The core as the mix's host (AL lock held): ``Mixer`` owns snapshots and duckings and reaches
/// the core only through ``MixHost``; the core applies the factors it computes to the buses and
/// the send router's bus filters.
extension EngineCore: MixHost {
    var busCount: Int { busTable.count }
    var busParents: [Int] { busTable.parents }
    var hasBusGroups: Bool { busTable.hasGroups }

    func accumulateVoicePower(into power: inout [Float], buses: [Bool], now: Double) {
        pool.accumulatePower(into: &power, buses: buses, now: now) { clip, playhead in
            Int(clip) < clips.count ? clips[Int(clip)].levels.power(at: playhead) : 0
        }
    }

    /// Writes the mix's factors; the voices are marked only when a factor changed (and the
    /// subsystems hear of it through ``busChanges``).
    func applyMix(snapshot: [Float], sidechain: [Float], filters: [Mixer.FilterLayer]) {
        for b in filters.indices { sendRouter.setBusMix(filters[b], bus: b) }
        if busTable.setMixFactors(snapshot: snapshot, sidechain: sidechain) {
            mixer.noteSynced()
            syncBuses()
        }
    }

    /// Music's power per bus now (``MusicHost/setStreamedPower(_:)``).
    func setStreamedPower(_ power: [Bus: Float]) { mixer.setStreamedPower(power, host: self) }
}
