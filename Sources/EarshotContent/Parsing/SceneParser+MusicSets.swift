import Earshot
import Foundation
import Yams

/// Music sets in scenes (`music:` entries with `states:`), the tempo and cue keys of music
/// entries, and the events that drive a set. See ``SceneMusicSet``.
extension SceneParser {
    /// The keys a segment takes (a state's `file:`, each of its `segments:`, each stem, stinger and bridge).
    static let segmentKeys = ["file", "bpm", "beatsPerBar", "offset", "cues", "entry", "exit", "loop"]
    /// The keys of a music set entry.
    static let musicSetKeys = ["states", "transitions", "stingers", "bridges", "bus", "bpm", "beatsPerBar", "offset"]

    /// Whether the `music:` entry `node` is a set (it has `states:`).
    func isMusicSet(_ node: Node) -> Bool {
        guard case .mapping(let m) = node else { return false }
        return m.contains { k, _ in if case .scalar(let s) = k { return s.string == "states" } else { return false } }
    }

    /// `bpm:`, `beatsPerBar:` and `offset:` of mapping `m` (over `base`, a set's own), or nil
    /// when none is given anywhere.
    mutating func tempo(_ m: [String: Node], _ key: String, over base: Tempo? = nil) -> Tempo? {
        let bpm = m["bpm"].flatMap {
            number($0, "\(key).bpm", in: 1...Tempo.maxBPM, "beats per minute 1…\(Self.format(Tempo.maxBPM))")
        }
        let beats = m["beatsPerBar"].flatMap { integer($0, "\(key).beatsPerBar", in: 1...Tempo.maxBeatsPerBar) }
        let offset = m["offset"].flatMap {
            number($0, "\(key).offset", in: 0...86_400, "seconds into the file of beat 1, 0…86400")
        }
        guard let b = bpm ?? base?.bpm else {
            if let n = m["beatsPerBar"] ?? m["offset"] { fail(n, "\(key).bpm", "beatsPerBar: and offset: need bpm:") }
            return nil
        }
        return Tempo(bpm: b, beatsPerBar: beats ?? base?.beatsPerBar ?? 4, firstBeat: offset ?? base?.firstBeat ?? 0)
    }

    /// The header of the music file at `path` (nil when it cannot be read: reported already).
    func musicInfo(_ path: String?) -> ClipFileInfo? {
        guard let path else { return nil }
        return try? ClipDecoder.inspect(path: path)
    }

    /// `cues: { name: seconds, … }` of mapping `m`; each within the file's `duration` when known.
    mutating func cues(_ m: [String: Node], _ key: String, duration: Double? = nil) -> [String: Double] {
        guard let n = m["cues"] else { return [:] }
        guard case .mapping = n else {
            fail(n, "\(key).cues", "expected cue names and their seconds ({ drop: 16.0 }), got \(describe(n))")
            return [:]
        }
        var out: [String: Double] = [:]
        let entries = idMapping(n, "\(key).cues")
        if entries.count > MusicTrack.maxMarkers {
            fail(n, "\(key).cues", "\(entries.count) cues; at most \(MusicTrack.maxMarkers)")
        }
        for (name, _, v) in entries.prefix(MusicTrack.maxMarkers) {
            let limit = duration ?? 86_400
            if let s = number(
                v, "\(key).cues.\(name)", in: 0...limit,
                duration == nil
                    ? "seconds into the file, 0…86400" : "seconds into the file, 0…\(Self.format(limit)) (its length)")
            {
                out[name] = s
            }
        }
        return out
    }

