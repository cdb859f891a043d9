// The voice pool's side of sounds (Sounds/SoundTable.swift): how loud a voice is heard, a held
// voice let go, a removed sound forgotten. Stealing for a sound's limit is `steal` in
// VoicePool+Controls.swift.
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
