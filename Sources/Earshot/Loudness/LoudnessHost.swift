/// What the live per-bus loudness (``BusLoudness``) needs of the engine core, and all it reads
/// there: the clock, the bus tree and the estimated K-weighted power of each bus. It changes
/// nothing in the core. `EngineCore+Loudness.swift` conforms the core. Every call is under the
/// AL lock.
protocol LoudnessHost: AnyObject {
    /// The engine clock, seconds (playback time: frozen while paused).
    var now: Double { get }
    var busCount: Int { get }
    /// Each bus's parent index (-1: the master).
    var busParents: [Int] { get }
    /// Sets `power[b]` to bus b's own K-weighted power estimate now (its real voices: clip
    /// K-weighted block power × heard gain²; music streamed on it: its unweighted power).
    /// `power` and `all` (every element true) have `busCount` elements.
    func estimateLoudnessPower(into power: inout [Float], all: [Bool])
}
