import Earshot

/// The scene and bank value fuzzers' bus-tree and VCA keys (issue 41): groups and children with
/// `parent:` (now and then a cycle, an unknown parent, the bus itself, a built-in bus moved into
/// a group), `vcas:` over known and unknown buses (now and then a bus twice, none), `vca:` events
/// with gains and fades at and past their edges, and plays on the children — valid values in
/// combination, and invalid ones among them. What validates must render.
extension SceneValueFuzzer {
    /// Lines under `buses:` (without the header), the `vcas:` section, and events (without `at:`).
    static func busTree(_ g: inout SplitMix64, outside: Bool, prefix: String = "") -> (buses: String, vcas: String, events: [String]) {
        func n(_ r: ClosedRange<Double>) -> String { number(&g, r, outside: outside && chance(&g, 0.1)) }
        let group = "\(prefix)gameplay", children = ["\(prefix)footsteps", "\(prefix)vehicles"]
        // Valid combinations, and in one tree in eight exactly one mistake.
        let mistake = chance(&g, 0.125) ? Int(g.next() % 6) : -1
        var buses = "  \(group): { gain: \(n(-120...24))" + (mistake == 0 ? ", parent: \(children[0])" : "") + " }\n"
        for (i, c) in children.enumerated() where chance(&g, 0.8) || i == 0 {
            // vehicles under footsteps now and then: a deeper valid path.
            let parent = mistake == 1 && i == 0 ? pick(&g, ["gamplay", c]) : i == 1 && chance(&g, 0.3) ? children[0] : group
            buses += "  \(c): { parent: \(parent)" + (chance(&g, 0.5) ? ", gain: \(n(-120...24))" : "") + " }\n"
        }
        if chance(&g, 0.2) { buses += "  ui: { parent: \(group) }\n" }   // a built-in bus in the group
        var members: [String] = []
        for _ in 0..<(mistake == 2 ? 0 : 1 + Int(g.next() % 3)) {
            let m = pick(&g, ["sfx", "music", "ui", group, children[0]])
            if !members.contains(m) { members.append(m) }
        }
        if mistake == 3 { members.append(pick(&g, ["nowhere", members.first ?? "sfx"])) }   // unknown, or twice
        let id = "\(prefix)mix"
        let vcas = "vcas:\n  \(id): { buses: [\(members.joined(separator: ", "))]" + (chance(&g, 0.6) ? ", gain: \(n(-120...24))" : "") + " }\n"
        var events: [String] = []
        for _ in 0..<Int(g.next() % 3) {
            events.append("vca: \(mistake == 4 ? "mx" : id), gain: \(n(-120...24))" + (chance(&g, 0.5) ? ", fade: \(n(0...600))" : ""))
        }
        if mistake == 5 { events.append("vca: \(id)") }   // no gain
        if chance(&g, 0.7) { events.append("play: c0, bus: \(pick(&g, children + [group]))") }
        return (buses, vcas, events)
    }
}
