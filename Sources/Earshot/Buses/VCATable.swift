/// The engine's VCAs: each one's member buses (by index), its gain and the fade moving it. The
/// one owner of VCA state; it hands the core one factor per bus (the product of the gains of the
/// VCAs the bus belongs to), which ``BusTable`` keeps beside the bus's own settings. Touched only
/// under the AL lock. A core stage before the voices that does anything only while a fade runs.
///
/// ```swift
/// let table = VCATable()
/// table.define(VCA("gameplay", buses: [.sfx, .music]), members: [0, 1])
/// _ = table.set("gameplay", gain: 0.5, fade: 0, now: 0)
/// assert(table.factors(busCount: 3) == [0.5, 0.5, 1])
/// ```
final class VCATable {
    struct Entry {
        var vca: VCA
        /// Member bus indices.
        var members: [Int]
        /// The gain, linear, ramping in amplitude over a fade.
        var gain = Mixer.WeightRamp(from: 1, to: 1)
    }

    /// The VCAs in the order they were defined.
    private(set) var entries: [Entry] = []
    /// Engine time the fades were last advanced to.
    private var clock: Double = 0
    /// Scratch for ``factors(busCount:)`` (no allocation on a steady fade).
    private var scratch: [Float] = []

    /// Whether a fade runs (a frame has something to do).
    var isFading: Bool { entries.contains { !$0.gain.isSettled } }

    func index(of name: String) -> Int? { entries.firstIndex { $0.vca.name == name } }

    /// Adds `vca` over `members` (bus indices), or gives the one of its name these members,
    /// keeping its gain and fade.
    func define(_ vca: VCA, members: [Int]) {
        if let i = index(of: vca.name) {
            entries[i].vca = vca
            entries[i].members = members
        } else {
            entries.append(Entry(vca: vca, members: members))
        }
    }

    /// Removes the VCA named `name`; false when there is none.
    func remove(_ name: String) -> Bool {
        guard let i = index(of: name) else { return false }
        entries.remove(at: i)
        return true
    }

    /// Ramps the VCA named `name` from where it is to `gain` over `fade` seconds (at once for 0);
    /// false when there is none. Fades before it are brought up to `now` first.
    func set(_ name: String, gain: Float, fade: Double, now: Double, frozen: Bool = false) -> Bool {
        advance(to: now, frozen: frozen)
        guard let i = index(of: name) else { return false }
        entries[i].gain.retarget(gain, over: fade)
        return true
    }

    /// The VCA's gain now (as of the last advance), nil for an unknown name.
    func gain(of name: String) -> Float? { index(of: name).map { entries[$0].gain.value } }

    /// Brings every fade up to `now` (none of the time while `frozen`: an interruption holds the
    /// audio). Returns whether a gain moved.
    @discardableResult
    func advance(to now: Double, frozen: Bool) -> Bool {
        let elapsed = frozen ? 0 : max(0, now - clock)
        clock = now
        var moved = false
        for i in entries.indices where !entries[i].gain.isSettled {
            entries[i].gain.advance(by: elapsed)
            moved = true
        }
        return moved
    }

    /// Per bus index: the product of the gains of the VCAs the bus is a member of (1 for none).
    func factors(busCount: Int) -> [Float] {
        if scratch.count != busCount { scratch = [Float](repeating: 1, count: busCount) }
        for b in scratch.indices { scratch[b] = 1 }
        for i in entries.indices {
            let g = entries[i].gain.value
            for b in entries[i].members where b < busCount { scratch[b] *= g }
        }
        return scratch
    }
}

/// VCA fades step in the frame before the voices, so the voices take this frame's levels.
extension VCATable: CoreStage {
    var phase: CoreStage.Phase { .beforeVoices }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        guard isFading else { return }
        if advance(to: time.now, frozen: core.interruptionHold) { core.applyVCAFactors() }
    }
}
