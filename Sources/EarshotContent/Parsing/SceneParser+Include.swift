import Earshot
import Foundation
import Yams

/// The chain of `include:`s being read, and every file read so far: what cycles, depth and the
/// number of files are checked against. One per top-level parse, handed down to each included
/// file's parser and back.
struct SceneIncludeState {
    /// Canonical paths (symlinks resolved) of the files being read, the outermost first.
    var stack: [String] = []
    /// Canonical paths of every file read: one included twice (two banks include a common one)
    /// is read once.
    var read: Set<String> = []
    /// Every included file as its path reads (resolved against its includer's folder), in the
    /// order read.
    var files: [String] = []
    /// Each bank read, by canonical path: a second include of it takes these definitions again.
    var parsed: [String: Scene] = [:]
    /// Bytes of every included file read so far (with the includer's, at most
    /// ``SceneLimits/maxFileBytes`` in all).
    var bytes = 0
}

/// What the banks a file includes define, together (in include order).
struct SceneIncluded {
    var clips: [SceneClip] = []
    var sounds: [SceneSound] = []
    var buses: [SceneBus] = []
    var snapshots: [SceneSnapshot] = []
    var vcas: [SceneVCA] = []
    var zones: [ReverbZone] = []
    var music: [SceneMusic] = []
    /// Music sets (`music:` entries with `states:`), in the music namespace.
    var musicSets: [SceneMusicSet] = []
    var parameters: [SceneParameter] = []
    var busNames: Set<String> = []
    /// Where each id was defined, `FILE:LINE`, by section (`clips.step`, `sounds.footstep`…).
    var origin: [String: String] = [:]

    var clipIDs: Set<String> { Set(clips.map(\.id)) }
    var soundIDs: Set<String> { Set(sounds.map(\.id)) }
    var snapshotIDs: Set<String> { Set(snapshots.map(\.id)) }
    var musicIDs: Set<String> { Set(music.map(\.id)).union(musicSets.map(\.id)) }
}

/// `include:` — a scene or a bank takes the definitions of other banks: a path, or a list of
/// paths, relative to the including file. What an included bank defines (clips, sounds, buses,
/// snapshots, zones, music) the including file may use as its own; ids must stay unique across
/// all of them. Cycles, nesting deeper than ``SceneLimits/maxIncludeDepth`` and more than
/// ``SceneLimits/maxIncludes`` files are refused at the `include:` that makes them.
extension SceneParser {
    /// The sections whose ids an include shares, and the namespaces they live in (clips and
    /// sounds share one).
    static let includedSections = ["clips", "sounds", "buses", "snapshots", "zones", "music", "parameters", "vcas"]

