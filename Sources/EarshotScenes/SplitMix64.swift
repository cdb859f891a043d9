/// A small seeded random generator (SplitMix64): the same seed gives the same numbers on every
/// machine, which is what a scene's `seed:` promises (jitter that renders bit-identically).
///
/// ```swift
/// var g = SplitMix64(seed: 42)
/// let u = g.nextUnit()   // 0 ≤ u < 1, the same for seed 42 everywhere
/// ```
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0 ..< 1 with 53 bits.
    mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
