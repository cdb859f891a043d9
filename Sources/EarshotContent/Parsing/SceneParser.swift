import Earshot
import Foundation
import Yams

/// Turns YAML text into a validated ``Scene``, collecting every problem with its file, line,
/// column and key: the scene's schema. Works on Yams' node tree (`Yams.compose`), which keeps
/// each node's mark, through the schema-free typed readers of ``YAMLReader``.
package struct SceneParser: YAMLReader {
    let file: String
    let folder: String
    var problems: [SceneError] = []
    /// The scene's top-level attenuation, read before the emitters that start from it.
    var sceneAttenuation = SceneAttenuation()
    /// The scene's `seed:` (default 0): the same seed gives the same jitter.
    var seed: UInt64 = 0
    /// The header of every clip that loaded, by clip id (for the timing of its plays).
    var clipInfo: [String: ClipFileInfo] = [:]
    /// The clips of every sound, by sound id.
    var soundClips: [String: [String]] = [:]
    /// The scene's `clipMemory:` in bytes (nil: the engine's default budget).
    var clipMemory: Int?
    /// The scene's game parameters by name (`parameters:`, read before the sounds and buses).
    var parameterDefs: [String: SceneParameter] = [:]
    /// Every name under `parameters:`, a definition with a problem included: a curve or `set:`
    /// naming one is not a second problem.
    var parameterNamesGiven: Set<String> = []
    /// `of:` names of parameter `set:` events that are not emitters: checked against the named
    /// plays once every event is read.
    var parameterTargets: [(name: String, node: Node, key: String)] = []
    /// Sounds named by switches' cases: checked once every sound is read (SceneParser+Switches.swift).
    var switchRefs: [(sound: String, node: Node, key: String)] = []
    /// The music sets read so far, by id, and the files the music opens (SceneParser+MusicSets.swift).
    var musicSetNames: [String: MusicSetDefinition] = [:]
    /// The ids of the scene's portals, for its `portal:` events (SceneParser+Rooms.swift).
    var portalIDs: Set<String> = []
    var musicFiles = 0
    /// The bar of the event being read (`at: { bar: N }`, SceneParser+Bars.swift).
    var pendingBar: SceneBarAt?
    /// The largest `clipMemory:` a scene may ask for, in MiB (64 GiB).
    static let maxClipMemoryMiB = 65_536
    /// Read as a bank (SceneParser+Bank.swift): no timeline, no `duration:`.
    var isBank = false
    /// The scene's `dialogue:` section, read before its events (SceneParser+Dialogue.swift).
    var dialogue: SceneDialogue?
    /// The chain of `include:`s being read and every file read so far (SceneParser+Include.swift).
    var includeState = SceneIncludeState()
    /// Bus names the included banks declare (own `buses:` may duck them).
    var includedBusNames: Set<String> = []
    /// Buses the files including this one declare under their `buses:`: an included bank may
    /// route its sounds to them (SceneParser+Include.swift).
    var includerBusNames: Set<String> = []
    /// Warnings found while reading (old linear gains, unit slips): SceneParser+Gains.swift.
    var unitWarnings: [SceneWarning] = []
    /// The ids under `beds:` (SceneParser+Beds.swift), a bed with a problem included.
    var bedIDs: Set<String> = []
    /// The VCA ids of the file and those it includes (`vca:` events name them).
    var vcaNames: Set<String> = []

    static let topKeys = [
        "name", "duration", "seed", "templates", "sampleRate", "hrtf", "distanceModel", "dopplerFactor", "speedOfSound",
        "referenceDistance", "maxDistance", "rolloff", "model", "beyondMax", "curve",  // = attenuationKeys
        "voices", "clipMemory", "session",
        "clips", "music", "listener", "listeners", "emitters", "events", "zones", "sounds", "snapshots", "buses",
        "parameters", "include", "vcas", "dialogue", "rooms", "portals", "beds", "limiter",
    ]

    static func parse(yaml: String, path: String, bank: Bool = false) -> Result<Scene, SceneProblems> {
        var parser = SceneParser(file: path, folder: (path as NSString).deletingLastPathComponent)
        parser.isBank = bank
        // The file itself heads the include chain (a bank that includes itself is a cycle).
        parser.includeState.stack = [
            URL(fileURLWithPath: (path as NSString).standardizingPath).resolvingSymlinksInPath().path
        ]
        parser.includeState.bytes = yaml.utf8.count
        var scene = parser.read(yaml: yaml)
        scene?.includedFiles = parser.includeState.files
        if let scene, parser.problems.isEmpty { return .success(scene) }
        if parser.problems.isEmpty { parser.fail(nil, "", "invalid scene") }
        return .failure(SceneProblems(problems: Self.ordered(parser.problems, file: path)))
    }

    // MARK: The scene

    mutating func scene(_ root: Node) -> Scene? {
        guard let top = topMapping(root) else { return nil }
        let included = includes(top["include"], includerBuses: declaredBusNames(top["buses"]).union(includerBusNames))
        checkAgainstIncluded(top, included)
        // An included set is the scene's own: its events (state, stinger, layer, play) read by
        // its definition, not as a plain track's.
        for s in included.musicSets where musicSetNames[s.id] == nil { musicSetNames[s.id] = s.definition }
        let defaultName = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let name = top["name"].flatMap { string($0, "name") } ?? defaultName
        let duration = top["duration"].flatMap { number($0, "duration", in: 0.001...86_400, "seconds, 0.001…86400") }
        let sampleRate = top["sampleRate"].flatMap { integer($0, "sampleRate", in: 8_000...192_000) } ?? 48_000
        let hrtf = top["hrtf"].flatMap { bool($0, "hrtf") } ?? false
        var distanceModel = DistanceModel.inverseClamped
        if let n = top["distanceModel"], let s = choice(n, "distanceModel", DistanceModel.allCases.map(\.rawValue)) {
            distanceModel = DistanceModel(rawValue: s) ?? .inverseClamped
        }
        let dopplerFactor =
            top["dopplerFactor"].flatMap { number($0, "dopplerFactor", in: 0...10, "0 (off) … 10, 1 is physical") } ?? 1
        let speedOfSound =
            top["speedOfSound"].flatMap { number($0, "speedOfSound", in: 1...100_000, "metres per second 1…100000") }
            ?? 343.3
        sceneAttenuation = readAttenuation(top, "", over: SceneAttenuation(), at: root)
        if let n = top["seed"], let v = integer(n, "seed", in: 0...Int(Int32.max)) { seed = UInt64(v) }
        var realVoices: Int?, virtualVoices: Int?
        if let n = top["voices"], let v = mapping(n, "voices", allowed: ["real", "virtual"]) {
            realVoices = v["real"].flatMap { integer($0, "voices.real", in: 1...4096) }
            virtualVoices = v["virtual"].flatMap { integer($0, "voices.virtual", in: 0...1_000_000) }
        }
        if let n = top["clipMemory"], let mib = integer(n, "clipMemory", in: 1...Self.maxClipMemoryMiB) {
            clipMemory = mib * 1_048_576
        }
        let session = top["session"].map { sessionSettings($0) } ?? SceneSessionSettings()
        dialogue = top["dialogue"].flatMap { dialogueSection($0) }

        var clips: [SceneClip] = []
        // Ids of clips that failed to load count as known, so one missing file is one problem.
        var clipIDs = included.clipIDs
        if let n = top["clips"], within(n, "clips", SceneLimits.maxClips, "clips") {
            for (id, _, value) in idMapping(n, "clips") {
                clipIDs.insert(id)
                if let c = clip(value, id: id) { clips.append(c) }   // SceneParser+Clips.swift
            }
            checkClipBudget(clips, at: n)
        }
        let parameters = self.parameters(top["parameters"])
        parameterDefs = Dictionary(
            (included.parameters + parameters).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let (buses, busNames) = self.buses(top["buses"])
        checkBusTree(buses, included: included.buses, at: top["buses"])   // SceneParser+BusTree.swift
        let vcas = self.vcas(top["vcas"], busNames: busNames)   // SceneParser+VCAs.swift
        vcaNames = Set((included.vcas + vcas).map(\.id))
        var sounds: [SceneSound] = []
        var soundIDs = Set<String>()
        if let n = top["sounds"], within(n, "sounds", SceneLimits.maxSounds, "sounds") {
            sounds = self.sounds(n, clipIDs: clipIDs, busNames: busNames)
            soundIDs = Set(sounds.map(\.id))
            soundClips = Dictionary(sounds.map { ($0.id, $0.clips) }, uniquingKeysWith: { first, _ in first })
        }
        soundIDs.formUnion(included.soundIDs)
        for s in included.sounds where soundClips[s.id] == nil { soundClips[s.id] = s.clips }
        var snapshots: [SceneSnapshot] = []
        if let n = top["snapshots"], within(n, "snapshots", SceneLimits.maxSnapshots, "snapshots") {
            snapshots = self.snapshots(n, busNames: busNames)
        }
        let names = SceneNames(
            clips: clipIDs, sounds: soundIDs, buses: busNames,
            snapshots: Set(snapshots.map(\.id)).union(included.snapshotIDs))
        var music: [SceneMusic] = []
        var musicSets: [SceneMusicSet] = []
        var musicIDs = included.musicIDs
        var musicNodes: [String: Node] = [:]
        if let n = top["music"], within(n, "music", SceneLimits.maxMusic, "music tracks") {
            for (id, _, value) in idMapping(n, "music") {
                musicIDs.insert(id)
                musicNodes[id] = value
                if isMusicSet(value) {
                    if let set = musicSet(value, id: id, busNames: busNames) { musicSets.append(set) }
                    continue
                }
                musicFiles += 1
                if let m = musicTrack(value, id: id, busNames: busNames) { music.append(m) }
            }
            if musicFiles > SceneLimits.maxMusic {
                fail(
                    n, "music",
                    "\(musicFiles) music files with the sets' segments, stems, stingers and bridges; a scene may open at most \(SceneLimits.maxMusic)"
                )
            }
        }
        // Emitters a track follows, or that speak lines (`say: …, by:`), may play nothing
        // themselves (no `clip:`).
        let followed = Set(music.compactMap(\.emitter)).union(speakerEmitterIDs(top["events"]))   // SceneParser+Dialogue.swift
        let (listener, otherListeners) = sceneListeners(top)
        let reverbZones =
            top["zones"].flatMap { within($0, "zones", SceneLimits.maxZones, "zones") ? self.zones($0) : nil } ?? []

        let geometry = self.geometry(rooms: top["rooms"], portals: top["portals"])
        portalIDs = Set(geometry.portals.map(\.id))
        var emitters: [SceneEmitter] = []
        var emitterIDs = Set<String>()
        let soundsByID = Dictionary(
            (included.sounds + sounds).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        if let n = top["emitters"], within(n, "emitters", SceneLimits.maxEmitters, "emitters") {
            for (id, _, value) in idMapping(n, "emitters") {
                emitterIDs.insert(id)
                if let e = emitter(
                    value, id: id, clipIDs: clipIDs.union(soundIDs), sounds: soundsByID, duration: duration,
                    followedByMusic: followed.contains(id))
                {
                    emitters.append(e)
                }
            }
        }
        checkMusicEmitters(musicNodes, music: music, emitterIDs: emitterIDs)
        let beds = self.beds(top["beds"], busNames: busNames, duration: duration)
        var events: [SceneEvent] = []
        var followUps: [(followUp: SceneFollowUp, node: Node, index: Int)] = []
        var namedPlays: [(name: String, node: Node, index: Int, timed: Bool)] = []
        var timedNames: [Int: String] = [:]   // by index in `events` before it is sorted
        var bars: [(event: Int, bar: SceneBarAt, node: Node, index: Int)] = []   // `at: { bar: N }`, placed below
        var playIDs: [String: String] = [:]   // the clip or sound each named play plays
        var playLoops: [String: Int] = [:]   // and its loops
        var timedRuns: [String: Int] = [:]   // how often a timed named play runs (with its repeats)
        if let n = top["events"], within(n, "events", SceneLimits.maxEvents, "events") {
            if case .sequence(let seq) = n {
                for (i, e) in seq.enumerated() {
                    var after: SceneAfter?
                    var name: String?
                    if let ev = event(
                        e, index: i, names: names, musicIDs: musicIDs, emitterIDs: emitterIDs, duration: duration,
                        after: &after, name: &name)
                    {
                        if let bar = pendingBar {
                            bars.append((events.count, bar, e, i))
                            pendingBar = nil
                        }
                        if let name { namedPlays.append((name, e, i, after == nil)) }
                        if let name, case .play(let p) = ev.action {
                            playIDs[name] = p.id
                            playLoops[name] = p.loops
                        }
                        if let after {
                            followUps.append((SceneFollowUp(after: after, event: ev, name: name), e, i))
                        } else {
                            if let name { timedNames[events.count] = name }
                            let before = events.count
                            events.append(ev)
                            repeatEvent(ev, e, index: i, duration: duration, into: &events)
                            if let name { timedRuns[name, default: 0] += events.count - before }
                        }
                    }
                }
            } else if !isNull(n) {
                fail(n, "events", "expected a list of events (- { at: …, … }), got \(describe(n))")
            }
            // Repeats count too: the limit holds for the events the scene will run.
            if events.count + followUps.count > SceneLimits.maxEvents {
                fail(
                    n, "events",
                    "\(events.count + followUps.count) events with their repeats; a scene may have at most \(SceneLimits.maxEvents)"
                )
            }
            checkAfter(followUps, namedPlays: namedPlays)
            checkParameterTargets(Set(namedPlays.map(\.name)))
            checkMarkerFollowUps(followUps, playIDs: playIDs)
            if problems.isEmpty {
                checkScheduledFollowUps(followUps, playIDs: playIDs, playLoops: playLoops, timedRuns: timedRuns, at: n)
            }
        }
        if !bars.isEmpty {
            placeBars(
                bars, in: &events, music: included.music + music, sets: included.musicSets + musicSets,
                duration: duration)
        }
        addBedStarts(beds, top["beds"], into: &events)
        // Time order; events at the same time keep their file order (sorted as indices: no copy
        // of a million events beside their offsets). The names follow their events.
        let order = events.indices.sorted { (events[$0].time, $0) < (events[$1].time, $1) }
        events = order.map { events[$0] }
        var playNames: [Int: String] = [:]
        if !timedNames.isEmpty {
            for (new, old) in order.enumerated() { if let n = timedNames[old] { playNames[new] = n } }
        }

        guard let duration = isBank ? 0 : duration else { return nil }
        var scene = Scene(file: file, name: name, duration: duration, sampleRate: sampleRate, hrtf: hrtf,
                          distanceModel: distanceModel, realVoices: realVoices, virtualVoices: virtualVoices,
                          session: session, listener: listener, emitters: emitters, events: events)
        scene.clips = included.clips + clips
        scene.otherListeners = otherListeners
        scene.music = included.music + music
        scene.zones = included.zones + reverbZones
        scene.geometry = geometry
        scene.followUps = followUps.map(\.followUp)
        scene.musicSets = included.musicSets + musicSets
        scene.playNames = playNames
        scene.dopplerFactor = Float(dopplerFactor)
        scene.attenuation = sceneAttenuation
        scene.speedOfSound = Float(speedOfSound)
        scene.sounds = included.sounds + sounds
        scene.parameters = included.parameters + parameters
        scene.snapshots = included.snapshots + snapshots
        scene.buses = included.buses + buses
        scene.vcas = included.vcas + vcas
        scene.seed = seed
        scene.clipMemory = clipMemory
        scene.beds = beds
        scene.limiter = limiterSettings(top["limiter"])   // SceneParser+Loudness.swift
        scene.dialogue = dialogue
        placeDialogue(&scene, top["dialogue"])   // SceneParser+Dialogue.swift
        for section in ["clips", "sounds", "emitters", "zones", "music", "snapshots", "buses", "parameters", "vcas", "rooms", "portals", "beds"] {
            guard case .mapping(let m)? = top[section] else { continue }
            for (k, _) in m {
                guard case .scalar(let s) = k, let mark = k.mark else { continue }
                scene.lines["\(section).\(s.string)"] = mark.line
                scene.columns["\(section).\(s.string)"] = mark.column
            }
        }
        scene.origins = included.origin
        scene.readWarnings = unitWarnings
        for (k, line) in scene.lines { scene.origins[k] = "\(file):\(line)" }
        return scene
    }

    mutating func sessionSettings(_ node: Node) -> SceneSessionSettings {
        var settings = SceneSessionSettings()
        guard let m = mapping(node, "session", allowed: ["category", "ducking"]) else { return settings }
        if let n = m["category"],
            let c = choice(n, "session.category", SceneSessionSettings.Category.allCases.map(\.rawValue))
        {
            settings.category = SceneSessionSettings.Category(rawValue: c) ?? .soloAmbient
        }
        if let n = m["ducking"], let d = mapping(n, "session.ducking", allowed: ["level", "attack", "release"]) {
            if let level = d["level"] {
                if case .scalar(let s) = level, s.string == "silent" {
                    settings.ducking.levelDB = nil
                } else if let db = number(level, "session.ducking.level", in: -120...0, "silent, or dB from -120 to 0")
                {
                    settings.ducking.levelDB = db
                }
            }
            if let a = d["attack"], let v = number(a, "session.ducking.attack", in: 0...10, "seconds 0…10") {
                settings.ducking.attack = v
            }
            if let r = d["release"], let v = number(r, "session.ducking.release", in: 0...10, "seconds 0…10") {
                settings.ducking.release = v
            }
        }
        return settings
    }

    /// Every `music.<id>.emitter` names an emitter of the scene (checked once the emitters are
    /// read); `nodes` are the music entries by id.
    mutating func checkMusicEmitters(_ nodes: [String: Node], music: [SceneMusic], emitterIDs: Set<String>) {
        for m in music {
            guard let e = m.emitter, !emitterIDs.contains(e), let entry = nodes[m.id] else { continue }
            var at = entry
            if case .mapping(let pairs) = entry, let n = pairs["emitter"] { at = n }
            fail(at, "music.\(m.id).emitter", unknown("emitter", e, emitterIDs))
        }
    }

    /// An emitter; one that plays a sound takes the sound's `loop` and `priority` unless it sets its own.
    mutating func emitter(
        _ node: Node, id: String, clipIDs: Set<String>, sounds: [String: SceneSound] = [:], duration: Double?,
        followedByMusic: Bool = false
    ) -> SceneEmitter? {
        let key = "emitters.\(id)"
        guard
            let m = mapping(
                node, key,
                allowed: [
                    "clip", "loop", "gain", "pitch", "priority", "start", "position", "path",
                    "direction", "facing", "cone", "spread",
                ] + Self.attenuationKeys
                    + Self.emitterEnvironmentKeys, required: followedByMusic ? [] : ["clip"])
        else { return nil }
        // An emitter a music track follows may play nothing itself: its clip is "" then.
        var clip: String? = followedByMusic && m["clip"] == nil ? "" : nil
        if let n = m["clip"], let c = string(n, "\(key).clip") {
            if clipIDs.contains(c) { clip = c } else { fail(n, "\(key).clip", unknown("clip or sound", c, clipIDs)) }
        }
        let sound = clip.flatMap { sounds[$0] }
        let loop = m["loop"].flatMap { bool($0, "\(key).loop") } ?? sound?.loop ?? false
        let gain =
            m["gain"].flatMap { gainDB($0, "\(key).gain", in: -120...24, linear: 0...16) }.map { pow(10, $0 / 20) } ?? 1
        let pitch = m["pitch"].flatMap { number($0, "\(key).pitch", in: 0.1...4, "playback rate 0.1…4") } ?? 1
        let priority =
            m["priority"].flatMap { integer($0, "\(key).priority", in: 0...255) } ?? sound.map { Int($0.priority) }
            ?? 128
        let start = m["start"].flatMap { time($0, "\(key).start", duration: duration) } ?? 0
        let path = placement(m, node, key, required: true)
        let environment = emitterEnvironment(m, key)
        let ownAttenuation = readAttenuation(m, key, over: sceneAttenuation, at: node)
        guard let clip, let path else { return nil }
        var emitter = SceneEmitter(id: id, clip: clip, loop: loop, gain: Float(gain), pitch: Float(pitch),
                                   priority: UInt8(priority), start: start, path: path, environment: environment)
        emitter.attenuation = ownAttenuation
        emitter.spread = m["spread"].flatMap { spread($0, "\(key).spread") }
        if m["direction"] != nil, let f = m["facing"] {
            fail(f, "\(key).facing", "give either direction or facing: path, not both")
        }
        if let d = m["direction"].flatMap({ direction($0, "\(key).direction") }) { emitter.facing = .direction(d) }
        if let f = m["facing"], choice(f, "\(key).facing", ["path"]) != nil { emitter.facing = .path }
        if let c = m["cone"],
            let cm = mapping(c, "\(key).cone", allowed: ["inner", "outer", "outerGain"], required: ["inner", "outer"])
        {
            let inner = cm["inner"].flatMap { number($0, "\(key).cone.inner", in: 0...360, "degrees 0…360") }
            let outer = cm["outer"].flatMap { number($0, "\(key).cone.outer", in: 0...360, "degrees 0…360") }
            let outerGain =
                cm["outerGain"].flatMap { number($0, "\(key).cone.outerGain", in: 0...1, "linear gain 0…1") } ?? 0
            if let inner, let outer {
                if outer < inner {
                    fail(cm["outer"], "\(key).cone.outer", "outer (\(outer)°) must be at least inner (\(inner)°)")
                }
                emitter.cone = SceneCone(inner: Float(inner), outer: Float(outer), outerGain: Float(outerGain))
            }
            if emitter.facing == .none { fail(c, "\(key).cone", "a cone needs direction: [x, y, z] or facing: path") }
        }
        return emitter
    }

    func unknown(_ what: String, _ id: String, _ known: Set<String>) -> String {
        "no \(what) with id \"\(id)\"" + Self.didYouMean(id, among: known.sorted())
            + (known.isEmpty ? " (the scene defines none)" : " (known: \(known.sorted().joined(separator: ", ")))")
    }

    /// A `play` event's repeats: `every:` seconds, `count:` plays in all or `until:` a time, each
    /// moved by up to ±`jitter:` seconds drawn from the scene's seed (the first stays where it
    /// is). The repeats are plain events, counted against the scene's event limit.
    mutating func repeatEvent(
        _ first: SceneEvent, _ node: Node, index: Int, duration: Double?, into events: inout [SceneEvent]
    ) {
        // Only plays repeat (other events refuse these keys); the keys were checked by `event`.
        guard case .play = first.action, case .mapping = node else { return }
        var m: [String: Node] = [:]
        for (k, v) in merged(node) {
            if case .scalar(let ks) = k, ["every", "count", "until", "jitter"].contains(ks.string) { m[ks.string] = v }
        }
        let key = "events[\(index)]"
        guard m["every"] != nil || m["count"] != nil || m["until"] != nil || m["jitter"] != nil else { return }
        guard let e = m["every"] else {
            fail(node, "\(key).every", "count:, until: and jitter: repeat a play every: seconds, which is missing")
            return
        }
        guard let every = number(e, "\(key).every", in: 0.001...86_400, "seconds, 0.001…86400") else { return }
        if m["count"] != nil, let u = m["until"] { fail(u, "\(key).until", "give either count or until, not both") }
        let limit = duration ?? 86_400
        let count = m["count"].flatMap { integer($0, "\(key).count", in: 1...SceneLimits.maxEvents) }
        let until = m["until"].flatMap { time($0, "\(key).until", duration: duration) } ?? limit
        let jitter =
            m["jitter"].flatMap { number($0, "\(key).jitter", in: 0...(every / 2), "seconds 0…half of every") } ?? 0
        // A stream of its own per event: `seed + index × increment` gave the next event the same
        // offsets shifted by one (SplitMix64 steps its state by that very increment).
        var generator = SplitMix64(seed: seed, stream: UInt64(index))
        var n = 1
        while true {
            if let count, n >= count { break }
            let nominal = first.time + Double(n) * every
            guard nominal <= until, nominal <= limit else { break }
            guard events.count < SceneLimits.maxEvents else {
                fail(node, key, "its repeats take the scene past \(SceneLimits.maxEvents) events")
                return
            }
            let offset = jitter > 0 ? (generator.nextUnit() * 2 - 1) * jitter : 0
            events.append(
                SceneEvent(
                    time: min(limit, max(0, nominal + offset)), action: first.action, line: first.line,
                    column: first.column))
            n += 1
        }
    }

    /// A scene time: 0 … duration.
    mutating func time(_ node: Node, _ key: String, duration: Double?) -> Double? {
        let limit = duration ?? 86_400
        return number(node, key, in: 0...limit, "seconds from 0 to the scene's duration \(Self.format(limit))")
    }

    static func format(_ v: Double) -> String {
        v.rounded() == v ? String(Int(v)) : String(v)
    }
}

