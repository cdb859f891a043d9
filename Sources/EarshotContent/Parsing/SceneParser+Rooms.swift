import Earshot
import Yams

/// The rooms keys of a scene or a bank: top-level `rooms:` and `portals:` (the level's acoustic
/// geometry, ``AcousticGeometry``) and the `portal:` event that opens or closes a portal.
extension SceneParser {
    static let roomKeys = ["box", "rotation", "reverb", "walls", "priority"]
    static let portalKeys = ["between", "center", "size", "normal", "open"]

    /// `rooms: { id: { box: { center, size } | { min, max }, rotation: degrees, reverb: PRESET |
    /// { … }, walls: MATERIAL | { material } | { loss: dB, hf: 0…1 }, priority: N } }` and
    /// `portals: { id: { between: [roomA, roomB | outside], center, size: [w, h], normal, open } }`,
    /// checked together as the engine checks them (``AcousticGeometry/validated()``).
    mutating func geometry(rooms: Node?, portals: Node?) -> AcousticGeometry {
        var g = AcousticGeometry()
        if let n = rooms, within(n, "rooms", AcousticGeometry.maxRooms, "rooms") {
            for (id, _, value) in idMapping(n, "rooms") {
                if let r = room(value, id: id) { g.rooms.append(r) }
            }
        }
        if let n = portals, within(n, "portals", AcousticGeometry.maxPortals, "portals") {
            for (id, _, value) in idMapping(n, "portals") {
                if let p = portal(value, id: id) { g.portals.append(p) }
            }
        }
        guard problems.isEmpty, !g.isEmpty else { return g }
        do {
            _ = try g.validated()
        } catch {
            let message = error.description.replacingOccurrences(of: "invalid argument: ", with: "")
            fail(message.hasPrefix("portal") ? portals ?? rooms : rooms ?? portals, message.hasPrefix("portal") ? "portals" : "rooms", message)
        }
        return g
    }

    private mutating func room(_ node: Node, id: String) -> Room? {
        let key = "rooms.\(id)"
        guard let m = mapping(node, key, allowed: Self.roomKeys, required: ["box"]) else { return nil }
        guard let boxNode = m["box"], let bm = mapping(boxNode, "\(key).box", allowed: ["center", "size", "min", "max"]) else {
            return nil
        }
        var center: Vector3?, size: Vector3?
        switch (bm["size"], bm["min"], bm["max"]) {
        case (let s?, nil, nil):
            center = bm["center"].flatMap { vector($0, "\(key).box.center") } ?? .zero
            size = vector(s, "\(key).box.size")
        case (nil, let lo?, let hi?):
            if let c = bm["center"] { fail(c, "\(key).box.center", "give center and size, or min and max, not both") }
            if let a = vector(lo, "\(key).box.min"), let b = vector(hi, "\(key).box.max") {
                center = (a + b) * 0.5
                size = b - a
            }
        default:
            fail(boxNode, "\(key).box", "a room's box is { center, size } or { min, max }")
            return nil
        }
        guard let center, let size else { return nil }
        guard size.x > 0, size.y > 0, size.z > 0 else {
            fail(boxNode, "\(key).box", "every side of a room's box must be more than 0 metres (max above min)")
            return nil
        }
        let rotation = m["rotation"].flatMap { number($0, "\(key).rotation", in: -360...360, "degrees about the vertical, −360…360") } ?? 0
        let reverb = m["reverb"].flatMap { reverbProperties($0, "\(key).reverb") }
        let walls = m["walls"].flatMap { self.walls($0, "\(key).walls") } ?? .concrete
        let priority = m["priority"].flatMap { integer($0, "\(key).priority", in: -1000...1000) } ?? 0
        return Room(id: id, center: center, size: size, rotation: Float(rotation), reverb: reverb, walls: walls, priority: priority)
    }

    /// `walls: concrete`, `{ material: concrete }` or `{ loss: dB, hf: 0…1 }`.
    private mutating func walls(_ node: Node, _ key: String) -> Walls? {
        let names = Walls.materials.map(\.name)
        if case .scalar = node {
            guard let name = choice(node, key, names) else { return nil }
            return try? Walls.material(named: name)
        }
        guard let m = mapping(node, key, allowed: ["material", "loss", "hf"]) else { return nil }
        if let mat = m["material"] {
            for k in ["loss", "hf"] where m[k] != nil { fail(m[k], "\(key).\(k)", "give a material or loss and hf, not both") }
            guard let name = choice(mat, "\(key).material", names) else { return nil }
            return try? Walls.material(named: name)
        }
        guard let lossNode = m["loss"] else {
            fail(node, "\(key).loss", "required key is missing (give material: NAME, or loss: dB with hf: 0…1)")
            return nil
        }
        guard let loss = number(lossNode, "\(key).loss", in: 0...120, "dB 0…120") else { return nil }
        let hf = m["hf"].flatMap { number($0, "\(key).hf", in: 0...1, "0 (no highs) … 1 (all)") } ?? 1
        return Walls(loss: Float(loss), hf: Float(hf))
    }

    private mutating func portal(_ node: Node, id: String) -> Portal? {
        let key = "portals.\(id)"
        guard let m = mapping(node, key, allowed: Self.portalKeys, required: ["between", "center", "size", "normal"]),
            let betweenNode = m["between"], let centerNode = m["center"], let sizeNode = m["size"], let normalNode = m["normal"]
        else { return nil }
        guard let pair = tuple(betweenNode, "\(key).between", count: 2, { "expected [roomA, roomB] (or [room, outside]), got \($0)" }),
            let a = string(pair[0], "\(key).between[0]"), let b = string(pair[1], "\(key).between[1]")
        else { return nil }
        guard let wh = tuple(sizeNode, "\(key).size", count: 2, { "expected [width, height] (metres), got \($0)" }),
            let w = number(wh[0], "\(key).size[0]", in: 0.01...1e4, "metres 0.01…10000"),
            let h = number(wh[1], "\(key).size[1]", in: 0.01...1e4, "metres 0.01…10000")
        else { return nil }
        guard let center = vector(centerNode, "\(key).center"), let normal = direction(normalNode, "\(key).normal") else { return nil }
        let open = m["open"].flatMap { number($0, "\(key).open", in: 0...1, "0 (shut) … 1 (open)") } ?? 1
        let (first, second) = a == Portal.outside ? (b, a) : (a, b)
        if first == Portal.outside { fail(betweenNode, "\(key).between", "a portal joins at least one room") }
        return Portal(id: id, between: first, and: second, center: center, width: Float(w), height: Float(h),
                      normal: normal, openness: Float(open))
    }

    /// The `portal:` event: `{ at, portal: ID, open: 0…1, ramp: seconds }`.
    mutating func portalEvent(_ m: [String: Node], _ node: Node, key: String, portals: Set<String>) -> SceneEvent.Action? {
        guard let idNode = m["portal"], let id = string(idNode, "\(key).portal") else { return nil }
        if !portals.contains(id) { fail(idNode, "\(key).portal", unknown("portal", id, portals)) }
        guard let openNode = m["open"] else {
            fail(node, "\(key).open", "required key is missing (open: 0 shut … 1 open)")
            return nil
        }
        guard let open = number(openNode, "\(key).open", in: 0...1, "0 (shut) … 1 (open)") else { return nil }
        let ramp = m["ramp"].flatMap { number($0, "\(key).ramp", in: 0...3_600, "seconds 0…3600") } ?? 0
        return .portal(id: id, open: Float(open), ramp: ramp)
    }
}
