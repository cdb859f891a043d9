import Earshot

/// The monitor's bus list as the engine's tree (``MonitorFrame/busTree``): each group followed by
/// its children, indented, with the level its path gives them.
extension MonitorView {
    /// One bus's line: its name indented by its depth, own gain, meter, level, duck, VCA, state.
    static func busLine(_ b: MonitorFrame.BusRow, depth: Int, held: Double? = nil) -> String {
        let state = b.muted ? "muted" : b.held ? "held" : b.paused ? "paused" : ""
        let duck = b.duckDB < -0.05 ? String(format: " duck %.1f", b.duckDB) : ""
        let vca = (b.vcaDB ?? 0) < -0.05 || (b.vcaDB ?? 0) > 0.05 ? String(format: " vca %.1f", b.vcaDB ?? 0) : ""
        let tree = depth > 0 ? String(format: " → %.1f dB", b.effectiveDB) : ""
        return pad("  " + String(repeating: "  ", count: depth) + b.name, 10 + 2 * depth)
            + String(format: "%7.1f dB ", b.gainDB) + meter(b.levelDBFS, width: 24)
            + String(format: " %7.1f dBFS", b.levelDBFS)
            + loudnessColumn(momentary: b.momentaryLUFS, shortTerm: b.shortTermLUFS, held: held)
            + tree + duck + vca + (state.isEmpty ? "" : " \(state)")
    }
}