    /// The track at `music.<id>` (an entry without `states:`).
    mutating func musicTrack(_ node: Node, id: String, busNames: Set<String>) -> SceneMusic? {
        let key = "music.\(id)"
        guard
            let m = mapping(
                node, key,
                allowed: [
                    "file", "volume", "gain", "loops", "rate", "tape", "bus", "emitter", "bpm", "beatsPerBar", "offset",
                    "cues", "loop",
                ],
                required: ["file"])
        else { return nil }
        let path = m["file"].flatMap { audioFile($0, "\(key).file", music: true) }
        let volume = trackVolume(m, key)   // `gain:` in dB, or the old `volume:` (SceneParser+Gains.swift)
        // A loop region loops until stopped unless loops: says how often.
        let loops =
            m["loops"].flatMap { integer($0, "\(key).loops", in: -1...1_000_000) } ?? (m["loop"] != nil ? -1 : 0)
        if m["loop"] != nil, loops == 0, let n = m["loops"] {
            fail(n, "\(key).loops", "a loop: region needs loops: -1 (until stopped) or a count above 0")
        }
        let rate = m["rate"].flatMap { number($0, "\(key).rate", in: 0.5...2, "rate 0.5…2") } ?? 1
        let tape = m["tape"].flatMap { bool($0, "\(key).tape") } ?? false
        let bus = m["bus"].map { busName($0, "\(key).bus", busNames) }
        let emitter = m["emitter"].map { string($0, "\(key).emitter") }
        guard let path, bus != .some(nil), emitter != .some(nil) else { return nil }
        var music = SceneMusic(id: id, path: path, volume: Float(volume), loops: loops, rate: Float(rate), tape: tape)
        if let bus = bus ?? nil { music.bus = bus }
        music.emitter = emitter ?? nil
        music.tempo = tempo(m, key)
        let info = musicInfo(path)
        music.cues = cues(m, key, duration: info?.duration)
        music.loop = loop(
            m, key, cues: cueSeconds(music.cues, info: info), duration: info?.duration, rate: info?.sampleRate)
        return music
    }

    /// A segment mapping (`extra`: further keys it may have, such as a stem's `gain:`).
    /// `loops`: whether the segment loops (a state's only or last segment, a stem): only those take `loop:`.
    mutating func segment(
        _ node: Node, _ key: String, tempo base: Tempo?, extra: [String] = [], loops: Bool = false
    ) -> MusicSegment? {
        guard let m = mapping(node, key, allowed: Self.segmentKeys + extra, required: ["file"]) else { return nil }
        musicFiles += 1
        let path = m["file"].flatMap { audioFile($0, "\(key).file", music: true) }
        let info = musicInfo(path)
        let tempo = self.tempo(m, key, over: base)
        let cues = self.cues(m, key, duration: info?.duration)
        // A cue named in entry:/exit:/loop: may also be one of the file's own markers.
        let seconds = cueSeconds(cues, info: info)
        let names = Set(seconds.keys)
        var entry: String?, exit: String?
        for (k, slot) in [("entry", 0), ("exit", 1)] {
            guard let n = m[k], let name = string(n, "\(key).\(k)") else { continue }
            if !names.contains(name) {
                fail(
                    n, "\(key).\(k)",
                    "no cue \"\(name)\"" + Self.didYouMean(name, among: names.sorted())
                        + (names.isEmpty
                            ? " (the segment has no cues: list them under cues:)"
                            : " (cues: \(names.sorted().joined(separator: ", ")))"))
            }
            if slot == 0 { entry = name } else { exit = name }
        }
        let e = entry.flatMap { seconds[$0] } ?? 0
        if let x = exit.flatMap({ seconds[$0] }), x <= e {
            fail(m["exit"] ?? node, "\(key).exit", "the exit cue (\(Self.format(x)) s) must come after "
                 + (entry == nil ? "the start (the segment plays from 0 s)" : "the entry cue (\(Self.format(e)) s)"))
        }
        if let n = m["loop"], !loops {
            fail(
                n, "\(key).loop",
                "only a looping segment takes loop: (a state's file, its last segment or a stem; not a stinger, a bridge or an earlier segment)"
            )
        }
        let region =
            loops ? loop(m, key, cues: seconds, duration: info?.duration, rate: info?.sampleRate, entry: e) : nil
        guard let path else { return nil }
        return MusicSegment(path: path, tempo: tempo, cues: cues, entry: entry, exit: exit, loop: region)
    }

