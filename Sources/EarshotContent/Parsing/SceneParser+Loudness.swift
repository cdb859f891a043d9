import Earshot
import Yams

/// The scene's loudness keys: `limiter: { ceiling: -1, truePeak: true }` (the loopback output
/// limiter, Earshot's `LimiterSettings`).
extension SceneParser {
    mutating func limiterSettings(_ node: Node?) -> LimiterSettings? {
        guard let node, let m = mapping(node, "limiter", allowed: ["ceiling", "truePeak"]) else { return nil }
        var settings = LimiterSettings()
        if let n = m["ceiling"], let v = number(n, "limiter.ceiling", in: LimiterSettings.ceilings) { settings.ceiling = v }
        if let n = m["truePeak"], let v = bool(n, "limiter.truePeak") { settings.truePeak = v }
        return settings
    }
}
