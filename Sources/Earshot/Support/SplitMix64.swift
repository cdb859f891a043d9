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

    /// A generator for stream `stream` of `seed`: each stream's numbers are independent of every
    /// other's (the pair goes through the SplitMix64 finaliser twice), where `seed + k × increment`
    /// would only start the same sequence `k` steps later.
    ///
    /// ```swift
    /// var a = SplitMix64(seed: 7, stream: 0), b = SplitMix64(seed: 7, stream: 1)
    /// _ = a.next() != b.next()   // unrelated, not shifted copies
    /// ```
    public init(seed: UInt64, stream: UInt64) {
        state = Self.mix(Self.mix(seed) ^ Self.mix(stream &+ 0x632B_E59B_D9B4_E019))
    }

    /// SplitMix64's finaliser: a bijection of 64 bits that spreads every input bit over the output.
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A number in 0 ..< 1 with 53 random bits.
    public mutating func nextUnit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
