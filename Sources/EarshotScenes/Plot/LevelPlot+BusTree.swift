import EarshotContent

/// The bus lane as the scene's bus tree: each group followed by the buses below it, each child
/// labelled with its group (`gameplay › footsteps`), so a lane's legend says whose level a
/// child's curve includes (a child's effective gain is the product along its path).
extension LevelPlot {
    /// ``SceneTimeline/buses`` indices depth first (a group, then its children in lane order),
    /// each with its legend label.
    static func busTreeOrder(_ t: SceneTimeline) -> [(index: Int, label: String)] {
        let index = Dictionary(t.buses.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        func parent(_ name: String) -> String? {
            guard let p = t.busParents[name], index[p] != nil, p != name else { return nil }
            return p
        }
        var out: [(index: Int, label: String)] = []
        var seen = Set<String>()
        func visit(_ name: String) {
            guard seen.insert(name).inserted, let i = index[name] else { return }
            out.append((i, parent(name).map { "\($0) › \(name)" } ?? name))   // the group only: short at any depth
            for child in t.buses where parent(child) == name { visit(child) }
        }
        for name in t.buses where parent(name) == nil { visit(name) }
        for name in t.buses where !seen.contains(name) { visit(name) }   // a cycle cannot come from a validated scene
        return out
    }
}