    /// The music set at `music.<id>`.
    mutating func musicSet(_ node: Node, id: String, busNames: Set<String>) -> SceneMusicSet? {
        let key = "music.\(id)"
        guard let m = mapping(node, key, allowed: Self.musicSetKeys, required: ["states"]) else { return nil }
        let base = tempo(m, key)
        let bus = m["bus"].map { busName($0, "\(key).bus", busNames) }
        var def = MusicSetDefinition(name: id)
        if let b = bus ?? nil { def.bus = Bus(b) }
        let limit = MusicSetDefinition.maxEntries
        func named(_ what: String) -> [(id: String, keyNode: Node, value: Node)] {
            guard let n = m[what] else { return [] }
            guard within(n, "\(key).\(what)", limit, what) else { return [] }
            return idMapping(n, "\(key).\(what)")
        }
        for (name, _, v) in named("stingers") {
            if let s = segment(v, "\(key).stingers.\(name)", tempo: nil) { def.stingers[name] = s }
        }
        for (name, _, v) in named("bridges") {
            if let s = segment(v, "\(key).bridges.\(name)", tempo: base) { def.bridges[name] = s }
        }
        let stateEntries = named("states")
        if stateEntries.isEmpty, let n = m["states"] {
            fail(n, "\(key).states", "a music set needs at least one state")
        }
        var stateNames: [String] = [], broken: [String] = []
        for (name, keyNode, v) in stateEntries {
            let sk = "\(key).states.\(name)"
            if name == "*" { fail(keyNode, sk, "\"*\" stands for any state in transitions; name the state otherwise") }
            stateNames.append(name)
            if let content = stateContent(v, sk, tempo: base) {
                def.states.append(MusicState(name: name, content: content))
            } else {
                broken.append(name)
            }
        }
        let known = Set(stateNames)
        if let n = m["transitions"] {
            if case .sequence(let list) = n {
                if list.count > limit { fail(n, "\(key).transitions", "\(list.count) transitions; at most \(limit)") }
                var rules: [(MusicTransition, Node)] = []
                for (i, t) in list.prefix(limit).enumerated() {
                    if let r = transition(
                        t, "\(key).transitions[\(i)]", states: known, stingers: Set(def.stingers.keys),
                        bridges: Set(def.bridges.keys))
                    {
                        rules.append((r, t))
                    }
                }
                checkReachable(rules, key: "\(key).transitions")
                def.transitions = rules.map(\.0)
            } else if !isNull(n) {
                fail(
                    n, "\(key).transitions",
                    "expected a list of rules (- { from: …, to: …, at: nextBar }), got \(describe(n))")
            }
        }
        // Events check against every state given: one with a problem (reported at the state) is
        // not "no state" again at each event naming it.
        var checked = def
        checked.states += broken.map { MusicState(name: $0, content: .segments([])) }
        musicSetNames[id] = checked
        return SceneMusicSet(id: id, definition: def)
    }

    /// A state: `file:` (one segment), `segments: [ … ]` or `layers: { name: … }`.
    private mutating func stateContent(_ node: Node, _ key: String, tempo base: Tempo?) -> MusicState.Content? {
        guard let raw = mappingEntries(node, key, expected: "a state ({ file: … }, { segments: [ … ] } or { layers: { … } })") else {
            return nil
        }
        let has = { (k: String) in
            raw.contains { kk, _ in if case .scalar(let s) = kk { return s.string == k } else { return false } }
        }
        let kinds = ["file", "segments", "layers"].filter(has)
        guard kinds.count == 1 else {
            fail(
                node, key,
                kinds.isEmpty
                    ? "a state needs one of file:, segments: or layers:"
                    : "give one of file:, segments: or layers:, not \(kinds.joined(separator: " and "))")
            return nil
        }
        let limit = MusicSetDefinition.maxEntries
        switch kinds[0] {
        case "file":
            return segment(node, key, tempo: base, loops: true).map { .track($0) }
        case "segments":
            guard let m = mapping(node, key, allowed: ["segments"]), let n = m["segments"] else { return nil }
            guard case .sequence(let list) = n, !list.isEmpty else {
                fail(n, "\(key).segments", "expected a list of segments (- { file: … }), got \(describe(n))")
                return nil
            }
            if list.count > limit { fail(n, "\(key).segments", "\(list.count) segments; at most \(limit)") }
            let made = list.prefix(limit).enumerated().compactMap { i, s in
                segment(s, "\(key).segments[\(i)]", tempo: base, loops: i == min(list.count, limit) - 1)
            }
            return made.count == min(list.count, limit) ? .segments(made) : nil
        default:
            guard let m = mapping(node, key, allowed: ["layers"]), let n = m["layers"] else { return nil }
            guard within(n, "\(key).layers", limit, "layers") else { return nil }
            var layers: [MusicLayer] = []
            let entries = idMapping(n, "\(key).layers")
            if entries.isEmpty { fail(n, "\(key).layers", "a layered state needs at least one layer") }
            for (name, _, v) in entries {
                let lk = "\(key).layers.\(name)"
                let gain = merged(v).first { k, _ in
                    if case .scalar(let s) = k { return s.string == "gain" } else { return false }
                }?.1
                // A stem's gain: dB up to +12 (the old factor 0…1 warned), or curves of game
                // parameters (dB) it follows.
                var curves: [ParameterCurve] = []
                var g = 1.0
                if let gain, isCurve(gain) {
                    curves = self.curves(gain, "\(lk).gain", .gain)
                } else if let gain {
                    g =
                        gainDB(gain, "\(lk).gain", in: -120...Double(20 * log10(MusicTrack.maxVolume)), linear: 0...1)
                        .map { pow(10, $0 / 20) } ?? 1
                }
                if let s = segment(v, lk, tempo: base, extra: ["gain"], loops: true) {
                    layers.append(MusicLayer(name: name, segment: s, gain: Float(g), curves: curves))
                }
            }
            return layers.count == entries.count && !layers.isEmpty ? .layers(layers) : nil
        }
    }

