import Earshot
import Yams

/// Switch sounds and labelled parameters: `switch: { parameter, cases: { LABEL: SOUND }, default,
/// follow, fade }` of a sound, `labels: [ … ]` of a parameter, and a `set:` by label.
extension SceneParser {
    static let switchKeys = ["parameter", "cases", "default", "follow", "fade"]

    /// A sound's `switch:` (checked against the parameter's labels; its sounds once every sound
    /// is read, ``checkSwitches(_:)``).
    mutating func soundSwitch(_ s: inout SceneSound, _ m: [String: Node], _ key: String) {
        guard let node = m["switch"] else { return }
        let k = "\(key).switch"
        for other in ["clips", "layers"] where m[other] != nil {
            fail(m[other], "\(key).\(other)", "a switch sound plays its cases: it has no \(other):")
        }
        guard let sm = mapping(node, k, allowed: Self.switchKeys, required: ["parameter"]),
              let pNode = sm["parameter"], let p = string(pNode, "\(k).parameter") else { return }
        let labels = parameterDefs[p]?.labels
        if parameterDefs[p] == nil, !parameterNames.contains(p) {
            fail(pNode, "\(k).parameter",
                 "no parameter named \"\(p)\"" + Self.didYouMean(p, among: parameterNames.sorted()) + " (define it under parameters:)")
        } else if let labels, labels.isEmpty {
            fail(pNode, "\(k).parameter", "\"\(p)\" has no labels: a switch needs a labelled parameter (labels: [ … ])")
        }
        var sw = SceneSwitch(parameter: p, cases: [])
        if let c = sm["cases"] {
            guard within(c, "\(k).cases", SoundSwitch.maxCases, "cases") else { return }
            for (label, labelNode, value) in idMapping(c, "\(k).cases") {
                if let labels, !labels.isEmpty, !labels.contains(label) {
                    fail(labelNode, "\(k).cases.\(label)",
                         "\"\(p)\" has no label \"\(label)\"" + Self.didYouMean(label, among: labels)
                            + " (its labels: \(labels.joined(separator: ", ")))")
                    continue
                }
                guard let sound = string(value, "\(k).cases.\(label)") else { continue }
                switchRefs.append((sound, value, "\(k).cases.\(label)"))
                sw.cases.append((label, sound))
            }
        }
        if let d = sm["default"], let sound = string(d, "\(k).default") {
            switchRefs.append((sound, d, "\(k).default"))
            sw.defaultSound = sound
        }
        if sm["cases"] == nil, sm["default"] == nil { fail(node, k, "a switch needs cases: { LABEL: SOUND } or default:") }
        sw.follow = sm["follow"].flatMap { bool($0, "\(k).follow") } ?? false
        sw.fade = sm["fade"].flatMap { number($0, "\(k).fade", in: 0...60, "seconds 0…60") } ?? 0.1
        s.switchOn = sw
    }

    /// Every sound a switch names exists and is not itself a switch.
    mutating func checkSwitches(_ sounds: [SceneSound]) {
        let byID = Dictionary(sounds.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let known = Set(byID.keys).union(soundClips.keys)   // an included bank's sounds too
        for r in switchRefs {
            guard known.contains(r.sound) else {
                fail(r.node, r.key, "no sound named \"\(r.sound)\"" + Self.didYouMean(r.sound, among: known.sorted()))
                continue
            }
            if let target = byID[r.sound], target.switchOn != nil { fail(r.node, r.key, "a case is a sound of clips or layers, not another switch (\(r.sound))") }
        }
        switchRefs = []
    }

    /// A labelled parameter: `{ labels: [gravel, wood], default: wood }`.
    mutating func labelledParameter(_ id: String, _ m: [String: Node], _ key: String) -> SceneParameter? {
        guard let n = m["labels"] else { return nil }
        for other in ["range", "seek"] where m[other] != nil {
            fail(m[other], "\(key).\(other)", "a labelled parameter has labels:, not \(other):")
        }
        guard case .sequence(let items) = n, !items.isEmpty, items.count <= ParameterDefinition.maxLabels else {
            fail(n, "\(key).labels", "expected a list of 1…\(ParameterDefinition.maxLabels) labels, got \(describe(n))")
            return nil
        }
        var labels: [String] = []
        for (i, item) in items.enumerated() {
            guard let l = string(item, "\(key).labels[\(i)]") else { continue }
            if labels.contains(l) || l.utf8.count > 64 {
                fail(item, "\(key).labels[\(i)]", labels.contains(l) ? "\"\(l)\" is listed twice" : "a label has at most 64 bytes")
                continue
            }
            labels.append(l)
        }
        guard labels.count == items.count else { return nil }
        var p = SceneParameter(id: id, range: 0...Double(labels.count - 1), defaultValue: 0)
        p.labels = labels
        if let d = m["default"], let l = string(d, "\(key).default") {
            if let i = labels.firstIndex(of: l) {
                p.defaultValue = Double(i)
            } else {
                fail(d, "\(key).default", "no label \"\(l)\"" + Self.didYouMean(l, among: labels))
            }
        }
        return p
    }

    /// The value of a `set:` on labelled parameter `def`: its label (nil: reported).
    mutating func labelSetValue(_ def: SceneParameter, _ vNode: Node, _ key: String) -> (Double, String)? {
        guard let l = string(vNode, "\(key).set.value") else { return nil }
        guard let i = def.labels.firstIndex(of: l) else {
            fail(vNode, "\(key).set.value",
                 "\"\(def.id)\" has no label \"\(l)\"" + Self.didYouMean(l, among: def.labels)
                    + " (its labels: \(def.labels.joined(separator: ", ")))")
            return nil
        }
        return (Double(i), l)
    }
}
