/// A small seeded random generator (SplitMix64): the same seed gives the same numbers on every
/// machine.
///
/// The engine draws every random choice from one of these — which clip of a ``Sound`` plays, its
/// pitch and gain variation — seeded by ``AudioEngine/Configuration/randomSeed``, so the same
/// seed and the same calls render bit-identically; a scene's `seed:` uses it for its jitter too.
/// It is not for cryptography.
///
/// ```swift
/// var g = SplitMix64(seed: 42)
/// let u = g.nextUnit()                 // 0 ≤ u < 1, the same for seed 42 everywhere
/// let die = Int.random(in: 1...6, using: &g)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose numbers follow from `seed` alone.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0 ..< 1 with 53 random bits.
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
