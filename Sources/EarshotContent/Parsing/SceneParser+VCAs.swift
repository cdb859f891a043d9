import Earshot
import Yams

/// The VCAs of a scene or a bank: `vcas: { ID: { buses: [sfx, music], gain: dB } }` (Earshot's
/// `VCA`: a level over a set of buses that routes nothing), and the `vca:` event that moves one.
extension SceneParser {
    static let vcaKeys = ["buses", "gain"]

    /// `vcas:`: each VCA's member buses (known buses, each once, 1…`VCA.maxBuses`) and its gain.
    mutating func vcas(_ node: Node?, busNames: Set<String>) -> [SceneVCA] {
        guard let node, within(node, "vcas", SceneLimits.maxVCAs, "VCAs") else { return [] }
        var out: [SceneVCA] = []
        for (id, idNode, value) in idMapping(node, "vcas") {
            let key = "vcas.\(id)"
            do throws(EarshotError) { try VCA(id, buses: []).validate() } catch {
                if case .invalidArgument(let why) = error { fail(idNode, key, why) }
                continue
            }
            guard let m = mapping(value, key, allowed: Self.vcaKeys, required: ["buses"]), let b = m["buses"] else {
                continue
            }
            guard case .sequence(let items) = b, (1...VCA.maxBuses).contains(items.count) else {
                fail(b, "\(key).buses", "expected a list of 1…\(VCA.maxBuses) bus names, got \(describe(b))")
                continue
            }
            var vca = SceneVCA(id: id, buses: [])
            for (i, item) in items.enumerated() {
                guard let name = busName(item, "\(key).buses[\(i)]", busNames) else { continue }
                guard !vca.buses.contains(name) else {
                    fail(item, "\(key).buses[\(i)]", "bus \"\(name)\" is named twice")
                    continue
                }
                vca.buses.append(name)
            }
            vca.gainDB = m["gain"].flatMap { gainDB($0, "\(key).gain", in: -120...24) }
            out.append(vca)
        }
        return out
    }

    /// A `vca:` event: `{ at, vca: ID, gain: dB, fade: seconds }`.
    mutating func vcaEvent(_ m: [String: Node], _ node: Node, key: String) -> SceneEvent.Action? {
        guard let idNode = m["vca"], let id = string(idNode, "\(key).vca") else { return nil }
        if !vcaNames.contains(id) { fail(idNode, "\(key).vca", unknown("VCA", id, vcaNames)) }
        guard let g = m["gain"], let db = gainDB(g, "\(key).gain", in: -120...24) else { return nil }
        let fade = m["fade"].flatMap { number($0, "\(key).fade", in: 0...600, "seconds 0…600") } ?? 0
        return .vca(id: id, gainDB: db, fade: fade)
    }
}
