import Earshot
import Foundation

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
@dynamicMemberLookup
public struct SceneBank: Sendable {
    /// The bank file as it was given.
    public var file: String
    /// The `name:` (default: the file's name without extension).
    public var name: String
    /// Clips, sounds, buses, snapshots, zones, music and parameters — the included banks' first,
    /// in include order, then the bank's own — with their distance defaults and where each is
    /// defined; each is read as the bank's own member (`bank.sounds`).
    public var definitions: SceneDefinitions
    /// Warnings found while reading the bank and those it includes (an old linear gain, a likely
    /// unit slip: ``SceneDefinitions/readWarnings``) and the unit slips found in its definitions.
    public var warnings: [SceneWarning]
    /// The bank's own `dialogue:` line table and locale (read and checked with the bank; an
    /// included bank's is not taken), or nil. ``dialogueWarnings()`` checks its files.
    public var dialogue: SceneDialogue?

    /// The bank file, every file it includes and its line table: what a watcher of the bank watches.
    public var files: [String] { [file] + self.includedFiles + (dialogue.map { [$0.path] } ?? []) }

    /// The bank a parse of a bank file read: the parser's bank mode refuses every timeline key,
    /// so the scene it reads is its definitions alone.
    init(_ scene: Scene) {
        file = scene.file
        name = scene.name
        definitions = scene.definitions
        warnings = scene.readWarnings + scene.unitSlipWarnings()
        dialogue = scene.dialogue
    }

    /// A definition of the bank's, read as its own member (`bank.sounds`).
    public subscript<T>(dynamicMember path: WritableKeyPath<SceneDefinitions, T>) -> T {
        get { definitions[keyPath: path] }
        set { definitions[keyPath: path] = newValue }
    }

    /// The file and line where the entry `key` (`sounds.footstep`) is defined: the bank's own or
    /// an included bank's (the bank file's first line when unknown).
    public func origin(of key: String) -> (file: String, line: Int) {
        guard let o = self.origins[key], let colon = o.lastIndex(of: ":"), let line = Int(o[o.index(after: colon)...])
        else { return (file, 1) }
        return (String(o[..<colon]), line)
    }

    /// Reads, parses and validates a bank file; throws its first problem.
    public static func load(path: String) throws(SceneError) -> SceneBank {
        try check(path: path).firstProblemThrown(file: path, reason: "invalid bank")
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
