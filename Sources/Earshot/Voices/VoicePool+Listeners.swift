// The voice pool and several listeners (Listeners/): with a rig installed, every positioned
// voice's properties are sent, and its audibility computed, as the rig says the one OpenAL
// listener must hear them; with none (one listener) nothing is mapped.
extension VoicePool {
    /// `world` as heard through the OpenAL listener: unchanged with one listener.
    @inline(__always)
    func heard(_ world: SpatialProperties) -> SpatialProperties {
        guard let rig else { return world }
        return rig.heard(world)
    }

    /// Emitter `index`'s properties as the OpenAL listener hears them: what a stream that follows
    /// it is given (StreamHost), so that with several listeners it is heard as the voices are.
    func heardProperties(ofEmitter index: Int) -> SpatialProperties {
        heard(emitterSpatial[index])
    }

    /// Marks the positioned real voices (or only the spread ones) to send their placement at
    /// the next service, and the emitters' attenuations stale (the rig's mapping changed).
    func markSpatialDirty(spreadOnly: Bool) {
        emitterTable.rig = rig
        for index in real where slots[index].placement != .pan {
            if spreadOnly, slots[index].image & VoiceState.ImageFlags.spread == 0 { continue }
            slots[index].dirtySpatial = true
            serviceNeeded = true
        }
        if !spreadOnly { invalidateEvictionHeap() }
    }
}
