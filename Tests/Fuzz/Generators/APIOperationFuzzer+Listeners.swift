import Earshot

/// The API fuzzer's listener operations (issue 39): listeners added past the eight an engine
/// has, removed (the first, a removed one again), moved, turned and weighted with values at and
/// past their ranges — a zero or NaN `at`, `at` along `up`, weights −0, 1 + ε, NaN — and the
/// whole list replaced (empty, nine); plays with `spatialMode` and `spread`. Each a typed error,
/// an ignored value or a success, never a trap.
extension APIOperationFuzzer {
    static func listener(_ g: inout SplitMix64) -> Listener {
        let at: Vector3 = chance(&g, 0.1)
            ? pick(&g, [.zero, Vector3(0, 1, 0), Vector3(.nan, 0, 0), Vector3(0, -2, 0)])
            : Vector3(value(&g, -1...1), value(&g, -1...1), value(&g, -1...1))
        return Listener(position: vector(&g), velocity: chance(&g, 0.3) ? vector(&g) : .zero, at: at,
                        up: chance(&g, 0.9) ? Vector3(0, 1, 0) : vector(&g), gain: chance(&g, 0.9) ? 1 : value(&g, 0...4),
                        weight: chance(&g, 0.5) ? 1 : value(&g, 0...1))
    }

    /// One listener operation on `e`; `ids` are the handles it added (some since removed).
    static func listenerOperation(_ e: AudioEngine, ids: inout [ListenerID], _ g: inout SplitMix64) throws(EarshotError) {
        switch g.next() % 7 {
        case 0, 1:
            let id = try e.addListener(listener(&g))   // past 8: a typed error
            ids.append(id)
            if ids.count > 16 { ids.removeFirst(8) }
        case 2:
            guard let id = ids.isEmpty ? e.listenerIDs.first : pick(&g, ids) else { return }
            try e.removeListener(chance(&g, 0.1) ? e.listenerIDs[0] : id)   // the first, or a removed one: typed errors
        case 3:
            let all = e.listenerIDs
            try e.setListener(listener(&g), for: chance(&g, 0.5) || ids.isEmpty ? pick(&g, all) : pick(&g, ids))
        case 4:
            e.listeners = (0..<(g.next() % 10)).map { _ in listener(&g) }   // 0 or 9: ignored, logged
        case 5:
            try e.setListeners((0..<(g.next() % 10)).map { _ in listener(&g) })
        default:
            if let id = ids.last { _ = try e.listener(id) }
            _ = e.listeners
            e.listener = listener(&g)
        }
    }

    /// A play's stereo options: a mode, and a spread at and past 0…360.
    static func image(_ options: inout PlayOptions, _ g: inout SplitMix64) {
        if chance(&g, 0.15) { options.spatialMode = pick(&g, SpatialMode.allCases) }
        if chance(&g, 0.15) { options.spread = value(&g, 0...360) }
    }
}
