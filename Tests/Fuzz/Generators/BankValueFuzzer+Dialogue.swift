import Earshot
import EarshotBanks
import EarshotScenes
import Foundation

/// A bank's `dialogue: { lines: FILE, locale: L }` (Demos/Scenes/README.md, "Dialogue"): the
/// key drawn now and then in the main bank, with a line table beside it (the table over
/// Assets/Voice, its `expire:` and `fallback:` varied) — or a missing table, a folder, a /proc
/// file, a locale the table lacks, one that is no language tag. The table is one of the case's
/// files, so the edit that follows may change it (a save of the table reloads the bank).
extension BankValueFuzzer {
    /// The `dialogue:` line of the main bank and the table file it names (nil: none written).
    func dialogue(_ g: inout SplitMix64, outside: Bool) -> (key: String, table: (String, String)?) {
        let path = SceneValueFuzzer.pick(&g, Array(repeating: "lines.yaml", count: 9) + ["missing-lines.yaml", ".", "/proc/self/status"])
        let locale = SceneValueFuzzer.pick(&g, ["en", "fr", "fr-CA", "de", "en", "fr", "fr-CA", "\"fr;x\"", "\"\"", "[fr]"])
        let key = "dialogue: { lines: \(path)" + (SceneValueFuzzer.chance(&g, 0.8) ? ", locale: \(locale)" : "") + " }\n"
        guard path == "lines.yaml" else { return (key, nil) }
        let expire = SceneValueFuzzer.number(&g, 0...3_600, outside: outside)
        let table = (SceneValueFuzzer.chance(&g, 0.7) ? "locales: [en, fr]\n" : "locales: [fr]\n")
            + (SceneValueFuzzer.chance(&g, 0.7) ? "fallback: en\n" : "")
            + "files: \"\(assets)/Voice/{locale}/{key}.ogg\"\n"
            + (SceneValueFuzzer.chance(&g, 0.2) ? "ducking: { level: \(SceneValueFuzzer.number(&g, -120...0, outside: outside)) }\n" : "")
            + "lines:\n"
            + "  intro.guard.01: { speaker: guard, priority: story, text: { en: \"Halt!\", fr: \"Halte !\" } }\n"
            + "  bark.guard.grenade: { speaker: guard, priority: bark, expire: \(expire), text: { en: \"Grenade!\" } }\n"
        return (key, ("lines.yaml", table))
    }

    /// After a load or a reload that took effect: the engine holds the bank's table and a line
    /// said from it is the engine's typed error or plays (rendered by the next ``playAll``).
    func checkDialogue(_ bank: SoundBank, _ engine: AudioEngine, case i: Int, into report: inout Report) {
        guard let d = bank.dialogue else { return }
        report.dialogues += 1
        if engine.dialogueTable != d.table { report.findings.append("case \(i): the engine's line table is not the bank's") }
        do { _ = try engine.say("intro.guard.01") } catch {
            if case .lineMissing = error {} else if case .invalidArgument = error {} else {
                report.findings.append("case \(i): say: \(error)")
            }
        }
    }
}