    /// Reads every bank `node` names (nil: none) and returns their definitions.
    /// `includerBuses`: the buses this file and those including it declare, which the included
    /// banks may use as if they were their own (a bank of sounds routed to the game's buses).
    mutating func includes(_ node: Node?, includerBuses: Set<String> = []) -> SceneIncluded {
        var out = SceneIncluded()
        guard let node, !isNull(node) else { return out }
        var items: [(node: Node, key: String)] = []
        switch node {
        case .scalar:
            items = [(node, "include")]
        case .sequence(let seq):
            guard seq.count <= SceneLimits.maxIncludes else {
                fail(node, "include", "\(seq.count) files; a file may include at most \(SceneLimits.maxIncludes)")
                return out
            }
            items = seq.enumerated().map { ($1, "include[\($0)]") }
        case .mapping:
            fail(node, "include", "expected a bank's path or a list of paths, got \(describe(node))")
            return out
        }
        for (item, key) in items {
            guard let given = string(item, key) else { continue }
            let resolved =
                given.hasPrefix("/")
                ? given : ((folder.isEmpty ? "." : folder) as NSString).appendingPathComponent(given)
            let path = (resolved as NSString).standardizingPath
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                fail(item, key, "no such file: \(given) (looked for \(path); paths are relative to the including file)")
                continue
            }
            guard !isDirectory.boolValue else {
                fail(item, key, "\(given) is a directory, not a bank file (include: names YAML files, one path each)")
                continue
            }
            guard SceneLimits.isRegularFile(path) else {
                fail(item, key, "\(given) is not a regular file (a device, a pipe or a special file cannot be a bank)")
                continue
            }
            let canonical = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            if let start = includeState.stack.firstIndex(of: canonical) {
                let chain = (includeState.stack[start...] + [canonical]).map { ($0 as NSString).lastPathComponent }
                fail(
                    item, key,
                    "an include cycle: \(chain.joined(separator: " → ")) (a bank cannot include itself, directly or through others)"
                )
                continue
            }
            guard includeState.stack.count < SceneLimits.maxIncludeDepth else {
                fail(
                    item, key,
                    "includes nest deeper than \(SceneLimits.maxIncludeDepth) files (the most a scene may have)")
                continue
            }
            if includeState.read.contains(canonical) {
                // Read already, through another include: the same definitions, not read twice.
                if let bank = includeState.parsed[canonical] { merge(bank, from: path, into: &out, at: item, key) }
                continue
            }
            guard includeState.files.count < SceneLimits.maxIncludes else {
                fail(
                    item, key, "more than \(SceneLimits.maxIncludes) included files in all (the most a scene may have)")
                continue
            }
            includeState.read.insert(canonical)
            includeState.files.append(path)
            guard let bank = includedBank(path, canonical: canonical, at: item, key, includerBuses: includerBuses)
            else { continue }
            merge(bank, from: path, into: &out, at: item, key)
        }
        includedBusNames = out.busNames
        return out
    }

    /// Parses the bank at `path` with this parser's include chain (its problems become ours, with
    /// its own file name); nil when it has problems.
    private mutating func includedBank(_ path: String, canonical: String, at node: Node, _ key: String,
                                       includerBuses: Set<String>) -> Scene? {
        // Bounded by what is read, not by stat (an include of /proc/self/pagemap says 0 bytes).
        let limit = SceneLimits.maxFileBytes - includeState.bytes
        let text: String
        switch SceneLimits.readText(path, limit: limit) {
        case .text(let t):
            text = t
        case .tooLarge(let size, _):
            fail(
                node, key,
                "\(path) has \(SceneLimits.sizeText(size, limit: max(0, limit))); a file and everything it includes may have at most \(SceneLimits.maxFileBytes) (64 MiB) together"
            )
            return nil
        case .unreadable(let error):
            fail(node, key, "cannot read \(path): \(error.description)")
            return nil
        case .notUTF8:
            fail(node, key, "cannot read \(path) as UTF-8 text (a bank is a YAML file)")
            return nil
        }
        includeState.bytes += text.utf8.count
        var sub = SceneParser(file: path, folder: (path as NSString).deletingLastPathComponent)
        sub.isBank = true
        sub.includerBusNames = includerBuses
        sub.includeState = includeState
        sub.includeState.stack.append(canonical)
        let scene = sub.read(yaml: text)
        sub.includeState.stack.removeLast()
        includeState = sub.includeState
        problems += sub.problems
        unitWarnings += sub.unitWarnings
        for (id, info) in sub.clipInfo where clipInfo[id] == nil { clipInfo[id] = info }
        for (id, clips) in sub.soundClips where soundClips[id] == nil { soundClips[id] = clips }
        guard sub.problems.isEmpty, let scene else { return nil }
        includeState.parsed[canonical] = scene
        return scene
    }

    /// The pre-scan, the composer and the schema over `yaml` (this parser's file): the scene, or
    /// nil with the problems recorded.
    mutating func read(yaml: String) -> Scene? {
        if yaml.utf8.count > SceneLimits.maxFileBytes {
            fail(
                nil, "",
                "the text has \(yaml.utf8.count) bytes; a file may have at most \(SceneLimits.maxFileBytes) (64 MiB)")
            return nil
        }
        if let p = SceneLimits.prescan(yaml) {
            problems.append(.invalid(file: file, line: p.line, column: p.column, key: "", reason: p.reason))
            return nil
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml)
        } catch let error as YamlError {
            yamlProblem(error)
            return nil
        } catch {
            fail(nil, "", "YAML syntax: \(error)")
            return nil
        }
        guard let root else {
            if isBank { return Scene.empty(file: file) }
            fail(nil, "", "the file is empty (a scene needs at least `duration:`)")
            return nil
        }
        return scene(root)
    }

    /// Adds one included bank's definitions to `out`; an id another included bank defined too is
    /// a problem at the `include:` that brings it in a second time.
    private mutating func merge(
        _ bank: Scene, from path: String, into out: inout SceneIncluded, at node: Node, _ key: String
    ) {
        func take(_ section: String, _ id: String, namespace: [String]) -> Bool {
            let origin = bank.origins["\(section).\(id)"] ?? path
            for ns in namespace {
                if let other = out.origin["\(ns).\(id)"] {
                    if ns == section, other == origin { return false }  // the same definition, through two includes
                    fail(
                        node, key,
                        "\(origin) defines \(section).\(id), which \(other) defines too (ids are unique across included banks)"
                    )
                    return false
                }
            }
            out.origin["\(section).\(id)"] = origin
            return true
        }
        for c in bank.clips where take("clips", c.id, namespace: ["clips", "sounds"]) { out.clips.append(c) }
        for s in bank.sounds where take("sounds", s.id, namespace: ["clips", "sounds"]) { out.sounds.append(s) }
        for b in bank.buses where take("buses", b.name, namespace: ["buses"]) { out.buses.append(b) }
        for s in bank.snapshots where take("snapshots", s.id, namespace: ["snapshots"]) { out.snapshots.append(s) }
        for v in bank.vcas where take("vcas", v.id, namespace: ["vcas"]) { out.vcas.append(v) }
        for z in bank.zones where take("zones", z.name, namespace: ["zones"]) { out.zones.append(z) }
        for m in bank.music where take("music", m.id, namespace: ["music"]) { out.music.append(m) }
        for s in bank.musicSets where take("music", s.id, namespace: ["music"]) { out.musicSets.append(s) }
        for p in bank.parameters where take("parameters", p.id, namespace: ["parameters"]) { out.parameters.append(p) }
        // Every bus the bank declares (its own and those it includes: `buses` holds both).
        out.busNames.formUnion(bank.buses.map(\.name))
    }

    /// The names under `buses:` of a file (before they are read): what the banks it includes may
    /// use. Invalid names are refused later, where the buses are read.
    func declaredBusNames(_ node: Node?) -> Set<String> {
        guard case .mapping(let m)? = node else { return [] }
        var names = Set<String>()
        for (k, _) in m { if case .scalar(let s) = k { names.insert(s.string) } }
        return names
    }

    /// Own ids the included banks define already: one problem at each own key; and each
    /// section's entries, the included ones counted, within their limit.
    mutating func checkAgainstIncluded(_ top: [String: Node], _ included: SceneIncluded) {
        guard !included.origin.isEmpty else { return }
        let limits: [(String, Int, Int, String)] = [
            ("clips", included.clips.count, SceneLimits.maxClips, "clips"),
            ("sounds", included.sounds.count, SceneLimits.maxSounds, "sounds"),
            ("snapshots", included.snapshots.count, SceneLimits.maxSnapshots, "snapshots"),
            ("zones", included.zones.count, SceneLimits.maxZones, "zones"),
            ("music", included.music.count + included.musicSets.count, SceneLimits.maxMusic, "music tracks and sets"),
        ]
        for (section, count, limit, what) in limits {
            var own = 0
            if case .mapping(let m)? = top[section] { own = m.count }
            if count + own > limit {
                fail(
                    top["include"], "include",
                    "\(count + own) \(what) with those of the included banks; a scene may have at most \(limit)")
            }
        }
        for section in Self.includedSections {
            guard case .mapping(let m)? = top[section] else { continue }
            let namespace = section == "clips" || section == "sounds" ? ["clips", "sounds"] : [section]
            for (k, _) in m {
                guard case .scalar(let s) = k else { continue }
                for ns in namespace {
                    if let other = included.origin["\(ns).\(s.string)"] {
                        fail(
                            k, "\(section).\(s.string)",
                            "duplicate id: \(other) (an included bank) defines \(ns).\(s.string) already")
                        break
                    }
                }
            }
        }
    }
}

extension Scene {
    /// A scene of nothing (an empty bank file), at `file`.
    static func empty(file: String) -> Scene {
        Scene(file: file, name: ((file as NSString).lastPathComponent as NSString).deletingPathExtension, duration: 0,
              sampleRate: 48_000, hrtf: false, distanceModel: .inverseClamped, realVoices: nil, virtualVoices: nil,
              session: SceneSessionSettings(), listener: SceneListener(), emitters: [], events: [])
    }
}
