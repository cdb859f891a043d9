import Earshot
import Yams

/// The scene's loudness keys: `limiter: { ceiling: -1, truePeak: true }` (the loopback output
/// limiter, Earshot's `LimiterSettings`) and a sound's `loudness: -23` (LUFS it is normalised to).
extension SceneParser {
    static let loudnessSoundKeys = ["loudness"]
    /// The targets a sound's `loudness:` takes (LUFS).
    static let loudnessTargets: ClosedRange<Double> = -70...0

    mutating func soundLoudness(_ node: Node?, _ key: String) -> Double? {
        guard let node else { return nil }
        return number(node, "\(key).loudness", in: Self.loudnessTargets, "LUFS -70…0")
    }

    mutating func limiterSettings(_ node: Node?) -> LimiterSettings? {
        guard let node, let m = mapping(node, "limiter", allowed: ["ceiling", "truePeak"]) else { return nil }
        var settings = LimiterSettings()
        if let n = m["ceiling"], let v = number(n, "limiter.ceiling", in: LimiterSettings.ceilings) { settings.ceiling = v }
        if let n = m["truePeak"], let v = bool(n, "limiter.truePeak") { settings.truePeak = v }
        return settings
    }
}
