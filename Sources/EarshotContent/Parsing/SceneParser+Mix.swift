import Earshot
import Yams

/// The mixing keys of a scene: top-level `sounds:`, `buses:` and `snapshots:`. Their
/// ranges are those of ``SoundDefinition``, ``Snapshot`` and ``Ducking``.
extension SceneParser {
    static let soundKeys =
        ["clips", "select", "weights", "avoidRepeat", "pitch", "gain", "limit", "cooldown", "bus", "priority", "loop"]
        + attenuationKeys + imageKeys + loudnessSoundKeys
    static let busKeys = ["gain", "ducks", "parent"] + busParameterKeys
    static let duckKeys = ["level", "attack", "release", "threshold", "hold"]

    /// `buses: { NAME: { gain: dB, ducks: { OTHER: { level, attack, release, threshold, hold } } } }`.
    /// Every name under `buses:` (and each `ducks:` target) becomes a bus of the scene; `ducks:`
    /// targets must be built-in buses or named under `buses:`. Returns the buses and every bus name.
    mutating func buses(_ node: Node?) -> (buses: [SceneBus], names: Set<String>) {
        var names = Set(SceneBus.builtIn).union(includedBusNames).union(includerBusNames)
        guard let node, within(node, "buses", SceneLimits.maxBuses, "buses") else { return ([], names) }
        let entries = idMapping(node, "buses")
        for (name, nameNode, _) in entries {
            // The engine's rule (Bus.validate): not empty, printable, at most 64 UTF-8 bytes.
            do throws(EarshotError) { try Bus(name).validate() } catch {
                if case .invalidArgument(let why) = error { fail(nameNode, "buses.\(name)", why) }
                continue
            }
            names.insert(name)
        }
        if names.count > SceneLimits.maxBuses {
            fail(
                node, "buses",
                "\(names.count) buses with the built-in ones; a scene may have at most \(SceneLimits.maxBuses)")
        }
        var out: [SceneBus] = []
        for (name, _, value) in entries where names.contains(name) {
            let key = "buses.\(name)"
            var bus = SceneBus(name: name)
            guard let m = mapping(value, key, allowed: Self.busKeys) else { continue }
            if let g = m["gain"], isCurve(g) {
                bus.curves += curves(g, "\(key).gain", .gain)
            } else {
                bus.gainDB = m["gain"].flatMap { gainDB($0, "\(key).gain", in: -120...24) }
            }
            busCurves(&bus, m, key)
            if let p = m["parent"] { bus.parent = busParent(p, "\(key).parent", of: name, names) }   // SceneParser+BusTree.swift
            if let d = m["ducks"] {
                for (target, targetNode, spec) in idMapping(d, "\(key).ducks") {
                    let dk = "\(key).ducks.\(target)"
                    guard names.contains(target) else {
                        fail(
                            targetNode, dk,
                            "no bus named \"\(target)\"" + Self.didYouMean(target, among: names.sorted())
                                + " (buses: the built-in \(SceneBus.builtIn.joined(separator: ", ")) and those under buses:)"
                        )
                        continue
                    }
                    guard target != name else {
                        fail(targetNode, dk, "a bus cannot duck itself")
                        continue
                    }
                    guard let dm = mapping(spec, dk, allowed: Self.duckKeys) else { continue }
                    var duck = SceneBus.Duck(target: target)
                    if let v = dm["level"].flatMap({ number($0, "\(dk).level", in: -120...0, "dB −120…0") }) {
                        duck.level = v
                    }
                    if let v = dm["attack"].flatMap({ number($0, "\(dk).attack", in: 0...10, "seconds 0…10") }) {
                        duck.attack = v
                    }
                    if let v = dm["release"].flatMap({ number($0, "\(dk).release", in: 0...10, "seconds 0…10") }) {
                        duck.release = v
                    }
                    if let v = dm["threshold"].flatMap({ number($0, "\(dk).threshold", in: -120...0, "dBFS −120…0") }) {
                        duck.threshold = v
                    }
                    if let v = dm["hold"].flatMap({ number($0, "\(dk).hold", in: 0...10, "seconds 0…10") }) {
                        duck.hold = v
                    }
                    bus.ducks.append(duck)
                }
            }
            out.append(bus)
        }
        return (out, names)
    }

    /// A bus name of the scene, or a problem naming the known ones.
    mutating func busName(_ node: Node, _ key: String, _ names: Set<String>) -> String? {
        guard let name = string(node, key) else { return nil }
        guard names.contains(name) else {
            fail(node, key, "no bus named \"\(name)\"" + Self.didYouMean(name, among: names.sorted())
                 + " (buses: the built-in \(SceneBus.builtIn.joined(separator: ", ")) and those under buses:)")
            return nil
        }
        return name
    }

