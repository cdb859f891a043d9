import Earshot
import Foundation

/// The loudness keys for the scene fuzzer (issue 40): `limiter: { ceiling:, truePeak: }` with
/// ceilings at and past −20…0, both modes, each key alone or both, and in out-of-range cases a
/// wrong type, an unknown key or an empty mapping; a clip's mapping form `{ file:, loudness:,
/// gain: }` (scenes and banks) with its fields alone and together, at and past their ranges. A valid case renders through the limiter it
/// names (the true-peak detector included), so validate and render must agree on it.
extension SceneValueFuzzer {
    /// A generator of its own, seeded by the scene text so far: the loudness keys draw nothing
    /// from the case's generator, so every other key of a seed's cases stays as it was (the
    /// bounded runs' counts of valid, layered and tree scenes hold).
    /// The text is read without the checkout's own path (``checkoutFree(_:)``), so a seed's cases
    /// are the same wherever the package is cloned: the bounded runs' counts hold in CI's clone.
    static func sideGenerator(_ text: String) -> SplitMix64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a
        for byte in checkoutFree(text).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return SplitMix64(seed: hash)
    }

    /// `text` with every absolute path into an `Assets` folder cut to `Assets/…`.
    static func checkoutFree(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let r = rest.range(of: "/Assets/") {
            let head = rest[..<r.lowerBound]
            // The path starts after the last space, quote, bracket, comma or colon before it.
            let start = head.lastIndex(where: { " \n\"'[{(,:".contains($0) }).map { head.index(after: $0) } ?? head.startIndex
            out += head[..<start] + "Assets/"
            rest = rest[r.upperBound...]
        }
        return out + rest
    }

    static func loudnessKeys(after text: String, outside: Bool) -> String {
        var g = sideGenerator(text + "limiter")
        return loudnessKeys(&g, outside: outside)
    }

    static func soundLoudnessKey(after text: String, outside: Bool) -> String {
        var g = sideGenerator(text + "loudness")
        return soundLoudnessKey(&g, outside: outside)
    }

    static func loudnessKeys(_ g: inout SplitMix64, outside: Bool, p: Double = 0.1) -> String {
        guard chance(&g, p) else { return "" }
        if outside, chance(&g, 0.2) {
            return "limiter: \(pick(&g, ["~", "[]", "-1", "{ ceiling: loud }", "{ truePeak: yes }", "{ ceil: -1 }", "{ ceiling: [-1] }", "{}"]))\n"
        }
        var keys: [String] = []
        let range = Double(LimiterSettings.ceilings.lowerBound)...Double(LimiterSettings.ceilings.upperBound)
        if chance(&g, 0.8) { keys.append("ceiling: \(number(&g, range, outside: outside && chance(&g, 0.3)))") }
        if chance(&g, 0.7) { keys.append("truePeak: \(pick(&g, ["true", "false", "true"]))") }
        return "limiter: { \(keys.joined(separator: ", ")) }\n"
    }

    /// `, loudness: LUFS` for a sound's flow mapping (−70…0, its edges and past them; in
    /// out-of-range cases a word or a list), or nothing.
    static func soundLoudnessKey(_ g: inout SplitMix64, outside: Bool, p: Double = 0.3) -> String {
        guard chance(&g, p) else { return "" }
        if outside, chance(&g, 0.2) { return ", loudness: \(pick(&g, ["loud", "[-23]", "~", "-23 LUFS"]))" }
        return ", loudness: \(number(&g, -70...0, outside: outside && chance(&g, 0.3)))"
    }

    /// A clip entry's value for `file`: the path as it is, or (drawn off the main sequence, by
    /// the text so far and the id) `{ file:, loudness:, gain: }` — targets −70…0 and gains
    /// −120…24 at and past their edges (a target a quiet file cannot reach is refused where it
    /// is written, by validate and render alike); in out-of-range cases the file missing, a
    /// second unknown key, a word for a number or a list for the mapping.
    static func clipEntry(_ file: String, id: String, after text: String, outside: Bool, p: Double = 0.25) -> String {
        var g = sideGenerator(text + "clip " + id)
        guard chance(&g, p) else { return file }
        if outside, chance(&g, 0.2) {
            return pick(&g, ["{ loudness: -23 }", "{ file: \(file), lufs: -23 }", "{ file: \(file), loudness: loud }",
                             "[\(file)]", "{ file: \(file), gain: { db: 3 } }", "{ file: [\(file)] }", "{}"])
        }
        var keys = ["file: \(file)"]
        // Mostly targets the assets can reach (a target needing more than +24 dB is refused, and
        // would leave few valid scenes), sometimes the range's edges.
        if chance(&g, 0.8) {
            let target = chance(&g, 0.7) ? number(&g, -36 ... -14, outside: false)
                : number(&g, -70...0, outside: outside && chance(&g, 0.3))
            keys.append("loudness: \(target)")
        }
        if chance(&g, 0.4) { keys.append("gain: \(number(&g, -120...24, outside: outside && chance(&g, 0.3)))") }
        if chance(&g, 0.3) { keys.swapAt(0, keys.count - 1) }   // `file:` need not come first
        return "{ \(keys.joined(separator: ", ")) }"
    }
}
