/// What the mix needs of the engine core, and all it may change there: bus lookups, the clock,
/// the voices' power per bus for the sidechain detector, and one call that applies the factors
/// it computed. ``Mixer`` owns snapshots and duckings; `EngineCore+Mix.swift` conforms the core.
/// Every call is under the AL lock.
protocol MixHost: AnyObject {
    /// The engine clock, seconds.
    var now: Double { get }
    /// How many buses the engine has (the mix's per-bus arrays follow it).
    var busCount: Int { get }
    func busIndex(_ bus: Bus) -> Int?
    /// The bus tree: each bus's parent index (-1: the master). A group's level is its subtree's.
    var busParents: [Int] { get }
    /// Whether some bus has a bus parent (else the detector measures buses one by one, as flat).
    var hasBusGroups: Bool { get }
    /// Whether an audio-session interruption holds the audio (snapshot fades stand still).
    var interruptionHold: Bool { get }
    /// The master gain (music's power is heard through it, as the voices' is).
    var masterGain: Float { get }
    /// Adds the power of the voices on every bus marked in `buses` at `now` into `power`.
    func accumulateVoicePower(into power: inout [Float], buses: [Bool], now: Double)
    /// Applies the per-bus snapshot and sidechain factors and filter layers (indexed by bus).
    func applyMix(snapshot: [Float], sidechain: [Float], filters: [Mixer.FilterLayer])
}
