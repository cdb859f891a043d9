import Earshot
import Foundation
import Yams

/// Where things are: the listener (position or path, and its turning keyframes) and the paths
/// of emitters (`position:`, or `path:` with `circle:` or `waypoints:`).
extension SceneParser {
    mutating func sceneListener(_ node: Node, key: String = "listener", weighted: Bool = false) -> SceneListener {
        var listener = SceneListener()
        let keys = ["position", "path", "at", "up", "facing"] + (weighted ? ["weight"] : [])
        guard let m = mapping(node, key, allowed: keys) else {
            return listener
        }
        if let w = m["weight"], let v = number(w, "\(key).weight", in: 0...1, "0 (ignored) … 1") { listener.weight = Float(v) }
        if let p = placement(m, node, key, required: false) { listener.path = p }
        if let n = m["at"] {
            if case .mapping = n {
                listener.atKeys = keyframes(n, "\(key).at")
            } else if let v = direction(n, "\(key).at") {
                listener.at = v
            }
            if let f = m["facing"] { fail(f, "\(key).facing", "give either at or facing: path, not both") }
        }
        if let n = m["up"] {
            if case .mapping = n {
                listener.upKeys = keyframes(n, "\(key).up")
            } else if let v = direction(n, "\(key).up") {
                listener.up = v
            }
        }
        if let f = m["facing"], choice(f, "\(key).facing", ["path"]) != nil { listener.facesPath = true }
        if listener.atKeys.isEmpty, listener.upKeys.isEmpty,
           listener.at.cross(listener.up).length < 1e-6 * listener.at.length * listener.up.length {
            fail(m["up"] ?? node, "\(key).up", "up must not point along at")
        }
        return listener
    }

    /// `{ waypoints: [[t, x, y, z], …] }` of directions (not zero), times strictly increasing.
    mutating func keyframes(_ node: Node, _ key: String) -> [SceneListener.Keyframe] {
        guard let m = mapping(node, key, allowed: ["waypoints"], required: ["waypoints"]), let w = m["waypoints"] else {
            return []
        }
        let wk = "\(key).waypoints"
        guard case .sequence(let seq) = w, !seq.isEmpty else {
            fail(w, wk, "expected a list of [t, x, y, z] (at least one)")
            return []
        }
        guard within(w, wk, SceneLimits.maxWaypoints, "keyframes") else { return [] }
        var keys: [SceneListener.Keyframe] = []
        for (i, item) in seq.enumerated() {
            let ik = "\(wk)[\(i)]"
            guard let q = tuple(item, ik, count: 4, { _ in "expected [t, x, y, z]" }) else { continue }
            guard let t = number(q[0], "\(ik)[0]", in: 0...1e9, "seconds ≥ 0"),
                let d = direction(.sequence(Node.Sequence(Array(q[1...]), Tag(.seq), .flow, q[1].mark)), ik)
            else { continue }
            if let previous = keys.last, t <= previous.time {
                fail(q[0], "\(ik)[0]", "times must increase strictly (\(t) after \(previous.time))")
                continue
            }
            keys.append(.init(time: t, direction: d))
        }
        return keys
    }

    /// `position:` or `path:` of a mapping (exclusive).
    mutating func placement(_ m: [String: Node], _ node: Node, _ key: String, required: Bool) -> ScenePath? {
        switch (m["position"], m["path"]) {
        case (let p?, nil):
            return vector(p, "\(key).position").map(ScenePath.fixed)
        case (nil, let p?):
            return path(p, "\(key).path")
        case (_?, let p?):
            fail(p, "\(key).path", "give either position or path, not both")
            return nil
        case (nil, nil):
            if required { fail(node, "\(key).position", "required key is missing (give position: [x, y, z] or path:)") }
            return nil
        }
    }

    mutating func path(_ node: Node, _ key: String) -> ScenePath? {
        guard let m = mapping(node, key, allowed: ["circle", "waypoints"]) else { return nil }
        switch (m["circle"], m["waypoints"]) {
        case (let c?, nil):
            let ck = "\(key).circle"
            guard let circle = mapping(c, ck, allowed: ["center", "radius", "period", "phase", "direction", "plane"],
                                       required: ["radius", "period"]) else { return nil }
            let center = circle["center"].flatMap { vector($0, "\(ck).center") } ?? .zero
            let radius = circle["radius"].flatMap {
                number($0, "\(ck).radius", in: 0.001...1e6, "metres, 0.001…1000000")
            }
            let period = circle["period"].flatMap {
                number($0, "\(ck).period", in: 0.001...1e6, "seconds per turn, 0.001…1000000")
            }
            let phase = circle["phase"].flatMap { number($0, "\(ck).phase", in: -360...360, "degrees −360…360") } ?? 0
            let direction = circle["direction"].flatMap { choice($0, "\(ck).direction", ["ccw", "cw"]) } ?? "ccw"
            let plane =
                circle["plane"].flatMap { choice($0, "\(ck).plane", ScenePath.CirclePlane.allCases.map(\.rawValue)) }
                .flatMap(ScenePath.CirclePlane.init(rawValue:)) ?? .xz
            guard let radius, let period else { return nil }
            return .circle(
                center: center, radius: Float(radius), period: period, phase: phase, clockwise: direction == "cw",
                plane: plane)
        case (nil, let w?):
            let wk = "\(key).waypoints"
            guard case .sequence(let seq) = w, !seq.isEmpty else {
                fail(w, wk, "expected a list of [t, x, y, z] points, got \(describe(w))")
                return nil
            }
            guard within(w, wk, SceneLimits.maxWaypoints, "waypoints") else { return nil }
            var points: [ScenePath.Waypoint] = []
            for (i, p) in seq.enumerated() {
                let pk = "\(wk)[\(i)]"
                guard let v = tuple(p, pk, count: 4,
                                    { "expected [t, x, y, z] (time in seconds, then metres), got \($0)" }) else {
                    return nil
                }
                guard let t = number(v[0], "\(pk)[0]", in: 0...1e6, "seconds ≥ 0"),
                      let x = number(v[1], "\(pk)[1]", in: -1e6...1e6, "metres"),
                      let y = number(v[2], "\(pk)[2]", in: -1e6...1e6, "metres"),
                      let z = number(v[3], "\(pk)[3]", in: -1e6...1e6, "metres") else { return nil }
                if let last = points.last, t <= last.time {
                    fail(v[0], "\(pk)[0]", "waypoint times must increase (\(t) after \(last.time))")
                    return nil
                }
                points.append(.init(time: t, position: Vector3(Float(x), Float(y), Float(z))))
            }
            return .waypoints(points)
        case (_?, let w?):
            fail(w, "\(key).waypoints", "a path is either circle or waypoints, not both")
            return nil
        case (nil, nil):
            fail(node, key, "a path needs circle: or waypoints:")
            return nil
        }
    }
}
