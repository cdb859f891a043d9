import Earshot
import Yams

/// The timeline keys of a sound's layers: `delay:`, `clips:` with `select:`, `pitch: { cents }`,
/// `gain: { db }`, `loop:`, `sustain:`, `tail:` (SoundLayer.Timing).
extension SceneParser {
    static let layerTimingKeys = ["clips", "select", "delay", "loop", "sustain", "tail"]

    /// A layer's first clip: `clip: ID`, or the first of `clips: [ID, …]`.
    mutating func layerClip(_ m: [String: Node], _ k: String, _ item: Node, clipIDs: Set<String>) -> String? {
        if m["clip"] != nil, m["clips"] != nil {
            fail(m["clips"], "\(k).clips", "a layer has clip: or clips:, not both")
            return nil
        }
        if let cNode = m["clip"] {
            guard let clip = string(cNode, "\(k).clip") else { return nil }
            guard clipIDs.contains(clip) else {
                fail(cNode, "\(k).clip", "no clip named \"\(clip)\"" + Self.didYouMean(clip, among: clipIDs.sorted()))
                return nil
            }
            return clip
        }
        guard let list = m["clips"] else {
            fail(item, k, "a layer needs clip: ID or clips: [ID, …]")
            return nil
        }
        return layerClips(list, "\(k).clips", clipIDs: clipIDs)?.first
    }

    private mutating func layerClips(_ node: Node, _ key: String, clipIDs: Set<String>) -> [String]? {
        guard case .sequence(let items) = node, !items.isEmpty, items.count <= SoundDefinition.maxClips else {
            fail(node, key, "expected a list of 1…\(SoundDefinition.maxClips) clip ids, got \(describe(node))")
            return nil
        }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard let c = string(item, "\(key)[\(i)]") else { continue }
            if clipIDs.contains(c) {
                out.append(c)
            } else {
                fail(item, "\(key)[\(i)]", "no clip named \"\(c)\"" + Self.didYouMean(c, among: clipIDs.sorted()))
            }
        }
        return out.count == items.count ? out : nil
    }

    /// Whether a layer's `gain:` or `pitch:` is its random variation (`{ db: N }`, `{ cents: N }`).
    func isVariation(_ node: Node?, _ unit: String) -> Bool {
        guard let node, case .mapping = node, !isCurve(node) else { return false }
        return merged(node).contains { k, _ in
            if case .scalar(let s) = k { return s.string == unit } else { return false }
        }
    }

    /// The layer's timeline keys, into `layer.timing` when any is given.
    mutating func layerTiming(_ layer: inout SceneLayer, _ m: [String: Node], _ k: String, clipIDs: Set<String>) {
        var t = SceneLayerTiming()
        var given = false
        if let n = m["delay"] {
            given = true
            t.delay = number(n, "\(k).delay", in: 0...SoundLayer.Timing.maxDelay, "seconds 0…3600") ?? 0
        }
        if let n = m["clips"], let list = layerClips(n, "\(k).clips", clipIDs: clipIDs) {
            given = given || list.count > 1
            t.alternatives = Array(list.dropFirst())
        }
        if let n = m["select"] {
            given = true
            if m["clips"] == nil { fail(n, "\(k).select", "select: picks among the layer's clips: [ … ]") }
            if let v = choice(n, "\(k).select", SoundDefinition.Selection.allCases.map(\.rawValue)) {
                t.select = SoundDefinition.Selection(rawValue: v) ?? .random
            }
        }
        if let n = m["pitch"], isVariation(n, "cents"),
           let pm = mapping(n, "\(k).pitch", allowed: ["cents"], required: ["cents"]) {
            given = true
            t.pitchCents = pm["cents"].flatMap { number($0, "\(k).pitch.cents", in: 0...2400, "± cents 0…2400") } ?? 0
        }
        if let n = m["gain"], isVariation(n, "db"),
           let gm = mapping(n, "\(k).gain", allowed: ["db"], required: ["db"]) {
            given = true
            t.gainDB = gm["db"].flatMap { number($0, "\(k).gain.db", in: 0...48, "± dB 0…48") } ?? 0
        }
        if let n = m["loop"] {
            given = true
            t.loop = bool(n, "\(k).loop")
        }
        if let n = m["sustain"] {
            given = true
            t.sustain = bool(n, "\(k).sustain") ?? false
            if t.sustain, t.loop == false {
                fail(n, "\(k).sustain", "a sustain point on a one-shot (loop: false): the sustain layer loops until released")
            }
        }
        if let n = m["tail"] {
            given = true
            t.tail = bool(n, "\(k).tail") ?? false
            if t.tail, t.sustain { fail(n, "\(k).tail", "a layer is the sustain or a tail, not both") }
        }
        if given { layer.timing = t }
    }

    /// The rules across a timeline's layers (one sustain point; tails need one).
    mutating func checkTimeline(_ s: SceneSound, _ node: Node?, _ key: String) {
        guard s.isTimeline else { return }
        let sustains = s.layers.filter { $0.timing?.sustain == true }.count
        if sustains > 1 { fail(node, "\(key).layers", "at most one layer has sustain: true (got \(sustains))") }
        let tails = s.layers.filter { $0.timing?.tail == true }.count
        if tails > 0, sustains == 0 {
            fail(node, "\(key).layers", "tail: layers start when the sustain loop is released: give one layer sustain: true")
        }
        if tails == s.layers.count { fail(node, "\(key).layers", "a timeline needs a layer that is not a tail") }
    }
}
