import Earshot

/// The scene value fuzzer's game-parameter keys (issue 28): `parameters:` with edge ranges,
/// defaults and seeks; a layered sound `car` of two to four layers with curves on every property,
/// in every shape, with points at and past their ranges (and now and then out of order); bus
/// curves; and `set: { parameter, value, ramp, of }` events, global or of a named play or an
/// emitter — valid values in combination, and invalid ones among them.
extension SceneValueFuzzer {
    // The helpers draw through `u` (a uniform 0…1 from the case's generator) and `n` (a value of
    // a range, as the scene's other keys are drawn), both closures over that generator.
    private func chance(_ u: () -> Double, _ p: Double) -> Bool { u() < p }
    private func pick<T>(_ u: () -> Double, _ items: [T]) -> T { items[min(items.count - 1, Int(u() * Double(items.count)))] }

    /// `parameters:` with `rpm` (0…8000) and `x` (a range drawn at its edges).
    func parameters(_ n: (ClosedRange<Double>, Bool) -> String, _ u: () -> Double) -> String {
        var y = "parameters:\n  rpm: { range: [0, 8000], default: \(n(0...8_000, false)), seek: \(n(0...1e6, false)) }\n"
        if chance(u, 0.5) {
            let lo = u() < 0.5 ? -1e9 : (u() - 0.5) * 2e3
            y += "  x: { range: [\(lo), \(u() < 0.05 ? n(-1e9...1e9, false) : String(lo + u() * 1e3))]" + (chance(u, 0.5) ? ", seek: \(n(0...10, false))" : "") + " }\n"
        }
        return y
    }

    /// A curve on `rpm` for `property`: 1…5 points within (or at the edges of) its ranges.
    func curve(_ n: (ClosedRange<Double>, Bool) -> String, _ u: () -> Double, _ property: ParameterCurve.Property) -> String {
        let r = property.valueRange
        var x = -100.0
        var points: [String] = []
        for _ in 0..<(1 + Int(u() * 5) % 5) {
            x += chance(u, 0.03) ? -10 : 1 + u() * 3_000   // now and then out of order
            points.append("[\(x), \(n(r, false))]")
        }
        let shape = chance(u, 0.6) ? ", shape: \(pick(u, ParameterCurve.Shape.allCases.map(\.rawValue)))" : ""
        return "{ parameter: \(chance(u, 0.97) ? "rpm" : "rmp"), curve: [\(points.joined(separator: ", "))]\(shape) }"
    }

    /// `car`: a layered sound of 2…4 layers with curves (sometimes a list of two on one property).
    func layeredSound(_ n: (ClosedRange<Double>, Bool) -> String, _ u: () -> Double) -> String {
        var layers: [String] = []
        for _ in 0..<(2 + Int(u() * 3) % 3) {
            var l = "clip: \(pick(u, ["c0", "c2", "c3", "c4"]))"
            if chance(u, 0.6) {
                l += ", gain: " + (chance(u, 0.2) ? "[\(curve(n, u, .gain)), \(curve(n, u, .gain))]" : curve(n, u, .gain))
            } else if chance(u, 0.5) {
                l += ", gain: \(n(-120...24, false))"
            }
            if chance(u, 0.3) { l += ", pitch: " + (chance(u, 0.5) ? curve(n, u, .pitch) : n(1.0 / 64...64, false)) }
            if chance(u, 0.2) { l += ", lowPass: \(curve(n, u, .lowPass))" }
            if chance(u, 0.2) { l += ", reverbSend: \(curve(n, u, .reverbSend))" }
            if chance(u, 0.1) { l += ", priority: \(curve(n, u, .priority))" }
            layers.append("{ \(l) }")
        }
        var s = "  car: { layers: [\(layers.joined(separator: ", "))]"
        if chance(u, 0.4) { s += ", pitch: \(curve(n, u, .pitch))" }
        if chance(u, 0.2) { s += ", priority: \(curve(n, u, .priority))" }
        if chance(u, 0.2) { s += ", lowPass: \(curve(n, u, .lowPass)), reverbSend: \(curve(n, u, .reverbSend))" }
        if chance(u, 0.3) { s += ", limit: { count: \(n(1...4, true)), steal: \(pick(u, ["oldest", "quietest", "refuse", "virtual"])) }" }
        if chance(u, 0.2) { s += ", loop: false" }
        if chance(u, 0.03) { s += ", select: shuffle" }   // refused with layers
        return s + " }\n"
    }

    /// A `set:` event on a parameter (without its `at:`): global, or `of:` a target.
    func parameterSet(_ n: (ClosedRange<Double>, Bool) -> String, _ u: () -> Double, targets: [String]) -> String {
        var s = "set: { parameter: rpm, value: \(n(0...8_000, false))"
        if chance(u, 0.5) { s += ", ramp: \(n(0...3_600, false))" }
        if !targets.isEmpty, chance(u, 0.5) { s += ", of: \(pick(u, targets))" }
        return s + " }"
    }
}
