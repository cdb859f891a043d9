import Earshot

/// The monitor's bus list as the engine's tree: each group followed by its children, indented.
extension MonitorView {
    /// `buses` depth first (a group, then its children in bus order), each with its depth (0 for a
    /// child of the master). A row whose parent is not in the list (an older engine's frame)
    /// stays at the top.
    static func busTree(_ buses: [MonitorFrame.BusRow]) -> [(row: MonitorFrame.BusRow, depth: Int)] {
        let names = Set(buses.map(\.name))
        var children: [String: [MonitorFrame.BusRow]] = [:]
        var top: [MonitorFrame.BusRow] = []
        for b in buses {
            if let p = b.parent, names.contains(p), p != b.name { children[p, default: []].append(b) } else { top.append(b) }
        }
        var out: [(row: MonitorFrame.BusRow, depth: Int)] = []
        var seen = Set<String>()
        func visit(_ b: MonitorFrame.BusRow, _ depth: Int) {
            guard seen.insert(b.name).inserted, depth <= Bus.maxTreeDepth else { return }
            out.append((b, depth))
            for c in children[b.name] ?? [] { visit(c, depth + 1) }
        }
        for b in top { visit(b, 0) }
        for b in buses where !seen.contains(b.name) { visit(b, 0) }   // a malformed frame's cycle
        return out
    }

    /// One bus's line: its name indented by its depth, own gain, meter, level, duck, VCA, state.
    static func busLine(_ b: MonitorFrame.BusRow, depth: Int) -> String {
        let state = b.muted ? "muted" : b.held ? "held" : b.paused ? "paused" : ""
        let duck = b.duckDB < -0.05 ? String(format: " duck %.1f", b.duckDB) : ""
        let vca = (b.vcaDB ?? 0) < -0.05 || (b.vcaDB ?? 0) > 0.05 ? String(format: " vca %.1f", b.vcaDB ?? 0) : ""
        let tree = depth > 0 ? String(format: " → %.1f dB", b.effectiveDB) : ""
        return pad("  " + String(repeating: "  ", count: depth) + b.name, 10 + 2 * depth)
            + String(format: "%7.1f dB ", b.gainDB) + meter(b.levelDBFS, width: 24)
            + String(format: " %7.1f dBFS", b.levelDBFS) + tree + duck + vca + (state.isEmpty ? "" : " \(state)")
    }
}
