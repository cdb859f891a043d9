/// One sidechain ducking in force: `source` ducks `target` (bus indices) by ``Ducking``.
///
/// Stepped once per frame with the source's level: above the threshold it (re)starts the hold;
/// while the level is above or the hold runs, the duck moves toward ``Ducking/level`` at
/// `|level| / attack` dB per second, otherwise back toward 0 dB at `|level| / release`. The
/// gain is that many dB, linear in dB.
struct Sidechain {
    var target: Int
    var source: Int
    var ducking: Ducking
    /// The duck now, in dB (≤ 0).
    private(set) var decibels: Double = 0
    /// Engine time the source was last heard above the threshold.
    private(set) var lastAbove: Double = -.infinity
    /// ``AudioEngine/setDucking(_:of:by:)`` removed it: it releases, then goes.
    var removing = false

    init(target: Int, source: Int, ducking: Ducking) {
        self.target = target
        self.source = source
        self.ducking = ducking
    }

    /// The linear gain of the duck (exactly 1 when not ducked).
    var gain: Float { decibels == 0 ? 1 : DuckRamp.gain(decibels: decibels) }

    /// Whether it has released fully after being removed.
    var isFinished: Bool { removing && decibels == 0 }

    /// Whether the duck is on at `now`: the source above the threshold, or its hold running.
    func isDucking(level: Double, now: Double) -> Bool {
        guard !removing else { return false }
        return level > ducking.threshold || now - lastAbove < ducking.hold
    }

    /// One step: the source's level is `level` dBFS at `now`, `elapsed` seconds after the last
    /// step. Returns whether the gain moved.
    mutating func step(level: Double, now: Double, elapsed: Double) -> Bool {
        if !removing, level > ducking.threshold { lastAbove = now }
        let target = isDucking(level: level, now: now) ? ducking.level : 0
        guard decibels != target else { return false }
        let before = decibels
        let down = target < decibels
        let time = down ? ducking.attack : ducking.release
        // The rate that covers the whole ducking level in `time` (or what is left, when a
        // ducking was changed to a shallower level while ducked).
        let span = max(abs(ducking.level), abs(decibels))
        if time <= 0 || span <= 0 {
            decibels = target
        } else {
            let step = span / time * max(0, elapsed)
            decibels = down ? max(target, decibels - step) : min(target, decibels + step)
        }
        return decibels != before
    }
}
