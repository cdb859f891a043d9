import Earshot
import Yams

/// The parameter keys of a scene: top-level `parameters:`, curves on the properties
/// of sounds, layers and buses, `layers:` of a sound, and `set:` events on a parameter.
extension SceneParser {
    static let parameterKeys = ["range", "default", "seek", "labels"]
    static let curveKeys = ["parameter", "curve", "shape"]
    static let layerKeys = ["clip", "gain", "pitch", "lowPass", "reverbSend", "priority"]
    static let parameterSetKeys = ["parameter", "value", "ramp", "of"]
    /// The keys a sound takes besides its own (`soundKeys`): its layers and its filter curves.
    static let soundParameterKeys = ["layers", "lowPass", "reverbSend", "switch"]
    /// The keys a bus takes besides its own (`busKeys`): curves on its voices.
    static let busParameterKeys = ["pitch", "lowPass", "reverbSend", "priority"]

    /// `parameters: { NAME: { range: [lo, hi], default, seek } }`.
    mutating func parameters(_ node: Node?) -> [SceneParameter] {
        guard let node, within(node, "parameters", ParameterDefinition.maxParametersPerEngine, "parameters") else {
            return []
        }
        var out: [SceneParameter] = []
        for (id, keyNode, value) in idMapping(node, "parameters") {
            let key = "parameters.\(id)"
            parameterNamesGiven.insert(id)
            guard id.count <= ParameterDefinition.maxNameLength else {
                fail(keyNode, key, "a parameter name has at most \(ParameterDefinition.maxNameLength) characters")
                continue
            }
            guard let m = mapping(value, key, allowed: Self.parameterKeys) else { continue }
            if m["labels"] != nil {   // SceneParser+Switches.swift
                if let p = labelledParameter(id, m, key) { out.append(p) }
                continue
            }
            if m["range"] == nil { fail(value, key, "a parameter needs range: [low, high] (or labels: [ … ])") }
            var range: ClosedRange<Double>?
            if let r = m["range"] {
                if case .sequence(let items) = r, items.count == 2,
                    let lo = number(items[0], "\(key).range[0]", in: -1e9...1e9, "a number −1e9…1e9"),
                    let hi = number(items[1], "\(key).range[1]", in: -1e9...1e9, "a number −1e9…1e9")
                {
                    if lo <= hi {
                        range = lo...hi
                    } else {
                        fail(
                            r, "\(key).range",
                            "the range [\(Self.format(lo)), \(Self.format(hi))] goes downward (give [low, high])")
                    }
                } else if case .sequence(let items) = r, items.count == 2 {
                    // The number problems are reported.
                } else {
                    fail(r, "\(key).range", "expected [low, high], got \(describe(r))")
                }
            }
            guard let range else { continue }
            let rangeText = "\(Self.format(range.lowerBound))…\(Self.format(range.upperBound))"
            let d =
                m["default"].flatMap { number($0, "\(key).default", in: range, "within the range \(rangeText)") }
                ?? range.lowerBound
            let seek =
                m["seek"].flatMap { number($0, "\(key).seek", in: 0...1e12, "units per second ≥ 0 (0 = jump)") } ?? 0
            out.append(SceneParameter(id: id, range: range, defaultValue: d, seek: seek))
        }
        return out
    }

    /// Whether `node` is written as a curve (a mapping with `parameter:`, or a list of them).
    func isCurve(_ node: Node) -> Bool {
        if case .sequence(let items) = node {
            return items.allSatisfy { if case .mapping = $0 { return true } else { return false } } && !items.isEmpty
        }
        guard case .mapping = node else { return false }
        return merged(node).contains { k, _ in
            if case .scalar(let s) = k { return s.string == "parameter" } else { return false }
        }
    }

