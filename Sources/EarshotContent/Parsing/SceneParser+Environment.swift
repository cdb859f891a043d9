import Earshot
import Yams

/// The environment keys of a scene: top-level `zones:` and the emitters' `occlusion:`,
/// `obstruction:`, `airAbsorption:` and `sends:`.
extension SceneParser {
    static let zoneKeys = ["reverb", "sphere", "box", "fade", "gain"]
    static let emitterEnvironmentKeys = ["occlusion", "obstruction", "airAbsorption", "sends"]
    /// Reverb values a scene may set over a preset (`reverb: { preset: hangar, decayTime: 4 }`).
    static let reverbValueKeys = ReverbProperties.valueRanges.map(\.name)

    /// `zones: { id: { reverb: PRESET | { preset: …, decayTime: … }, sphere: { center, radius } |
    /// box: { center, size }, fade: metres, gain: 0…1 } }`, in file order.
    mutating func zones(_ node: Node) -> [ReverbZone] {
        var out: [ReverbZone] = []
        for (id, _, value) in idMapping(node, "zones") {
            let key = "zones.\(id)"
            guard let m = mapping(value, key, allowed: Self.zoneKeys, required: ["reverb"]) else { continue }
            let reverb = m["reverb"].flatMap { reverbProperties($0, "\(key).reverb") }
            var shape: ReverbZone.Shape?
            switch (m["sphere"], m["box"]) {
            case (let s?, nil):
                if let sm = mapping(s, "\(key).sphere", allowed: ["center", "radius"], required: ["radius"]) {
                    let center = sm["center"].flatMap { vector($0, "\(key).sphere.center") } ?? .zero
                    if let r = sm["radius"].flatMap({
                        number($0, "\(key).sphere.radius", in: 0.01...1e6, "metres, 0.01 or more")
                    }) {
                        shape = .sphere(center: center, radius: Float(r))
                    }
                }
            case (nil, let b?):
                if let bm = mapping(b, "\(key).box", allowed: ["center", "size"], required: ["size"]) {
                    let center = bm["center"].flatMap { vector($0, "\(key).box.center") } ?? .zero
                    if let sizeNode = bm["size"], let size = vector(sizeNode, "\(key).box.size") {
                        if size.x > 0, size.y > 0, size.z > 0 {
                            shape = .box(center: center, size: size)
                        } else {
                            fail(sizeNode, "\(key).box.size", "every side of a box must be more than 0 metres")
                        }
                    }
                }
            case (_?, let b?):
                fail(b, "\(key).box", "a zone is either a sphere or a box, not both")
            case (nil, nil):
                fail(
                    value, "\(key).sphere",
                    "required key is missing (give sphere: { center, radius } or box: { center, size })")
            }
            let fade = m["fade"].flatMap { number($0, "\(key).fade", in: 0...1e4, "metres 0…10000") } ?? 2
            let gain = m["gain"].flatMap { factor($0, "\(key).gain", in: 0...1) } ?? 1
            if let reverb, let shape {
                out.append(ReverbZone(name: id, shape: shape, reverb: reverb, fade: Float(fade), gain: Float(gain)))
            }
        }
        return out
    }

    /// A preset name, or `{ preset: NAME, <value>: number, … }` (values over the preset; the
    /// preset defaults to `generic`). An unknown name lists the nearest presets.
    mutating func reverbProperties(_ node: Node, _ key: String) -> ReverbProperties? {
        func preset(_ n: Node, _ k: String) -> ReverbProperties? {
            guard let name = string(n, k) else { return nil }
            do {
                return try ReverbProperties.preset(named: name)
            } catch {
                let near = ReverbProperties.suggestions(for: name)
                fail(n, k, "no reverb preset named \"\(name)\"" + (near.isEmpty
                    ? " (the 113 names of OpenAL Soft's efx-presets.h, lower case: generic, room, hangar, …)"
                    : " (did you mean \(near.map { "'\($0)'" }.joined(separator: ", "))?)"))
                return nil
            }
        }
        if case .scalar = node { return preset(node, key) }
        guard let m = mapping(node, key, allowed: ["preset"] + Self.reverbValueKeys) else { return nil }
        var r: ReverbProperties
        if let p = m["preset"] {
            guard let base = preset(p, "\(key).preset") else { return nil }
            r = base
        } else {
            guard let generic = try? ReverbProperties.preset(named: "generic") else { return nil }
            r = generic
        }
        for (name, range) in ReverbProperties.valueRanges {
            guard let n = m[name] else { continue }
            guard let v = number(n, "\(key).\(name)", in: range) else { continue }
            _ = r.set(name, to: v)
        }
        return r
    }

    /// The emitter's `occlusion:`, `obstruction:` (0…1), `airAbsorption:` (0…10) and `sends:`
    /// (its reverb send level, 0…1).
    mutating func emitterEnvironment(_ m: [String: Node], _ key: String) -> EnvironmentProperties {
        var e = EnvironmentProperties()
        if let n = m["occlusion"], let v = number(n, "\(key).occlusion", in: 0...1, "0 (open) … 1 (a wall)") {
            e.occlusion = Float(v)
        }
        if let n = m["obstruction"], let v = number(n, "\(key).obstruction", in: 0...1, "0 (open) … 1 (blocked)") {
            e.obstruction = Float(v)
        }
        if let n = m["airAbsorption"], let v = number(n, "\(key).airAbsorption", in: 0...10, "0 (none) … 10") {
            e.airAbsorption = Float(v)
        }
        if let n = m["sends"], let v = number(n, "\(key).sends", in: 0...1, "reverb send level 0…1") {
            e.sendGain = Float(v)
        }
        return e
    }
}
