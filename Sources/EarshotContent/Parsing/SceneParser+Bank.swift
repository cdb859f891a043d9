import Earshot
import Foundation
import Yams

/// A bank's schema: the scene language without the timeline. A bank holds `clips:`, `sounds:`,
/// `buses:`, `snapshots:`, `zones:`, `music:` and `parameters:` (and `include:`s other banks), with the scene's
/// attenuation keys for its sounds' positioned plays; what a game plays from it is up to the game
/// (EarshotBanks' `SoundBank`).
extension SceneParser {
    /// The top-level keys of a bank.
    static let bankKeys = ["name", "include", "clips", "sounds", "buses", "snapshots", "zones", "music", "parameters",
                           ] + attenuationKeys

    /// The top-level mapping with the keys of a scene or, for a bank, of a bank: a scene key a
    /// bank has no use for (the timeline, the render settings) is refused with a reason.
    mutating func topMapping(_ root: Node) -> [String: Node]? {
        guard isBank else { return mapping(root, "", allowed: Self.topKeys, required: ["duration"]) }
        if case .mapping = root {
            for (k, _) in merged(root) {
                guard case .scalar(let s) = k, Self.topKeys.contains(s.string), !Self.bankKeys.contains(s.string) else { continue }
                fail(k, s.string, "a bank has no \(s.string): (it is a scene's; a bank holds only \(Self.bankKeys.joined(separator: ", ")))")
            }
        }
        // What a bank has no use for is not read further: a timeline's repeats would otherwise
        // be built (up to a million events) only to be refused.
        return mapping(root, "", allowed: Self.topKeys)?.filter { Self.bankKeys.contains($0.key) }
    }
}

/// A bank file's contents, read and validated: the scene language without the timeline —
/// clips, sounds, buses, snapshots, reverb zones and music, with those of the banks it includes.
///
/// EarshotBanks' `SoundBank` loads one into an engine; `earshot validate` and `earshot info`
/// read one as they read a scene. A bank with a problem is refused with
/// ``SceneError/invalid(file:line:column:key:reason:)``, naming the file (the bank's or an
/// included one's), the line, the column and the key.
///
/// ```swift
/// let bank = try SceneBank.load(path: "Demos/Bank/game.yaml")
/// print(bank.sounds.map(\.id))   // the sounds a game may play from it
/// ```
public struct SceneBank: Sendable {
    /// The bank file as it was given.
    public var file: String
    /// The `name:` (default: the file's name without extension).
    public var name: String
    /// Clips, sounds, buses, snapshots, zones and music: the included banks' first, in include
    /// order, then the bank's own.
    public var clips: [SceneClip]
    public var sounds: [SceneSound]
    public var buses: [SceneBus]
    public var snapshots: [SceneSnapshot]
    public var zones: [ReverbZone]
    public var music: [SceneMusic]
    /// The music sets (`music:` entries with `states:`): adaptive music a game drives by state
    /// (`SoundBank.setMusicState(_:of:)`).
    public var musicSets: [SceneMusicSet]
    /// The game parameters (`parameters:`) its curves name; a game sets them by name.
    public var parameters: [SceneParameter]
    /// The distance attenuation of the sounds' positioned plays (`referenceDistance:`,
    /// `maxDistance:`, `rolloff:`).
    public var attenuation: SceneAttenuation
    /// Warnings found while reading the bank and those it includes (an old linear gain, a likely
    /// unit slip: ``Scene/readWarnings``).
    public var warnings: [SceneWarning]
    /// Every file the bank reads through `include:`, in the order read (not the bank itself).
    public var includedFiles: [String]
    /// The line of each own entry's key (`sounds.footstep` → 12).
    public var lines: [String: Int]
    /// Where each entry is defined, own or included: `FILE:LINE` by key (`clips.step`).
    public var origins: [String: String]

    /// The bank file and every file it includes: what a watcher of the bank watches.
    public var files: [String] { [file] + includedFiles }

    init(_ scene: Scene) {
        file = scene.file
        name = scene.name
        clips = scene.clips
        sounds = scene.sounds
        buses = scene.buses
        snapshots = scene.snapshots
        zones = scene.zones
        music = scene.music
        musicSets = scene.musicSets
        parameters = scene.parameters
        attenuation = scene.attenuation
        includedFiles = scene.includedFiles
        warnings = scene.readWarnings + scene.unitSlipWarnings()
        lines = scene.lines
        origins = scene.origins
    }

    /// The file and line where the entry `key` (`sounds.footstep`) is defined: the bank's own or
    /// an included bank's (the bank file's first line when unknown).
    public func origin(of key: String) -> (file: String, line: Int) {
        guard let o = origins[key], let colon = o.lastIndex(of: ":"), let line = Int(o[o.index(after: colon)...]) else { return (file, 1) }
        return (String(o[..<colon]), line)
    }

    /// Reads, parses and validates a bank file; throws its first problem.
    public static func load(path: String) throws(SceneError) -> SceneBank {
        switch check(path: path) {
        case .success(let bank): return bank
        case .failure(let problems): throw problems.first ?? .invalid(file: path, line: 1, column: 1, key: "", reason: "invalid bank")
        }
    }

    /// Parses and validates a bank file, collecting every problem (for `earshot validate`).
    public static func check(path: String) -> Result<SceneBank, SceneProblems> {
        SceneParser.parse(path: path, bank: true).map(SceneBank.init)
    }

    /// Parses and validates YAML text as if it were the bank file at `path` (clip paths and
    /// includes resolve against `path`'s folder).
    public static func check(yaml: String, path: String) -> Result<SceneBank, SceneProblems> {
        SceneParser.parse(yaml: yaml, path: path, bank: true).map(SceneBank.init)
    }

    /// Whether the YAML file at `path` reads as a bank rather than a scene: a mapping at the top
    /// without `duration:` and without any of a scene's timeline keys. What `earshot validate`
    /// and `earshot info` go by; a file that is neither (unreadable, not YAML) is not a bank.
    public static func isBank(path: String) -> Bool {
        guard SceneLimits.isRegularFile(path),
              case .text(let text) = SceneLimits.readText(path, limit: SceneLimits.maxFileBytes) else { return false }
        return isBank(yaml: text)
    }

    /// ``isBank(path:)`` for YAML text: the top-level keys are read with libyaml's event parser
    /// (no tree is built).
    public static func isBank(yaml: String) -> Bool {
        guard let keys = SceneLimits.topLevelKeys(yaml) else { return false }
        if keys.isEmpty { return false }
        let sceneOnly = Set(SceneParser.topKeys).subtracting(SceneParser.bankKeys)
        return keys.allSatisfy { !sceneOnly.contains($0) }
    }
}

extension SceneBank {
    /// The name among `names` nearest to `word` by edit distance (case-insensitive; insertions,
    /// deletions, substitutions and swaps of neighbours count 1), the first in sorted order on a
    /// tie; nil when `names` is empty. Names longer than 64 characters are compared by their
    /// first 64 (the comparison costs their lengths' product).
    ///
    /// ```swift
    /// print(SceneBank.nearestName(to: "footstpe", among: ["footstep", "engine"]) ?? "")   // footstep
    /// ```
    public static func nearestName(to word: String, among names: some Sequence<String>) -> String? {
        let cap = SceneParser.maxSuggestionLength
        let w = String(word.unicodeScalars.prefix(cap))
        var best: (name: String, distance: Int)?
        for name in names.sorted() {
            let n = String(name.unicodeScalars.prefix(cap))
            let d = SceneParser.editDistance(w, n, limit: cap)
            if d < (best?.distance ?? .max) { best = (name, d) }
        }
        return best?.name
    }
}