    /// The curve(s) at `node` for `property`: `{ parameter: rpm, curve: [[x, y], …], shape: linear }`
    /// or a list of such (several curves on one property combine).
    mutating func curves(_ node: Node, _ key: String, _ property: ParameterCurve.Property) -> [ParameterCurve] {
        var items: [(Node, String)] = [(node, key)]
        if case .sequence(let list) = node {
            guard list.count <= ParameterCurve.maxCurvesPerTarget else {
                fail(
                    node, key, "at most \(ParameterCurve.maxCurvesPerTarget) curves on one property (got \(list.count))"
                )
                return []
            }
            items = list.enumerated().map { ($1, "\(key)[\($0)]") }
        }
        var out: [ParameterCurve] = []
        for (n, k) in items {
            guard let m = mapping(n, k, allowed: Self.curveKeys, required: ["parameter", "curve"]) else { continue }
            guard let pNode = m["parameter"], let p = string(pNode, "\(k).parameter") else { continue }
            if !parameterNames.contains(p) {
                fail(
                    pNode, "\(k).parameter",
                    "no parameter named \"\(p)\"" + Self.didYouMean(p, among: parameterNames.sorted())
                        + " (define it under parameters:)")
            }
            var shape = ParameterCurve.Shape.linear
            if let s = m["shape"], let v = choice(s, "\(k).shape", ParameterCurve.Shape.allCases.map(\.rawValue)) {
                shape = ParameterCurve.Shape(rawValue: v) ?? .linear
            }
            guard let cNode = m["curve"] else { continue }
            guard case .sequence(let pts) = cNode, !pts.isEmpty, pts.count <= ParameterCurve.maxPoints else {
                fail(
                    cNode, "\(k).curve",
                    "expected a list of 1…\(ParameterCurve.maxPoints) points [value, \(Self.unit(property))], got \(describe(cNode))"
                )
                continue
            }
            let yr = property.valueRange
            var points: [ParameterCurve.Point] = []
            for (i, pt) in pts.enumerated() {
                let pk = "\(k).curve[\(i)]"
                guard let xy = tuple(pt, pk, count: 2,
                                     { "expected a point [value, \(Self.unit(property))], got \($0)" }) else {
                    continue
                }
                guard let x = number(xy[0], "\(pk)[0]", in: -1e9...1e9, "a parameter value −1e9…1e9"),
                    let y = number(
                        xy[1], "\(pk)[1]", in: yr,
                        "\(Self.unit(property)) \(Self.format(yr.lowerBound))…\(Self.format(yr.upperBound))")
                else { continue }
                if let last = points.last, !(x > last.x) {
                    fail(
                        pt, pk,
                        "the points go in increasing order of value (\(Self.format(x)) comes after \(Self.format(last.x)))"
                    )
                    continue
                }
                points.append(.init(x, y))
            }
            if points.count == pts.count {
                out.append(ParameterCurve(parameter: p, property: property, points: points, shape: shape))
            }
        }
        return out
    }

    /// The names of `parameters:`.
    var parameterNames: Set<String> { parameterNamesGiven.union(parameterDefs.keys) }

    /// Each `of:` that names no emitter must name a play (`name:`).
    mutating func checkParameterTargets(_ playNames: Set<String>) {
        for t in parameterTargets where !playNames.contains(t.name) {
            fail(
                t.node, t.key,
                "no emitter or named play (name:) called \"\(t.name)\""
                    + Self.didYouMean(t.name, among: playNames.sorted()))
        }
    }

    /// A sound's `layers:`, `lowPass:` and `reverbSend:`, and the rules that tie them to its
    /// other keys (a layered sound picks no clip and has no variation).
    mutating func soundParameters(_ s: inout SceneSound, _ m: [String: Node], _ key: String, clipIDs: Set<String>) {
        s.curves += filterCurves(m, key)
        soundSwitch(&s, m, key)   // SceneParser+Switches.swift
        guard let l = m["layers"] else { return }
        if m["clips"] != nil { fail(m["clips"], "\(key).clips", "a sound has clips: or layers:, not both") }
        for k in ["select", "weights", "avoidRepeat"] where m[k] != nil {
            fail(m[k], "\(key).\(k)", "\(k) does not apply to a layered sound (its layers always play together)")
        }
        if s.pitchCents != 0 || s.gainDB != 0 {
            fail(
                m[s.pitchCents != 0 ? "pitch" : "gain"], key,
                "a layered sound has no random variation (its layers stay aligned)")
        }
        s.layers = layers(l, "\(key).layers", clipIDs: clipIDs)
        s.clips = []
        checkTimeline(s, l, key)   // SceneParser+Timeline.swift
    }

    /// A bus's curves besides `gain:` (its voices' pitch, low-pass, sends and priority).
    mutating func busCurves(_ bus: inout SceneBus, _ m: [String: Node], _ key: String) {
        for (name, property) in [("pitch", ParameterCurve.Property.pitch), ("priority", .priority)] {
            guard let n = m[name] else { continue }
            if isCurve(n) {
                bus.curves += curves(n, "\(key).\(name)", property)
            } else {
                fail(
                    n, "\(key).\(name)",
                    "a bus's \(name) is a curve ({ parameter: NAME, curve: [[value, \(Self.unit(property))], …] }), got \(describe(n))"
                )
            }
        }
        bus.curves += filterCurves(m, key)
    }

    static func unit(_ p: ParameterCurve.Property) -> String {
        switch p {
        case .gain: return "dB"
        case .pitch: return "pitch factor"
        case .lowPass: return "high-frequency gain"
        case .reverbSend: return "send level"
        case .priority: return "priority offset"
        }
    }