    /// `sounds: { id: { clips: [...], select, weights, avoidRepeat, pitch: { cents }, gain: { db },
    /// limit: { count, steal, perEmitter }, cooldown, bus, priority, loop } }`.
    mutating func sounds(_ node: Node, clipIDs: Set<String>, busNames: Set<String>) -> [SceneSound] {
        var out: [SceneSound] = []
        for (id, keyNode, value) in idMapping(node, "sounds") {
            let key = "sounds.\(id)"
            if clipIDs.contains(id) {
                fail(
                    keyNode, key,
                    "\"\(id)\" is a clip id too; clips and sounds share one namespace (play: names either)")
                continue
            }
            // A layered sound has `layers:` instead of `clips:` (SceneParser+Parameters.swift).
            let layered = merged(value).contains { k, _ in
                if case .scalar(let ks) = k { return ks.string == "layers" || ks.string == "switch" } else { return false }
            }
            guard
                let m = mapping(
                    value, key, allowed: Self.soundKeys + Self.soundParameterKeys, required: layered ? [] : ["clips"])
            else { continue }
            var clips: [String] = []
            if let c = m["clips"] {
                if case .sequence(let items) = c, !items.isEmpty, items.count <= SoundDefinition.maxClips {
                    for (i, item) in items.enumerated() {
                        guard let clip = string(item, "\(key).clips[\(i)]") else { continue }
                        if clipIDs.contains(clip) {
                            clips.append(clip)
                        } else {
                            fail(
                                item, "\(key).clips[\(i)]",
                                "no clip named \"\(clip)\"" + Self.didYouMean(clip, among: clipIDs.sorted()))
                        }
                    }
                } else {
                    fail(
                        c, "\(key).clips",
                        "expected a list of 1…\(SoundDefinition.maxClips) clip ids, got \(describe(c))")
                }
            }
            var listed: Int?
            if case .sequence(let items)? = m["clips"] { listed = items.count }
            var s = SceneSound(id: id, clips: clips)
            if let n = m["select"],
                let v = choice(n, "\(key).select", SoundDefinition.Selection.allCases.map(\.rawValue))
            {
                s.select = SoundDefinition.Selection(rawValue: v) ?? .random
            }
            if let n = m["weights"] {
                if case .sequence(let items) = n {
                    let w = items.enumerated().compactMap {
                        number($1, "\(key).weights[\($0)]", in: 0...1e6, "a weight 0…1000000")
                    }
                    if w.count == items.count { s.weights = w }
                } else {
                    fail(n, "\(key).weights", "expected a list of weights, one per clip, got \(describe(n))")
                }
            }
            s.avoidRepeat = m["avoidRepeat"].flatMap { integer($0, "\(key).avoidRepeat", in: 0...255) } ?? 0
            if let n = m["pitch"], isCurve(n) {
                s.curves += curves(n, "\(key).pitch", .pitch)
            } else if let n = m["pitch"], let pm = mapping(n, "\(key).pitch", allowed: ["cents"], required: ["cents"]) {
                s.pitchCents =
                    pm["cents"].flatMap { number($0, "\(key).pitch.cents", in: 0...2400, "± cents 0…2400") } ?? 0
            }
            if let n = m["gain"], case .scalar = n {
                // A number: the sound's level in dB (the mapping form varies it: `{ db: ± dB }`).
                s.levelDB = gainDB(n, "\(key).gain", in: -120...24) ?? 0
            } else if let n = m["gain"], isCurve(n) {
                s.curves += curves(n, "\(key).gain", .gain)
            } else if let n = m["gain"], let gm = mapping(n, "\(key).gain", allowed: ["db"], required: ["db"]) {
                s.gainDB = gm["db"].flatMap { number($0, "\(key).gain.db", in: 0...48, "± dB 0…48") } ?? 0
            }
            if let n = m["limit"],
                let lm = mapping(n, "\(key).limit", allowed: ["count", "steal", "perEmitter"], required: ["count"])
            {
                let count = lm["count"].flatMap {
                    integer($0, "\(key).limit.count", in: 1...SoundDefinition.maxInstanceCount)
                }
                let steal =
                    lm["steal"].flatMap {
                        choice($0, "\(key).limit.steal", SoundDefinition.StealMode.allCases.map(\.rawValue))
                    }
                    .flatMap(SoundDefinition.StealMode.init(rawValue:)) ?? .oldest
                let per = lm["perEmitter"].flatMap {
                    integer($0, "\(key).limit.perEmitter", in: 1...SoundDefinition.maxInstanceCount)
                }
                if let count {
                    if let per, per > count {
                        fail(
                            lm["perEmitter"], "\(key).limit.perEmitter",
                            "\(per) is more than the sound's count \(count)")
                    }
                    s.limit = SoundDefinition.InstanceLimit(count: count, steal: steal, perEmitter: per)
                }
            }
            s.cooldown = m["cooldown"].flatMap { number($0, "\(key).cooldown", in: 0...3600, "seconds 0…3600") } ?? 0
            if let n = m["bus"], let b = busName(n, "\(key).bus", busNames) { s.bus = b }
            if let n = m["priority"], isCurve(n) {
                s.curves += curves(n, "\(key).priority", .priority)
            } else {
                s.priority =
                    m["priority"].flatMap { integer($0, "\(key).priority", in: 0...255) }.map(UInt8.init) ?? 128
            }
            soundParameters(&s, m, key, clipIDs: clipIDs)
            s.loudness = soundLoudness(m["loudness"], key)   // SceneParser+Loudness.swift
            // Layers are loops unless said otherwise; a timeline's are one-shots unless they say.
            s.loop = m["loop"].flatMap { bool($0, "\(key).loop") } ?? (!s.layers.isEmpty && !s.isTimeline)
            s.attenuation = readAttenuation(m, key, over: sceneAttenuation, at: value)
            // The rules that tie keys together, as SoundDefinition.validate() states them.
            if let w = s.weights {
                if s.select != .random { fail(m["weights"], "\(key).weights", "weights apply to select: random only") }
                if let listed, w.count != listed {
                    fail(m["weights"], "\(key).weights", "\(w.count) weights for \(listed) clips (one weight per clip)")
                } else if w.reduce(0, +) <= 0 {
                    fail(m["weights"], "\(key).weights", "the weights are all 0")
                }
            }
            if s.avoidRepeat > 0 {
                if s.select == .sequence {
                    fail(
                        m["avoidRepeat"], "\(key).avoidRepeat",
                        "avoidRepeat applies to select: random and shuffle, not sequence")
                } else if s.avoidRepeat >= s.clips.count, !s.clips.isEmpty {
                    fail(
                        m["avoidRepeat"], "\(key).avoidRepeat",
                        "avoidRepeat \(s.avoidRepeat) needs more than \(s.avoidRepeat) clips (the sound has \(s.clips.count))"
                    )
                } else if let w = s.weights, s.avoidRepeat >= w.filter({ $0 > 0 }).count {
                    fail(
                        m["avoidRepeat"], "\(key).avoidRepeat",
                        "avoidRepeat \(s.avoidRepeat) needs more than \(s.avoidRepeat) clips of weight above 0")
                }
            }
            soundImage(m, key, into: &s)
            out.append(s)
        }
        checkSwitches(out)   // SceneParser+Switches.swift
        return out
    }

