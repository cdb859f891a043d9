import Earshot
import Foundation
import Yams

/// Reads a dialogue line table — YAML for designers, CSV for translators' spreadsheets — into a
/// ``DialogueTable``, every problem with its file, line, column and key.
///
/// YAML (keys in Demos/Scenes/README.md, "Line tables"):
///
/// ```yaml
/// locales: [en, fr]
/// fallback: en
/// files: "voice/{locale}/{key}.wav"      # or per line: file: { en: …, fr: … }
/// lines:
///   intro.guard.01: { speaker: guard, priority: story, text: { en: "Halt!", fr: "Halte !" } }
///   bark.guard.grenade: { speaker: guard, priority: bark, expire: 0.5, text: { en: "Grenade!" } }
/// ```
///
/// `lines:` may instead name a CSV file beside the table (`lines: lines.csv`). A CSV table has a
/// header row: `key`, `speaker` (both required), `priority`, `expire`, then `text.LOCALE` and
/// `file.LOCALE` columns (RFC 4180 quoting; a CSV read alone takes its locales from the text
/// columns, the first as fallback).
///
/// Limits, checked before anything is stored: files of at most ``maxFileBytes`` (by `stat`
/// before reading), ``DialogueTable/maxLines`` lines, keys, names and paths of
/// ``DialogueTable/maxNameBytes``, texts of ``DialogueTable/maxTextBytes``,
/// ``DialogueTable/maxCues`` cues per locale, ``maxColumns`` CSV columns; YAML nesting and
/// aliases as a scene's (`SceneLimits`).
///
/// ```swift
/// let table = try LineTableReader.load(path: "Demos/Scenes/Lines/dialogue.yaml")
/// print(table.lines.count, table.locales)
/// ```
public struct LineTableReader: YAMLReader {
    /// The largest table file read: 64 MiB.
    public static let maxFileBytes = 64 << 20
    /// The most CSV columns.
    public static let maxColumns = 256

    let file: String
    var problems: [SceneError] = []

    /// Reads the table at `path` (`.csv` by its name, else YAML); relative file paths in it start
    /// at its folder. Throws the first problem (``check(path:)`` returns them all).
    public static func load(path: String) throws(SceneError) -> DialogueTable {
        switch check(path: path) {
        case .success(let table): return table
        case .failure(let problems): throw problems.problems.first ?? .invalid(file: path, line: 1, column: 1, key: "", reason: "invalid line table")
        }
    }

    /// Reads the table at `path`, every problem found.
    public static func check(path: String) -> Result<DialogueTable, SceneProblems> {
        let text: String
        switch SceneLimits.readText(path, limit: maxFileBytes) {
        case .text(let t): text = t
        case .tooLarge(let size, _):
            return .failure(SceneProblems(problems: [.invalid(file: path, line: 1, column: 1, key: "",
                reason: "the file has \(SceneLimits.sizeText(size, limit: maxFileBytes)); a line table may have at most \(maxFileBytes) (64 MiB)")]))
        case .unreadable(let e): return .failure(SceneProblems(problems: [.unreadable(e)]))
        case .notUTF8: return .failure(SceneProblems(problems: [.unreadable(.unreadableFile(path: path, reason: "not UTF-8 text"))]))
        }
        let folder = (path as NSString).deletingLastPathComponent
        if path.lowercased().hasSuffix(".csv") {
            var csv = LineTableCSV(file: path)
            var table = csv.table(text)
            table.baseDirectory = folder
            return csv.problems.isEmpty ? .success(table) : .failure(SceneProblems(problems: csv.problems))
        }
        return parse(yaml: text, path: path, folder: folder)
    }

    /// Reads YAML `yaml` as the table at `path`; relative paths start at `folder`.
    public static func parse(yaml: String, path: String, folder: String) -> Result<DialogueTable, SceneProblems> {
        var reader = LineTableReader(file: path)
        let table = reader.read(yaml: yaml, folder: folder)
        if let table, reader.problems.isEmpty { return .success(table) }
        if reader.problems.isEmpty { reader.fail(nil, "", "invalid line table") }
        return .failure(SceneProblems(problems: reader.problems))
    }