    /// The curves of a sound's, a layer's or a bus's `lowPass:` and `reverbSend:` (only curves).
    mutating func filterCurves(_ m: [String: Node], _ key: String) -> [ParameterCurve] {
        var out: [ParameterCurve] = []
        for (name, property) in [("lowPass", ParameterCurve.Property.lowPass), ("reverbSend", .reverbSend)] {
            guard let n = m[name] else { continue }
            if isCurve(n) {
                out += curves(n, "\(key).\(name)", property)
            } else {
                fail(
                    n, "\(key).\(name)",
                    "expected a curve ({ parameter: NAME, curve: [[value, \(Self.unit(property))], …] }), got \(describe(n))"
                )
            }
        }
        return out
    }

    /// `layers: [ { clip, gain: dB | curve, pitch: factor | curve, lowPass, reverbSend, priority: curve } ]`.
    mutating func layers(_ node: Node, _ key: String, clipIDs: Set<String>) -> [SceneLayer] {
        guard case .sequence(let items) = node, !items.isEmpty, items.count <= SoundLayer.maxLayers else {
            fail(
                node, key,
                "expected a list of 1…\(SoundLayer.maxLayers) layers ({ clip: ID, … }), got \(describe(node))")
            return []
        }
        var out: [SceneLayer] = []
        for (i, item) in items.enumerated() {
            let k = "\(key)[\(i)]"
            guard let m = mapping(item, k, allowed: Self.layerKeys + Self.layerTimingKeys) else { continue }
            guard let clip = layerClip(m, k, item, clipIDs: clipIDs) else { continue }
            var layer = SceneLayer(clip: clip)
            layerTiming(&layer, m, k, clipIDs: clipIDs)   // SceneParser+Timeline.swift
            if let g = m["gain"], !isVariation(g, "db") {
                if isCurve(g) {
                    layer.curves += curves(g, "\(k).gain", .gain)
                } else {
                    layer.gainDB = number(g, "\(k).gain", in: -120...24, "dB −120…24") ?? 0
                }
            }
            if let p = m["pitch"], !isVariation(p, "cents") {
                if isCurve(p) {
                    layer.curves += curves(p, "\(k).pitch", .pitch)
                } else {
                    layer.pitch = number(p, "\(k).pitch", in: 1.0 / 64...64, "a pitch factor 1/64…64") ?? 1
                }
            }
            if let p = m["priority"] {
                if isCurve(p) {
                    layer.curves += curves(p, "\(k).priority", .priority)
                } else {
                    fail(p, "\(k).priority", "a layer's priority is a curve (the sound's priority is the voice's)")
                }
            }
            layer.curves += filterCurves(m, k)
            out.append(layer)
        }
        return out
    }

    /// `set: { parameter, value, ramp, of }` of event `key` (`of` may also be the event's own key).
    mutating func parameterSet(
        _ node: Node, _ key: String, eventOf: Node?, eventRamp: Node?, emitterIDs: Set<String>
    ) -> SceneParameterSet? {
        guard let m = mapping(node, "\(key).set", allowed: Self.parameterSetKeys, required: ["parameter", "value"])
        else { return nil }
        guard let pNode = m["parameter"], let p = string(pNode, "\(key).set.parameter"),
              let vNode = m["value"] else { return nil }
        guard let def = parameterDefs[p] else {
            if parameterNames.contains(p) { return nil }  // defined with a problem, reported there
            fail(
                pNode, "\(key).set.parameter",
                "no parameter named \"\(p)\"" + Self.didYouMean(p, among: parameterNames.sorted())
                    + " (define it under parameters:)")
            return nil
        }
        var label: String?
        let rangeText = "\(Self.format(def.range.lowerBound))…\(Self.format(def.range.upperBound))"
        let value: Double
        if !def.labels.isEmpty {   // by label (SceneParser+Switches.swift)
            guard let (v, l) = labelSetValue(def, vNode, key) else { return nil }
            (value, label) = (v, l)
        } else {
            guard let v = number(vNode, "\(key).set.value", in: def.range, "within \(p)'s range \(rangeText)") else {
                return nil
            }
            value = v
        }
        if m["ramp"] != nil, eventRamp != nil {
            fail(eventRamp, "\(key).ramp", "give ramp: once (inside set: or beside it)")
        }
        let rampNode = m["ramp"] ?? eventRamp
        var ramp: Double?
        if let r = rampNode {
            guard
                let v = number(r, m["ramp"] != nil ? "\(key).set.ramp" : "\(key).ramp", in: 0...3_600, "seconds 0…3600")
            else { return nil }
            ramp = v
        }
        if m["of"] != nil, eventOf != nil { fail(eventOf, "\(key).of", "give of: once (inside set: or beside it)") }
        var of: String?
        if let oNode = m["of"] ?? eventOf, let o = string(oNode, "\(key).of") {
            // An emitter, or a named play: those are known once every event is read.
            if !emitterIDs.contains(o) { parameterTargets.append((o, oNode, "\(key).of")) }
            of = o
        }
        var set = SceneParameterSet(parameter: p, value: value, ramp: ramp, of: of)
        set.label = label
        return set
    }
}
