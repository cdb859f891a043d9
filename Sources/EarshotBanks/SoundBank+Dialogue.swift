import Earshot
import EarshotContent

/// A bank's `dialogue: { lines: FILE, locale: L }`: the line table is read and checked with the
/// bank (a table with a problem refuses the load or the reload, naming the bank's
/// `dialogue.lines` key), set on the engine with its locale at the load, and changed by a reload
/// only where the bank's table or locale changed — so a locale the game set since is kept until
/// the designer edits the bank's. The table file is watched with the bank (`watch: true`).
extension SoundBank {
    /// The bank's line table and locale as last applied (nil without a `dialogue:` key, and after
    /// ``unload()``).
    ///
    /// ```swift
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
    /// print(bank.dialogue?.table.lines.count ?? 0, bank.dialogue?.locale ?? "-")
    /// ```
    public var dialogue: SceneDialogue? { definition?.dialogue }

    /// Puts `new`'s table and locale in force where they differ from what the bank set before
    /// (`c.dialogue`); a table the bank no longer names is taken away if the engine still has it.
    /// Throws only when the engine is shutting down (the locale was checked by the parser).
    func applyDialogue(_ new: SceneBank, to c: inout BankContents) throws(EarshotError) {
        let old = c.dialogue
        guard new.dialogue != old else { return }
        if let d = new.dialogue {
            if d.table != old?.table { try engine.setDialogueTable(d.table) }
            if d.locale != old?.locale { try engine.setLocale(d.locale) }
        } else if let old {
            engine.removeDialogueTable(ifStill: old.table)
        }
        c.dialogue = new.dialogue
    }

    /// The table the bank set, taken away at its unload unless the game or another bank set
    /// another since (the locale and the duckings the table set stay: they are the engine's).
    static func releaseDialogue(_ c: BankContents, engine: AudioEngine) {
        if let d = c.dialogue { engine.removeDialogueTable(ifStill: d.table) }
    }

    /// `dialogue` in a reload's changes: added, removed, or changed (its file, its locale or
    /// the table's contents).
    static func dialogueChange(from old: SceneBank, to new: SceneBank, into out: inout BankChanges) {
        switch (old.dialogue, new.dialogue) {
        case (nil, nil): break
        case (nil, _?): out.added.append("dialogue")
        case (_?, nil): out.removed.append("dialogue")
        case (let a?, let b?): if a != b { out.changed.append("dialogue") }
        }
    }
}