    /// A transition rule; every name it gives must exist.
    private mutating func transition(
        _ node: Node, _ key: String, states: Set<String>, stingers: Set<String>,
        bridges: Set<String>
    ) -> MusicTransition? {
        guard let m = mapping(node, key, allowed: ["from", "to", "at", "fade", "curve", "stinger", "via"]) else {
            return nil
        }
        var rule = MusicTransition()
        for (k, isFrom) in [("from", true), ("to", false)] {
            guard let n = m[k], let name = string(n, "\(key).\(k)") else { continue }
            if name != "*", !states.contains(name) {
                fail(n, "\(key).\(k)", unknown("state", name, states) + "; or \"*\" for any")
            }
            if isFrom { rule.from = name } else { rule.to = name }
        }
        if let n = m["at"], let a = choice(n, "\(key).at", MusicTransition.Boundary.allCases.map(\.rawValue)) {
            rule.at = MusicTransition.Boundary(rawValue: a) ?? .nextBar
        }
        if let n = m["fade"] {
            // `fade: S` cross-fades both sides; `fade: { out: S, in: S }` sets each (a side left
            // out does not fade).
            if case .mapping = n {
                if let f = mapping(n, "\(key).fade", allowed: ["out", "in"]) {
                    if f.isEmpty { fail(n, "\(key).fade", "give out: or in: seconds (or fade: seconds for both)") }
                    rule.fade = f["out"].flatMap { number($0, "\(key).fade.out", in: 0...600, "seconds 0…600") } ?? 0
                    rule.fadeIn = f["in"].flatMap { number($0, "\(key).fade.in", in: 0...600, "seconds 0…600") } ?? 0
                }
            } else if let f = number(n, "\(key).fade", in: 0...600, "seconds 0…600") {
                rule.fade = f
                rule.fadeIn = f
            }
        }
        if let n = m["curve"], let c = choice(n, "\(key).curve", ["linear", "equalPower"]) {
            rule.curve = c == "linear" ? .linear : .equalPower
        }
        if let n = m["curve"], m["fade"] == nil { fail(n, "\(key).curve", "a curve shapes a fade: give fade: seconds") }
        if let n = m["stinger"], let s = string(n, "\(key).stinger") {
            if !stingers.contains(s) { fail(n, "\(key).stinger", unknown("stinger", s, stingers)) }
            rule.stinger = s
        }
        if let n = m["via"], let v = string(n, "\(key).via") {
            if !bridges.contains(v) { fail(n, "\(key).via", unknown("bridge", v, bridges)) }
            rule.via = v
        }
        return rule
    }

    /// Every rule must be able to apply: not to a change to the state already playing (which
    /// changes nothing), and not after an earlier rule that matches every change it matches
    /// (the first match wins).
    private mutating func checkReachable(_ rules: [(MusicTransition, Node)], key: String) {
        for (j, (r, node)) in rules.enumerated() {
            if r.from != "*", r.from == r.to {
                fail(
                    node, "\(key)[\(j)]",
                    "a rule from \(r.from) to itself never applies: asking for the state that plays changes nothing")
                continue
            }
            if let i = rules.prefix(j).firstIndex(where: {
                ($0.0.from == "*" || $0.0.from == r.from) && ($0.0.to == "*" || $0.0.to == r.to)
            }) {
                fail(
                    node, "\(key)[\(j)]",
                    "this rule is never reached: rule [\(i)] (from \(rules[i].0.from) to \(rules[i].0.to)) comes first and matches every change it matches"
                )
            }
        }
    }