    mutating func read(yaml: String, folder: String) -> DialogueTable? {
        if let p = SceneLimits.prescan(yaml) {
            problems.append(.invalid(file: file, line: p.line, column: p.column, key: "", reason: p.reason))
            return nil
        }
        let root: Node?
        do { root = try Yams.compose(yaml: yaml) } catch let e as YamlError { yamlProblem(e); return nil } catch {
            fail(nil, "", "YAML: \(error)")
            return nil
        }
        guard let root, let top = mapping(root, "", allowed: ["locales", "fallback", "files", "ducking", "lines"], required: ["lines"]) else {
            if root == nil { fail(nil, "", "an empty file: a line table needs `lines:`") }
            return nil
        }
        var table = DialogueTable(baseDirectory: folder)
        if let n = top["locales"] {
            if case .sequence(let seq) = n {
                table.locales = seq.enumerated().compactMap { i, item in name(item, "locales[\(i)]") }
            } else {
                fail(n, "locales", "expected a list of locales ([en, fr]), got \(describe(n))")
            }
        }
        if let n = top["fallback"] { table.fallback = name(n, "fallback") }
        if let fb = table.fallback, !table.locales.contains(fb) { fail(top["fallback"], "fallback", "'\(fb)' is not one of the locales (\(table.locales.joined(separator: ", ")))") }
        if let n = top["files"], let pattern = name(n, "files") {
            if !pattern.contains("{key}") { fail(n, "files", "the pattern must hold {key} (voice/{locale}/{key}.wav)") }
            table.filePattern = pattern
        }
        if let n = top["ducking"] { table.ducking = ducking(n) }
        guard let linesNode = top["lines"] else { return table }
        if case .scalar(let s) = linesNode, !isNull(linesNode) {
            // A CSV file beside the table.
            let csvPath = s.string.hasPrefix("/") ? s.string : (folder as NSString).appendingPathComponent(s.string)
            switch SceneLimits.readText(csvPath, limit: Self.maxFileBytes) {
            case .text(let text):
                var csv = LineTableCSV(file: csvPath)
                let read = csv.table(text, locales: table.locales)
                problems += csv.problems
                table.lines = read.lines
            default:
                fail(linesNode, "lines", "cannot read the CSV file \(csvPath) (missing, not text, or over 64 MiB)")
            }
            return table
        }
        guard case .mapping(let m) = linesNode else {
            fail(linesNode, "lines", "expected a mapping of lines by key, or a CSV file name, got \(describe(linesNode))")
            return nil
        }
        guard m.count <= DialogueTable.maxLines else {
            fail(linesNode, "lines", "\(m.count) lines; a table may have at most \(DialogueTable.maxLines)")
            return nil
        }
        table.lines.reserveCapacity(m.count)
        for (keyNode, value) in m {
            guard let key = name(keyNode, "lines") else { continue }
            guard table.lines[key] == nil else { fail(keyNode, "lines.\(key)", "duplicate key"); continue }
            if let line = line(value, key: key, locales: table.locales) { table.lines[key] = line }
        }
        return table
    }

    /// One line's mapping.
    mutating func line(_ node: Node, key: String, locales: [String]) -> DialogueLine? {
        let path = "lines.\(key)"
        guard let m = mapping(node, path, allowed: ["speaker", "priority", "category", "expire", "text", "file", "cues"], required: ["speaker"]),
              let speaker = m["speaker"].flatMap({ name($0, path + ".speaker") }) else { return nil }
        var line = DialogueLine(key: key, speaker: speaker)
        if m["priority"] != nil, m["category"] != nil { fail(m["category"], path + ".category", "give priority or category, not both (they are one key)") }
        if let n = m["priority"] ?? m["category"], let p = choice(n, path + ".priority", DialoguePriority.allCases.map(\.rawValue)) {
            line.priority = DialoguePriority(rawValue: p) ?? .story
        }
        if let n = m["expire"] { line.expire = number(n, path + ".expire", in: 0...3_600, "seconds, 0…3600") }
        if let n = m["text"] { line.text = perLocale(n, path + ".text", locales: locales, limit: DialogueTable.maxTextBytes) }
        if let n = m["file"] { line.files = perLocale(n, path + ".file", locales: locales, limit: DialogueTable.maxNameBytes) }
        if let n = m["cues"], let entries = mappingEntries(n, path + ".cues", expected: "cues by locale ({ en: [{ at: 0.8, text: … }] })") {
            for (k, v) in entries {
                guard let locale = name(k, path + ".cues") else { continue }
                line.cues[locale] = cues(v, path + ".cues.\(locale)")
            }
        }
        return line
    }

