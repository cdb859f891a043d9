import Earshot

/// The API fuzzer's bus-tree and VCA operations (issue 41): buses added under groups (known,
/// unknown, deep), parents set to make cycles, VCAs defined over known and unknown buses, moved
/// with gains and fades at and past their edges, removed; group stops and pauses — each a typed
/// error or a success, never a trap — then the tree is checked: no cycle, no path deeper than
/// `Bus.maxTreeDepth`, every effective gain finite and ≥ 0.
extension APIOperationFuzzer {
    static let vcaNames = ["g", "h", "", "nope", String(repeating: "v", count: 65)]

    /// One operation; returns a bus it added (if any) and what it found wrong (if anything).
    static func busTreeOperation(_ e: AudioEngine, buses: [Bus], _ g: inout SplitMix64) throws(EarshotError)
        -> (added: Bus?, finding: String?)
    {
        func bus() -> Bus { pick(&g, buses + [Bus("nowhere")]) }
        var added: Bus?
        switch g.next() % 9 {
        case 0, 1:
            let b = Bus("t\(g.next() % 12)")
            try e.addBus(b, parent: bus())
            added = b
        case 2: try e.setParent(chance(&g, 0.2) ? nil : bus(), of: bus())
        case 3:
            var members: [Bus] = []
            for _ in 0..<(g.next() % 4) { members.append(bus()) }
            try e.defineVCA(VCA(pick(&g, vcaNames), buses: members))
        case 4, 5: try e.setVCA(pick(&g, vcaNames), gain: value(&g, 0...VCA.maxGain), fade: seconds(&g))
        case 6: e.removeVCA(pick(&g, vcaNames))
        case 7: try e.stopAll(on: bus())
        default:
            if chance(&g, 0.5) { try e.pauseAll(except: [bus()]) } else { try e.setPaused(chance(&g, 0.5), for: bus()) }
        }
        return (added, check(e))
    }

    /// What is wrong with the engine's tree now, or nil.
    static func check(_ e: AudioEngine) -> String? {
        for b in e.buses {
            var k: Bus? = b
            var depth = 0
            while let c = k {
                depth += 1
                guard depth <= Bus.maxTreeDepth else { return "bus \(b): a path deeper than \(Bus.maxTreeDepth), or a cycle" }
                k = try? e.parent(of: c)
            }
            if let gain = try? e.effectiveGain(for: b), !(gain.isFinite && gain >= 0) {
                return "bus \(b): effective gain \(gain)"
            }
        }
        return nil
    }
}
