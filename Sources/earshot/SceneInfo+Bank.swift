import Earshot
import EarshotScenes
import Foundation

/// `earshot info BANK`: what a bank defines — its included files, clips, sounds, snapshots,
/// buses, zones and music — as `earshot info SCENE` lists a scene's.
extension SceneInfo {
    static func printBank(path: String, json: Bool) throws {
        let bank: SceneBank
        switch SceneBank.check(path: path) {
        case .success(let b): bank = b
        case .failure(let problems):
            SceneDescription.fail(problems, path: path)   // each problem once, all of them
        }
        if json {
            let object = definitionsJSON(bank.definitions).merging([
                "file": bank.file, "name": bank.name, "kind": "bank", "includes": bank.includedFiles,
                "zones": bank.zones.map(\.name),
                "dialogue": bank.dialogue.map(dialogueJSON) ?? NSNull(),
                "snapshots": bank.snapshots.map { s -> [String: Any] in
                    ["id": s.id, "gains": Dictionary(s.gains.map { ($0.bus, $0.db) }, uniquingKeysWith: { $1 })]
                },
                "buses": bank.buses.map { b -> [String: Any] in
                    var o: [String: Any] = ["name": b.name, "ducks": b.ducks.map(\.target)]
                    if let g = b.gainDB { o["gain"] = g }
                    return o
                },
            ]) { _, own in own }
            try sayJSON(object: object, pretty: true)
            return
        }
        say("bank:      \(bank.file)")
        say("name:      \(bank.name)")
        say(
            "includes:  \(bank.includedFiles.count)\(bank.includedFiles.isEmpty ? "" : " (\(bank.includedFiles.joined(separator: ", ")))")"
        )
        say(
            "clips:     \(bank.clips.count)\(bank.clips.isEmpty ? "" : " (\(bank.clips.map(\.id).joined(separator: ", ")))")"
        )
        say("sounds:    \(bank.sounds.count)")
        for s in bank.sounds {
            say("  \(s.id): \(describe(s))" + (s.levelDB != 0 ? ", level \(format(s.levelDB)) dB" : ""))
        }
        say("snapshots: \(bank.snapshots.count)")
        for s in bank.snapshots { say("  \(s.id): \(describe(s))") }
        say("buses:     \(bank.buses.count)")
        for b in bank.buses { say("  \(b.name): \(describe(b))") }
        say(
            "zones:     \(bank.zones.count)\(bank.zones.isEmpty ? "" : " (\(bank.zones.map(\.name).joined(separator: ", ")))")"
        )
        printMusic(bank.music, bank.musicSets)
        if let d = bank.dialogue {
            let counts = d.table.locales.map { "\($0) \(linesWithText(d.table, $0))" }.joined(separator: ", ")
            say("dialogue:  \(d.path): \(d.table.lines.count) lines, \(d.table.locales.count) locales (lines with text: \(counts)), locale \(d.locale)")
        }
    }

    /// The lines of `table` with a subtitle text in `locale` (nothing read from disk).
    static func linesWithText(_ table: DialogueTable, _ locale: String) -> Int {
        table.lines.values.filter { $0.text[locale] != nil }.count
    }

    static func dialogueJSON(_ d: SceneDialogue) -> [String: Any] {
        ["lines": d.path, "locale": d.locale, "lineCount": d.table.lines.count, "locales": d.table.locales,
         "linesWithText": Dictionary(uniqueKeysWithValues: d.table.locales.map { ($0, linesWithText(d.table, $0)) })]
    }
}
