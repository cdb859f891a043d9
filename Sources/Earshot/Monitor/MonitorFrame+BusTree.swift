/// The bus rows of a frame as the engine's bus tree, for a view that indents children under
/// their group (the CLI's monitor).
extension MonitorFrame {
    /// ``buses`` depth first — a group, then its children in bus order — each with its depth (0
    /// for a child of the master). A row whose parent is not in the frame (a frame cut short)
    /// stays at the top; a malformed frame's cycle is listed once, at the top.
    ///
    /// ```swift
    /// func printTree(_ frame: MonitorFrame) {
    ///     for (row, depth) in frame.busTree { print(String(repeating: "  ", count: depth) + row.name) }
    /// }
    /// ```
    public var busTree: [(row: BusRow, depth: Int)] { Self.busTree(buses) }

    /// `buses` in tree order with their depths (see ``busTree``).
    ///
    /// ```swift
    /// let rows: [MonitorFrame.BusRow] = []
    /// let ordered = MonitorFrame.busTree(rows)
    /// ```
    public static func busTree(_ buses: [BusRow]) -> [(row: BusRow, depth: Int)] {
        let names = Set(buses.map(\.name))
        var children: [String: [BusRow]] = [:]
        var top: [BusRow] = []
        for b in buses {
            if let p = b.parent, names.contains(p), p != b.name { children[p, default: []].append(b) } else { top.append(b) }
        }
        var out: [(row: BusRow, depth: Int)] = []
        var seen = Set<String>()
        var stack: [(BusRow, Int)] = top.reversed().map { ($0, 0) }
        func drain() {
            while let (b, depth) = stack.popLast() {
                guard seen.insert(b.name).inserted else { continue }
                out.append((b, depth))
                for c in (children[b.name] ?? []).reversed() { stack.append((c, depth + 1)) }
            }
        }
        drain()
        for b in buses where !seen.contains(b.name) {
            stack.append((b, 0))
            drain()
        }
        return out
    }
}
