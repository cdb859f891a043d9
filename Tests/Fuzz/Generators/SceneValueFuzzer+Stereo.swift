import Earshot

/// Stereo and split-screen keys for the scene and bank fuzzers (issue 39): a sound's `spatial:`
/// (2d, 3d; `4d` out of range) with `spread:` (0…360 at and past its edges; a 2d sound with a
/// spread is an error), `spread:` on emitters and plays (the stereo clip `c4` among them), and
/// `listeners:` — 1…8 listeners (0 and 9 out of range) on positions or paths, facing or not,
/// with weights at and past 0…1 (in valid cases never `listener:` beside it).
extension SceneValueFuzzer {
    /// `, spatial: …, spread: …` for a sound's flow mapping, or "".
    static func imageKeys(_ g: inout SplitMix64, outside: Bool, p: Double = 0.3) -> String {
        var keys = ""
        var twoD = false
        if chance(&g, p) {
            let mode = pick(&g, outside ? ["2d", "3d", "4d"] : ["2d", "3d"])
            twoD = mode == "2d"
            keys += ", spatial: \(mode)"
        }
        if (!twoD || outside), chance(&g, p) { keys += spreadKey(&g, outside: outside, p: 1) }
        return keys
    }

    /// `, spread: …` (degrees) with chance `p`, or "".
    static func spreadKey(_ g: inout SplitMix64, outside: Bool, p: Double = 0.2) -> String {
        guard chance(&g, p) else { return "" }
        return ", spread: \(number(&g, 0...360, outside: outside && chance(&g, 0.2)))"
    }

    /// A `listeners:` block of 1…8 listeners (0 or 9 out of range).
    static func listeners(_ g: inout SplitMix64, outside: Bool) -> String {
        let count = outside && chance(&g, 0.1) ? pick(&g, [0, 9]) : 1 + Int(g.next() % 8)
        guard count > 0 else { return "listeners: []\n" }
        var y = "listeners:\n"
        for _ in 0..<count {
            var m = chance(&g, 0.5) ? "position: \(vector(&g, 100))" : "path: \(path(&g))"
            if chance(&g, 0.3) { m += chance(&g, 0.3) ? ", facing: path" : ", at: \(vector(&g, 1)), up: [0, 1, 0]" }
            if chance(&g, 0.5) { m += ", weight: \(number(&g, 0...1, outside: outside && chance(&g, 0.2)))" }
            y += "  - { \(m) }\n"
        }
        return y
    }
}
