import Earshot
import EarshotBanks
import EarshotContent
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// A bank's `dialogue: { lines: FILE, locale: L }`: the table set on the engine at the load (a
/// line said after it is heard), a reload that changes the locale switches the file heard, a
/// bad table refuses the load or the reload and changes nothing, unload takes the table away;
/// `earshot validate` and `earshot info` on such a bank. The voice files are sox tones (440 Hz
/// in English, 1 kHz in French) so that the file heard is told by its frequency.
final class BankDialogueTests: XCTestCase {
    private func fixture(_ name: String) throws -> BankFixture {
        let f = try BankFixture(name)
        try FileManager.default.createDirectory(atPath: f.path("voice/en"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: f.path("voice/fr"), withIntermediateDirectories: true)
        try SoxTone.write(to: f.path("voice/en/hello.wav"), frequency: 440, amplitude: 0.5, seconds: 0.3)
        try SoxTone.write(to: f.path("voice/fr/hello.wav"), frequency: 1000, amplitude: 0.5, seconds: 0.3)
        try f.write("lines.yaml", Self.table())
        return f
    }

    /// The table: `hello` in both locales, and `more` lines.
    private static func table(more: String = "") -> String {
        """
        locales: [en, fr]
        fallback: en
        files: "voice/{locale}/{key}.wav"
        lines:
          hello: { speaker: guard, priority: story, text: { en: "Hello.", fr: "Bonjour." } }

        """ + more
    }

    private func bank(locale: String, lines: String = "lines.yaml") -> String {
        """
        clips:
          beep: audio/k1.wav
        sounds:
          blip: { clips: [beep] }
        dialogue: { lines: \(lines), locale: \(locale) }
        """
    }

    /// The line said now, rendered: its frequency (Hz) over 0.25 s.
    private func heardFrequency(_ engine: AudioEngine) throws -> Double {
        let line = try engine.say("hello")
        let out = try BankFixture.frames(engine, 15)   // 0.25 s, stereo
        XCTAssertNotEqual(line.outcome, .expired)
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        XCTAssertGreaterThan(Level.rms(stream: left), 0.01, "the line is heard")
        return ToneMeasure.frequency(Array(left.dropFirst(2_400)), sampleRate: 48_000)
    }

    func testTheBankSetsItsTableAndAReloadOfTheLocaleSwitchesTheFileHeard() throws {
        let f = try fixture("dialogue-load")
        defer { f.remove() }
        let path = try f.write("game.yaml", bank(locale: "en"))
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        let b = try SoundBank(path: path, engine: engine)
        XCTAssertEqual(b.dialogue?.locale, "en")
        XCTAssertEqual(b.dialogue?.table.lines.count, 1)
        XCTAssertEqual(engine.dialogueTable, b.dialogue?.table)
        XCTAssertEqual(engine.locale, "en")
        let en = try heardFrequency(engine)
        XCTAssertEqual(en, 440, accuracy: 5)

        try f.write("game.yaml", bank(locale: "fr"))
        let changes = try b.reload()
        XCTAssertEqual(changes.changed, ["dialogue"])
        XCTAssertEqual(engine.locale, "fr")
        _ = try BankFixture.frames(engine, 10)   // the English line ends
        let fr = try heardFrequency(engine)
        XCTAssertEqual(fr, 1000, accuracy: 10)
        print("bank dialogue: en line heard at \(String(format: "%.1f", en)) Hz, fr after the reload at \(String(format: "%.1f", fr)) Hz")

        // A reload that leaves the key alone keeps a locale the game set since.
        try engine.setLocale("en")
        try f.write("game.yaml", bank(locale: "fr") + "\n# a comment\n")
        XCTAssertEqual(try b.reload().changed, [])
        XCTAssertEqual(engine.locale, "en")

        // The table file itself is watched with the bank, and read again at a reload.
        XCTAssertTrue(b.definition?.files.contains(f.path("lines.yaml")) ?? false)
        try f.write("lines.yaml", Self.table(more: "  bye: { speaker: guard, priority: story, text: { en: \"Bye.\", fr: \"Salut.\" } }\n"))
        XCTAssertEqual(try b.reload().changed, ["dialogue"])
        XCTAssertNotNil(engine.dialogueTable?.lines["bye"])

        // Unload takes the bank's table away: say() throws again.
        b.unload()
        XCTAssertNil(engine.dialogueTable)
        XCTAssertThrowsError(try engine.say("hello"))
    }

    func testABadTableIsATypedErrorWithFileLineAndKeyAndChangesNothing() throws {
        let f = try fixture("dialogue-bad")
        defer { f.remove() }
        let engine = try BankFixture.engine()
        defer { engine.shutdown() }
        // A first load with a missing table: refused, no table set.
        let missing = try f.write("missing.yaml", bank(locale: "en", lines: "nowhere.yaml"))
        XCTAssertThrowsError(try SoundBank(path: missing, engine: engine)) { error in
            guard case BankError.invalid(let problems) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(problems.first?.description.hasPrefix("\(missing):5:") ?? false, "\(problems)")
            XCTAssertTrue(problems.first?.description.contains("dialogue.lines") ?? false, "\(problems)")
        }
        XCTAssertNil(engine.dialogueTable)

        let path = try f.write("game.yaml", bank(locale: "fr"))
        let b = try SoundBank(path: path, engine: engine)
        let before = engine.dialogueTable
        // A table path that does not exist, then a locale that is no language tag (one the table
        // lacks falls back to its `fallback:`, as the engine's chain does): each refused, with the bank's file, line and key.
        for (text, key) in [(bank(locale: "en", lines: "nowhere.yaml"), "dialogue.lines"),
                            (bank(locale: "\"fr;x\""), "dialogue.locale")] {
            try f.write("game.yaml", text)
            XCTAssertThrowsError(try b.reload()) { error in
                guard case BankError.invalid(let problems) = error else { return XCTFail("\(error)") }
                let first = problems.first?.description ?? ""
                XCTAssertTrue(first.hasPrefix("\(path):5:") && first.contains(key), first)
            }
            XCTAssertEqual(engine.dialogueTable, before)
            XCTAssertEqual(engine.locale, "fr")
            XCTAssertEqual(b.dialogue?.locale, "fr")
        }
        // A table the game set after the bank's is not taken away by the bank's unload.
        let own = DialogueTable(locales: ["en"])
        try engine.setDialogueTable(own)
        b.unload()
        XCTAssertEqual(engine.dialogueTable, own)
    }

    func testValidateAndInfoShowTheBanksTable() throws {
        let f = try fixture("dialogue-cli")
        defer { f.remove() }
        try f.write("lines.yaml", Self.table(more: "  gone: { speaker: guard, priority: story, text: { en: \"Gone.\" } }\n"))
        let path = try f.write("game.yaml", bank(locale: "fr"))
        let v = try CLIRunner.run("earshot", ["validate", path])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.contains("2 dialogue lines in 2 locales"), v.stdout)
        XCTAssertTrue(v.stdout.contains("missing file: gone [en]") || v.stderr.contains("missing file: gone [en]"),
                      v.stdout + v.stderr)
        XCTAssertTrue((v.stdout + v.stderr).contains("\(path):5:"), v.stdout + v.stderr)
        let i = try CLIRunner.run("earshot", ["info", path])
        XCTAssertEqual(i.status, 0, i.stderr)
        XCTAssertTrue(i.stdout.contains("2 lines, 2 locales (lines with text: en 2, fr 1), locale fr"), i.stdout)
    }
}