    /// `snapshots: { id: { buses: { NAME: { gain: dB, filter: { gain, gainHF } } } } }`.
    mutating func snapshots(_ node: Node, busNames: Set<String>) -> [SceneSnapshot] {
        var out: [SceneSnapshot] = []
        for (id, _, value) in idMapping(node, "snapshots") {
            let key = "snapshots.\(id)"
            guard let m = mapping(value, key, allowed: ["buses"], required: ["buses"]), let b = m["buses"] else {
                continue
            }
            var snap = SceneSnapshot(id: id)
            for (name, nameNode, spec) in idMapping(b, "\(key).buses") {
                let bk = "\(key).buses.\(name)"
                guard busNames.contains(name) else {
                    fail(nameNode, bk, "no bus named \"\(name)\"" + Self.didYouMean(name, among: busNames.sorted()))
                    continue
                }
                guard let bm = mapping(spec, bk, allowed: ["gain", "filter"]) else { continue }
                if bm.isEmpty { fail(spec, bk, "a snapshot's bus needs gain: dB or filter: { gain, gainHF }") }
                if let g = bm["gain"].flatMap({ gainDB($0, "\(bk).gain", in: -120...24) }) {
                    snap.gains.append((name, g))
                }
                if let f = bm["filter"], let fm = mapping(f, "\(bk).filter", allowed: ["gain", "gainHF"]) {
                    let gain = fm["gain"].flatMap { number($0, "\(bk).filter.gain", in: 0...1, "0…1") } ?? 1
                    let hf = fm["gainHF"].flatMap { number($0, "\(bk).filter.gainHF", in: 0...1, "0…1") } ?? 1
                    snap.filters.append((name, LowPassFilter(gain: Float(gain), gainHF: Float(hf))))
                }
            }
            out.append(snap)
        }
        return out
    }
}
