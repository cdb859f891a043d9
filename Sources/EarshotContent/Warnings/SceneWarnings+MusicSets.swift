import Earshot

/// Warnings about music sets: a set no event starts, a state no event can reach, and a rule that
/// never applies in this scene because its `from` state is never entered.
extension Scene {
    func musicSetWarnings() -> [SceneWarning] {
        guard !self.musicSets.isEmpty else { return [] }
        var out: [SceneWarning] = []
        func warn(_ key: String, _ message: String) {
            out.append(warning(at: nil, key, message))
        }
        var entered: [String: Set<String>] = [:]
        for e in events + followUps.map(\.event) {
            guard case .musicSet(let id, let a) = e.action,
                let def = self.musicSets.first(where: { $0.id == id })?.definition
            else { continue }
            switch a {
            case .state(let s): entered[id, default: []].insert(s)
            case .play(let s): if let name = s ?? def.states.first?.name { entered[id, default: []].insert(name) }
            default: entered[id, default: []].formUnion([])
            }
        }
        for set in self.musicSets where !isIncluded("music.\(set.id)") {
            let key = "music.\(set.id)"
            guard let states = entered[set.id], !states.isEmpty else {
                warn(key, "never plays (no event names a state of it or says action: play)")
                continue
            }
            // A bridge leads to the rule's `to` state only; every state an event names is entered.
            for (i, rule) in set.definition.transitions.enumerated()
            where rule.from != "*" && !states.contains(rule.from) {
                warn(
                    key,
                    "transitions[\(i)] (from \(rule.from)) never applies in this scene: no event enters \(rule.from)")
            }
        }
        return out
    }
}