    mutating func cues(_ node: Node, _ key: String) -> [SubtitleCue] {
        guard case .sequence(let seq) = node else { fail(node, key, "expected a list of { at, text }"); return [] }
        guard seq.count <= DialogueTable.maxCues else { fail(node, key, "\(seq.count) cues; at most \(DialogueTable.maxCues)"); return [] }
        return seq.enumerated().compactMap { i, item in
            let k = "\(key)[\(i)]"
            guard let m = mapping(item, k, allowed: ["at", "text"], required: ["at", "text"]),
                  let at = m["at"].flatMap({ number($0, k + ".at", in: 0...86_400, "seconds, 0…86400") }),
                  let text = m["text"].flatMap({ bounded($0, k + ".text", limit: DialogueTable.maxTextBytes) }) else { return nil }
            return SubtitleCue(time: at, text: text)
        }
    }

    /// `{ en: …, fr: … }`: a string per locale; a locale the table does not list is a problem.
    mutating func perLocale(_ node: Node, _ key: String, locales: [String], limit: Int) -> [String: String] {
        guard let entries = mappingEntries(node, key, expected: "a mapping by locale ({ en: …, fr: … })") else { return [:] }
        var out: [String: String] = [:]
        for (k, v) in entries {
            guard let locale = name(k, key) else { continue }
            if !locales.isEmpty, !locales.contains(locale) {
                fail(k, "\(key).\(locale)", "'\(locale)' is not one of the locales (\(locales.joined(separator: ", ")))" + Self.didYouMean(locale, among: locales))
                continue
            }
            if let s = bounded(v, "\(key).\(locale)", limit: limit) { out[locale] = s }
        }
        return out
    }

    /// `ducking: off` or `{ level, attack, release, threshold, hold }`.
    mutating func ducking(_ node: Node) -> Ducking? {
        if case .scalar(let s) = node, ["off", "false", "none"].contains(s.string) { return nil }
        guard let m = mapping(node, "ducking", allowed: ["level", "attack", "release", "threshold", "hold"]) else { return Ducking() }
        var d = Ducking()
        if let n = m["level"], let v = number(n, "ducking.level", in: -120...0, "dB, −120…0") { d.level = v }
        if let n = m["attack"], let v = number(n, "ducking.attack", in: 0...10, "seconds, 0…10") { d.attack = v }
        if let n = m["release"], let v = number(n, "ducking.release", in: 0...10, "seconds, 0…10") { d.release = v }
        if let n = m["threshold"], let v = number(n, "ducking.threshold", in: -120...0, "dBFS, −120…0") { d.threshold = v }
        if let n = m["hold"], let v = number(n, "ducking.hold", in: 0...10, "seconds, 0…10") { d.hold = v }
        return d
    }

    /// A non-empty string of at most ``DialogueTable/maxNameBytes`` bytes.
    mutating func name(_ node: Node, _ key: String) -> String? {
        guard let s = bounded(node, key, limit: DialogueTable.maxNameBytes) else { return nil }
        guard !s.isEmpty else { fail(node, key, "an empty name"); return nil }
        return s
    }

    mutating func bounded(_ node: Node, _ key: String, limit: Int) -> String? {
        guard case .scalar(let s) = node, !isNull(node) else { fail(node, key, "expected a string, got \(describe(node))"); return nil }
        guard s.string.utf8.count <= limit else { fail(node, key, "\(s.string.utf8.count) bytes; at most \(limit)"); return nil }
        return s.string
    }
}
