import Earshot
import Foundation

/// Distance settings for the scene and bank fuzzers (issue 36.1, 36.2): combinations of the
/// flat keys a file's top level, a sound and an emitter share — `referenceDistance`,
/// `maxDistance`, `rolloff`, `model`, `beyondMax` and `curve` — with values at and past their
/// ranges' edges, curves of 0…65 points (increasing, repeated or decreasing distances, dB
/// at −120/+12 and past them, `silent`, `curve: ~`), `beyondMax: silent` with and without a
/// maximum.
extension SceneValueFuzzer {
    /// `, key: value…` for a flow mapping (the text starts with ", "), or block lines
    /// `key: value\n` for a top level. `newOnly`: only `model`, `beyondMax` and `curve` (where
    /// the caller writes the other three itself: a key twice would be a YAML error).
    static func distanceKeys(_ g: inout SplitMix64, outside: Bool, block: Bool = false, p: Double = 0.2, newOnly: Bool = false) -> String {
        func n(_ r: ClosedRange<Double>) -> String { number(&g, r, outside: outside && chance(&g, 0.1)) }
        var keys: [String] = []
        if !newOnly {
            if chance(&g, p) { keys.append("referenceDistance: \(chance(&g, 0.7) ? n(0.1...1) : n(1e-6...1e9))") }
            if chance(&g, p) { keys.append("maxDistance: \(chance(&g, 0.7) ? n(2...100) : n(1e-6...1e12))") }
            if chance(&g, p) { keys.append("rolloff: \(n(0...100))") }
        }
        if chance(&g, p) {
            let models = ["none", "inverse", "inverseClamped", "linear", "linearClamped", "exponent", "exponentClamped"]
            keys.append("model: \(pick(&g, outside ? models + ["cubic"] : models))")
        }
        // (`silent` without a maxDistance is refused: a valid file gives one with it.)
        if chance(&g, p) {
            keys.append("beyondMax: \(pick(&g, outside ? ["hold", "silent", "fade"] : ["hold", "silent"]))")
            if !outside, !newOnly, !keys.contains(where: { $0.hasPrefix("maxDistance") }) { keys.append("maxDistance: \(n(2...100))") }
        }
        if chance(&g, p) { keys.append("curve: \(curve(&g, outside: outside))") }
        if keys.isEmpty { return "" }
        return block ? keys.map { $0 + "\n" }.joined() : ", " + keys.joined(separator: ", ")
    }

    /// Valid curves drawn once from a fixed seed: a case picks one of these, so that a long run
    /// stays within the process's 4,096 different curves (AttenuationCurve.maxCurves) and keeps
    /// finding valid files; broken ones are drawn afresh.
    static let curvePool: [String] = {
        var g = SplitMix64(seed: 36)
        return (0..<512).map { _ in drawCurve(&g, outside: false) }
    }()

    /// An attenuation curve: mostly one of ``curvePool``, in out-of-range cases now and then
    /// broken in one way.
    static func curve(_ g: inout SplitMix64, outside: Bool) -> String {
        outside ? drawCurve(&g, outside: true) : pick(&g, curvePool)
    }

    static func drawCurve(_ g: inout SplitMix64, outside: Bool) -> String {
        if chance(&g, outside ? 0.1 : 0.02) { return pick(&g, outside ? ["~", "[]", "{ a: 1 }", "[[1]]", "[[1, loud]]", "7"] : ["~"]) }
        let count = outside && chance(&g, 0.05) ? 65 : 1 + Int(g.next() % 6)
        var d = chance(&g, 0.5) ? 0.0 : g.nextUnit() * 5
        var points: [String] = []
        for i in 0..<count {
            let level: String
            if i == count - 1, chance(&g, 0.4) {
                level = "silent"
            } else {
                level = number(&g, -120...12, outside: outside && chance(&g, 0.1))
            }
            points.append("[\(outside && chance(&g, 0.05) ? "-1" : String(d)), \(level)]")
            d += outside && chance(&g, 0.05) ? (chance(&g, 0.5) ? 0 : -1) : 0.5 + g.nextUnit() * 40
        }
        return "[\(points.joined(separator: ", "))]"
    }

    /// Distance settings an emitter sets explicitly in Swift (for plays on emitters).
    static func explicitDistance(_ g: inout SplitMix64, at position: Vector3) -> SpatialProperties {
        var s = SpatialProperties(position: position)
        if chance(&g, 0.3) { s.rolloff = Float(g.nextUnit() * 4) }
        if chance(&g, 0.3) { s.maxDistance = Float(1 + g.nextUnit() * 30) }
        if chance(&g, 0.3) { s.beyondMax = chance(&g, 0.5) ? .silent : .hold }
        if chance(&g, 0.2) { s.distanceModel = pick(&g, DistanceModel.allCases) }
        if chance(&g, 0.2) {
            s.curve = try? AttenuationCurve(points: [(1, 0), (1 + g.nextUnit() * 20, -g.nextUnit() * 60), (40, chance(&g, 0.5) ? AttenuationCurve.silent : -30)])
        }
        return s
    }
}
