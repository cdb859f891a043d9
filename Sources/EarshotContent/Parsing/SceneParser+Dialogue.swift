import Earshot
import Foundation
import Yams

/// A scene's `dialogue:` section and its `say:` events (Demos/Scenes/README.md, "Dialogue").
extension SceneParser {
    /// `dialogue: { lines: FILE, locale: fr }`: the line table read (its problems are the
    /// scene's) and the locale checked against it.
    mutating func dialogueSection(_ node: Node) -> SceneDialogue? {
        guard let m = mapping(node, "dialogue", allowed: ["lines", "locale"], required: ["lines"]),
              let linesNode = m["lines"], let file = string(linesNode, "dialogue.lines") else { return nil }
        let path = file.hasPrefix("/") ? file : ((self.file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(file)
        let table: DialogueTable
        switch LineTableReader.check(path: path) {
        case .success(let t): table = t
        case .failure(let p):
            for problem in p.problems {
                if case .unreadable(let e) = problem { fail(linesNode, "dialogue.lines", e.description) } else { problems.append(problem) }
            }
            return nil
        }
        var locale = "en"
        if let n = m["locale"], let l = string(n, "dialogue.locale") {
            let chain = table.chain(for: l)
            if !DialogueTable.isLocaleTag(l) {
                fail(n, "dialogue.locale", "'\(l)' is not a language tag (1…35 letters, digits, - or _: fr, fr-CA)")
            } else if !chain.contains(where: table.locales.contains) {
                fail(n, "dialogue.locale", "no locale of '\(l)' (\(chain.joined(separator: " → "))) is in the table's locales (\(table.locales.joined(separator: ", ")))")
            }
            locale = l
        }
        return SceneDialogue(path: path, table: table, locale: locale)
    }

    /// `{ at: 2, say: intro.guard.01, by: guard }`.
    mutating func sayEvent(_ m: [String: Node], key: String, emitterIDs: Set<String>) -> SceneEvent.Action? {
        guard let keyNode = m["say"], let lineKey = string(keyNode, "\(key).say") else { return nil }
        if let table = dialogue?.table {
            if table.lines[lineKey] == nil {
                fail(keyNode, "\(key).say", unknown("dialogue line", lineKey, Set(table.lines.keys)))
            }
        } else {
            fail(keyNode, "\(key).say", "say: needs a line table (dialogue: { lines: FILE } at the top of the scene)")
        }
        var by: String?
        if let n = m["by"], let id = string(n, "\(key).by") {
            if !emitterIDs.contains(id) { fail(n, "\(key).by", unknown("emitter", id, emitterIDs)) }
            by = id
        }
        return .say(SceneSay(key: lineKey, by: by))
    }

    /// The emitters `say:` events name with `by:` (read before the emitters: a speaker needs no
    /// clip of its own).
    func speakerEmitterIDs(_ events: Node?) -> Set<String> {
        guard case .sequence(let seq)? = events else { return [] }
        var out = Set<String>()
        for e in seq {
            guard case .mapping(let m) = e, m["say"] != nil, case .scalar(let by)? = m["by"] else { continue }
            out.insert(by.string)
        }
        return out
    }

    /// Where the `dialogue:` section is, for the warnings about its table (`dialogue.lines`).
    func placeDialogue(_ scene: inout Scene, _ node: Node?) {
        guard let mark = node?.mark else { return }
        scene.lines["dialogue.lines"] = mark.line
        scene.columns["dialogue.lines"] = mark.column
    }
}
