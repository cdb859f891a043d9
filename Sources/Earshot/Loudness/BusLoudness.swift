import Foundation

/// Live momentary (400 ms) and short-term (3 s) loudness of every bus and of the master, from
/// the mix's power ESTIMATES: OpenAL mixes all buses into one output, so no per-bus signal
/// exists to meter. Each game frame it takes every bus's K-weighted power (each real voice's
/// clip K-weighted block power at its playhead × the gain it is heard at, ``KWeightedLevels``),
/// holds it over the frame's engine time in 100 ms slots, and reads the mean over the last
/// 400 ms or 3 s as LUFS = −0.691 + 10·log10(power), ungated (as BS.1770 defines both). A group
/// reads its subtree; the master estimate is the sum of every bus.
///
/// Owns its state; reaches the core only through ``LoudnessHost``. Touched only under the AL
/// lock. A steady frame allocates nothing (arrays grow when a bus is added).
final class BusLoudness {
    static let slotSeconds = 0.1
    static let slotCount = 30   // 3 s of 100 ms slots
    static let momentarySeconds = 0.4
    static let shortTermSeconds = 3.0

    /// Buses metered (the master is index `buses`).
    private(set) var buses = 0
    /// Energy (power × seconds) per meter and slot: `energy[meter * slotCount + slot]`.
    private var energy: [Double] = []
    private var head = 0
    private var slotElapsed = 0.0
    private var clock: Double?
    private var power: [Float] = []
    private var total: [Float] = []
    private var all: [Bool] = []

    /// Steps the meters to `now` with the host's power estimate now.
    func step(now t: Double, host: some LoudnessHost) {
        ensureBuses(host.busCount)
        let elapsed = clock.map { max(0, t - $0) } ?? 0
        clock = t
        guard elapsed > 0 else { return }
        host.estimateLoudnessPower(into: &power, all: all)
        // A group reads its own voices and every bus below it; the master all of them.
        let parents = host.busParents
        var master: Float = 0
        for b in 0..<buses { total[b] = 0 }
        for b in 0..<buses {
            let p = power[b]
            guard p > 0 else { continue }
            master += p
            var k = b, depth = 0
            while k >= 0, k < buses, depth <= buses {   // depth: a malformed tree cannot loop
                total[k] += p
                k = k < parents.count ? parents[k] : -1
                depth += 1
            }
        }
        total[buses] = master
        advance(by: min(elapsed, Self.shortTermSeconds + Self.slotSeconds))
    }

    /// Holds `total` for `seconds`, slot by slot.
    private func advance(by seconds: Double) {
        var remaining = seconds
        let meters = buses + 1
        while remaining > 0 {
            let take = min(remaining, Self.slotSeconds - slotElapsed)
            for m in 0..<meters { energy[m * Self.slotCount + head] += Double(total[m]) * take }
            slotElapsed += take
            remaining -= take
            if slotElapsed >= Self.slotSeconds - 1e-9 {
                head = (head + 1) % Self.slotCount
                for m in 0..<meters { energy[m * Self.slotCount + head] = 0 }
                slotElapsed = 0
            }
        }
    }

    /// The mean power of meter `m` over the last `window` seconds (a whole number of slots, ≤ 3 s):
    /// the current partial slot, the full ones before it, and the share of the oldest that the
    /// window still covers.
    private func meanPower(meter m: Int, window: Double) -> Double {
        let base = m * Self.slotCount
        let n = Int((window / Self.slotSeconds).rounded())
        var sum = energy[base + head]
        var slot = head
        for _ in 1..<n {
            slot = (slot + Self.slotCount - 1) % Self.slotCount
            sum += energy[base + slot]
        }
        if slotElapsed > 0, n < Self.slotCount {
            slot = (slot + Self.slotCount - 1) % Self.slotCount
            sum += energy[base + slot] * (Self.slotSeconds - slotElapsed) / Self.slotSeconds
        }
        return sum / window
    }

    static func lufs(power: Double) -> Double {
        power > 0 && power.isFinite ? -0.691 + 10 * log10(power) : -.infinity
    }

    /// Momentary and short-term LUFS of bus `bus` (an index), or of the master for `bus == nil`;
    /// −∞ for silence or a bus not yet metered.
    func reading(ofBus bus: Int?) -> (momentary: Double, shortTerm: Double) {
        let m = bus ?? buses
        guard m >= 0, m <= buses, !energy.isEmpty, bus.map({ $0 < buses }) ?? true else { return (-.infinity, -.infinity) }
        return (Self.lufs(power: meanPower(meter: m, window: Self.momentarySeconds)),
                Self.lufs(power: meanPower(meter: m, window: Self.shortTermSeconds)))
    }

    /// Sizes the arrays for `count` buses, keeping what the old ones measured; the master's
    /// slots move to the new last meter.
    private func ensureBuses(_ count: Int) {
        guard count > buses || energy.isEmpty else { return }
        let old = energy, oldBuses = buses
        buses = count
        energy = [Double](repeating: 0, count: (count + 1) * Self.slotCount)
        if !old.isEmpty {
            for i in 0..<(oldBuses * Self.slotCount) { energy[i] = old[i] }
            for s in 0..<Self.slotCount { energy[count * Self.slotCount + s] = old[oldBuses * Self.slotCount + s] }
        }
        power = [Float](repeating: 0, count: count)
        total = [Float](repeating: 0, count: count + 1)
        all = [Bool](repeating: true, count: count)
    }
}

/// Steps after the voices, so a frame's starts and gains are in its estimate.
extension BusLoudness: CoreStage {
    var phase: CoreStage.Phase { .afterVoices }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) { step(now: time.now, host: core) }
}
