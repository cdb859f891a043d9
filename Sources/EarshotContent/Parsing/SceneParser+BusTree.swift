import Earshot
import Yams

/// The bus tree of a scene or a bank: `buses: { NAME: { parent: GROUP } }`. A parent is a built-in
/// bus or one under `buses:` (of the file or of a bank it includes); the tree has no cycle and no
/// path deeper than Earshot's `Bus.maxTreeDepth` — the engine's rules (`addBus(_:parent:)`,
/// `setParent(_:of:)`), checked here so that `validate` refuses what the engine would.
extension SceneParser {
    /// A bus's `parent:`: a known bus other than itself, or a problem.
    mutating func busParent(_ node: Node, _ key: String, of bus: String, _ names: Set<String>) -> String? {
        guard let parent = busName(node, key, names) else { return nil }
        guard parent != bus else {
            fail(node, key, "a bus cannot be its own parent")
            return nil
        }
        return parent
    }

    /// Refuses a cycle in the tree the file's buses and its included banks' make, and a path from
    /// the master deeper than `Bus.maxTreeDepth`, at the `parent:` of each own bus on one.
    mutating func checkBusTree(_ own: [SceneBus], included: [SceneBus], at node: Node?) {
        var parents: [String: String] = [:]
        for b in included + own { if let p = b.parent { parents[b.name] = p } }
        for b in own where b.parent != nil {
            var seen: [String] = [b.name]
            var k = parents[b.name]
            while let p = k, !seen.contains(p) {
                seen.append(p)
                k = parents[p]
            }
            let key = "buses.\(b.name).parent"
            let at = parentNode(of: b.name, in: node) ?? node
            if let p = k {   // came back to a bus already on the path
                let loop = seen.drop { $0 != p } + [p]
                fail(at, key, "the bus tree has a cycle: " + loop.joined(separator: " → ") + " (a bus cannot be below itself)")
            } else if seen.count > Bus.maxTreeDepth {
                fail(
                    at, key,
                    "the path master → \(seen.reversed().joined(separator: " → ")) holds \(seen.count) buses; at most \(Bus.maxTreeDepth)")
            }
        }
    }

    /// The `parent:` node of bus `name` under `buses:`.
    private func parentNode(of name: String, in node: Node?) -> Node? {
        guard case .mapping(let m)? = node else { return nil }
        for (k, v) in m {
            guard case .scalar(let s) = k, s.string == name, case .mapping(let bm) = v else { continue }
            for (bk, bv) in bm { if case .scalar(let bs) = bk, bs.string == "parent" { return bv } }
        }
        return nil
    }
}
