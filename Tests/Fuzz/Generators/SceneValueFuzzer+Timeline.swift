import Earshot

/// The scene and bank value fuzzers' timeline and switch keys (issue 41): a labelled `surface`,
/// a timeline sound `motor` (delays, clips with select, variation, loop, sustain, tail — now and
/// then a sustain on a one-shot or a tail without a sustain), a switch `step` over `surface`
/// (cases, default, follow, fade — now and then an unknown label or sound), and `set:` events by
/// label — valid values in combination, and invalid ones among them.
extension SceneValueFuzzer {
    private static func chance(_ u: () -> Double, _ p: Double) -> Bool { u() < p }
    private static func pick<T>(_ u: () -> Double, _ items: [T]) -> T { items[min(items.count - 1, Int(u() * Double(items.count)))] }

    /// `  surface: { labels: [gravel, wood, metal] … }` (to follow a `parameters:` block).
    static func labelledParameter(_ u: () -> Double, prefix: String = "") -> String {
        var labels = ["gravel", "wood", "metal"]
        if chance(u, 0.05) { labels.append("wood") }   // a duplicate: refused
        return "  \(prefix)surface: { labels: [\(labels.joined(separator: ", "))]"
            + (chance(u, 0.5) ? ", default: \(pick(u, ["gravel", "wood", "metal", "sand"]))" : "") + " }\n"
    }

    /// `motor` (a timeline) and `step` (a switch over `surface`) with their cases, as lines of a
    /// `sounds:` block; `clips` are clip ids to draw from.
    static func timelineSounds(_ n: (ClosedRange<Double>, Bool) -> String, _ u: () -> Double, clips: [String],
                               prefix p: String = "") -> String {
        var layers: [String] = []
        let sustainAt = chance(u, 0.7) ? Int(u() * 3) : -1
        for k in 0..<(1 + Int(u() * 4) % 4) {
            var l = chance(u, 0.3) ? "clips: [\(pick(u, clips)), \(pick(u, clips))], select: \(pick(u, ["random", "shuffle", "sequence"]))"
                                   : "clip: \(pick(u, clips))"
            if chance(u, 0.7) { l += ", delay: \(n(0...3_600, false))" }
            if chance(u, 0.3) { l += ", pitch: { cents: \(n(0...2_400, false)) }" }
            if chance(u, 0.3) { l += ", gain: { db: \(n(0...48, false)) }" }
            if chance(u, 0.3) { l += ", loop: \(pick(u, ["true", "false"]))" }
            if k == sustainAt { l += ", sustain: true" }
            if k > 0, chance(u, 0.25) { l += ", tail: true" }
            layers.append("{ \(l) }")
        }
        var y = "  \(p)motor: { layers: [\(layers.joined(separator: ", "))]"
        if chance(u, 0.3) { y += ", limit: { count: \(n(1...4, true)), steal: \(pick(u, ["oldest", "quietest", "refuse", "virtual"])) }" }
        if chance(u, 0.2) { y += ", cooldown: \(n(0...1, false))" }
        y += " }\n"
        y += "  \(p)stepGravel: { clips: [\(pick(u, clips))] }\n  \(p)stepWood: { clips: [\(pick(u, clips))], loop: \(pick(u, ["true", "false"])) }\n"
        var cases = ["gravel: \(p)stepGravel", "wood: \(p)stepWood"]
        if chance(u, 0.05) { cases.append("sand: \(p)stepWood") }        // an unknown label
        if chance(u, 0.05) { cases.append("metal: \(p)nosound") }        // an unknown sound
        y += "  \(p)step: { switch: { parameter: \(chance(u, 0.97) ? "\(p)surface" : "\(p)rpm"), cases: { \(cases.joined(separator: ", ")) }"
        if chance(u, 0.5) { y += ", default: \(p)stepGravel" }
        if chance(u, 0.4) { y += ", follow: true, fade: \(n(0...60, false))" }
        return y + " } }\n"
    }

    /// A `set:` of `surface` by label (now and then one it does not have).
    static func labelSet(_ u: () -> Double, targets: [String]) -> String {
        var s = "set: { parameter: surface, value: \(pick(u, ["gravel", "wood", "metal", "metal", "sand"]))"
        if !targets.isEmpty, chance(u, 0.3) { s += ", of: \(pick(u, targets))" }
        return s + " }"
    }
}