    /// The event `{ music: SET, … }` of a music set: `state:`, `stinger:` (with `boundary:`),
    /// `layer:` (with `volume:` and `fade:`), or `action: play|pause|stop`.
    mutating func musicSetEvent(_ m: [String: Node], _ node: Node, id: String, key: String) -> SceneEvent.Action? {
        guard let def = musicSetNames[id] else { return nil }
        let states = Set(def.states.map(\.name))
        let words = ["state", "stinger", "layer", "action"].filter { m[$0] != nil }
        guard words.count == 1 || (words.sorted() == ["action", "state"]) else {
            fail(
                node, key,
                words.isEmpty
                    ? "an event of music set \(id) needs state:, stinger:, layer: or action:"
                    : "an event of music set \(id) does one thing; this one has \(words.joined(separator: " and "))")
            return nil
        }
        let allowed: [String: [String]] = ["state": ["state", "action"], "stinger": ["stinger", "boundary", "duck"],
                                           "layer": ["layer", "volume", "fade"], "action": ["action", "state", "fade"]]
        let mine = Set(allowed[words.contains("action") ? "action" : words[0]] ?? [])
        for k in ["state", "stinger", "boundary", "duck", "layer", "volume", "fade", "duration", "rate", "tape"]
        where m[k] != nil && !mine.contains(k) {
            fail(
                m[k], "\(key).\(k)",
                "\(k) does not apply here (a music set's \(words.first ?? "event") takes \(mine.sorted().joined(separator: ", ")))"
            )
        }
        func state(_ n: Node) -> String? {
            guard let s = string(n, "\(key).state") else { return nil }
            if !states.contains(s) { fail(n, "\(key).state", unknown("state of music set \(id)", s, states)) }
            return s
        }
        if let a = m["action"] {
            guard let action = choice(a, "\(key).action", ["play", "pause", "stop"]) else { return nil }
            if action != "play", let s = m["state"] { fail(s, "\(key).state", "state applies to action play only") }
            if action != "stop", let f = m["fade"] { fail(f, "\(key).fade", "fade applies to action stop only") }
            switch action {
            case "play": return .musicSet(id: id, .play(state: m["state"].flatMap(state)))
            case "pause": return .musicSet(id: id, .pause)
            default:
                return .musicSet(
                    id: id,
                    .stop(fade: m["fade"].flatMap { number($0, "\(key).fade", in: 0...60, "seconds 0…60") } ?? 0))
            }
        }
        if let n = m["state"] { return state(n).map { .musicSet(id: id, .state($0)) } }
        if let n = m["stinger"], let s = string(n, "\(key).stinger") {
            if def.stingers[s] == nil {
                fail(n, "\(key).stinger", unknown("stinger of music set \(id)", s, Set(def.stingers.keys)))
            }
            let b = m["boundary"].flatMap {
                choice($0, "\(key).boundary", MusicTransition.Boundary.allCases.map(\.rawValue))
            }
            let duck = m["duck"].flatMap { number($0, "\(key).duck", in: -60...0, "dB −60…0") } ?? 0
            return .musicSet(
                id: id,
                .stinger(
                    s, boundary: b.flatMap(MusicTransition.Boundary.init(rawValue:)) ?? .nextBeat, duck: Float(duck)))
        }
        if let n = m["layer"], let l = string(n, "\(key).layer") {
            let layers = Set(
                def.states.flatMap { s -> [String] in
                    if case .layers(let ls) = s.content { return ls.map(\.name) } else { return [] }
                })
            if !layers.contains(l) { fail(n, "\(key).layer", unknown("layer of music set \(id)", l, layers)) }
            guard let v = m["volume"] else {
                fail(
                    node, "\(key).volume",
                    "required key is missing (a layer event sets volume: 0…3.98, or dB with its unit)")
                return nil
            }
            let volume = factor(v, "\(key).volume", in: 0...Double(MusicTrack.maxVolume))
            let fade = m["fade"].flatMap { number($0, "\(key).fade", in: 0...600, "seconds 0…600") } ?? 0
            return volume.map { .musicSet(id: id, .layer(l, volume: Float($0), fade: fade)) }
        }
        return nil
    }
}
