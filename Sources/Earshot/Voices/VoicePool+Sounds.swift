// The voice pool's side of sounds (Sounds/, through ``VoiceKernel``): what a sound's rules read
// of its voices, how loud a voice is heard, a held voice let go, a removed sound forgotten.
// Stealing for a sound's limit is `steal` in VoicePool+Controls.swift.
extension VoicePool {
    /// How loud a voice is heard now: its audibility (gains, distance, cone) times its envelopes.
    func heardLevel(_ index: Int) -> Float {
        slots[index].audibility * slots[index].fade * slots[index].ownFade
    }

    /// Lets a voice held by its sound's limit compete for a source again (it joins mid-clip,
    /// fading in, like any virtual voice that wins a source).
    func release(held index: Int) {
        slots[index].limitHeld = false
        serviceNeeded = true
    }

    func gain(ofSlot index: Int) -> Float { slots[index].gain }
    func pitch(ofSlot index: Int) -> Float { slots[index].pitch }
    func priority(ofSlot index: Int) -> UInt8 { slots[index].priority }
    func isHeld(_ index: Int) -> Bool { slots[index].limitHeld }
    func emitter(ofSlot index: Int) -> Int { slots[index].emitterIndex }
    func wasStolen(_ index: Int) -> Bool { slots[index].stopReason == .stolen }

    /// The live voices of the sound `key`, oldest first (by start time, then slot).
    func voices(ofSound key: UInt32) -> [VoiceID] {
        var found: [(start: Double, id: VoiceID)] = []
        for index in live where slots[index].soundKey == key {
            found.append((slots[index].startAt, VoiceID(index: UInt32(index), generation: slots[index].generation)))
        }
        return found.sorted { ($0.start, $0.id.index) < ($1.start, $1.id.index) }.map(\.id)
    }

    /// Live voices played from the sound `key` (a scan: for queries, not for every play).
    func count(ofSound key: UInt32) -> Int {
        live.reduce(0) { $0 + (slots[$1].soundKey == key ? 1 : 0) }
    }

    /// Detaches every voice from a removed sound: they play on as clip voices.
    func forgetSound(_ key: UInt32) {
        for index in live where slots[index].soundKey == key {
            slots[index].soundKey = 0
            slots[index].limitHeld = false
        }
    }
}
