import ArgumentParser
import Earshot
import EarshotContent
import EarshotOutputs
import Foundation

/// `earshot lines TABLE`: a dialogue line table checked in every locale, with counts.
struct LinesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lines",
        abstract: "Check a dialogue line table (YAML or CSV) in every locale and count its lines.",
        discussion: """
            Reads the table (problems as `earshot: FILE:LINE:COLUMN: KEY: reason`, exit 1), then \
            checks every line in every locale: a missing file (named by key and locale), a file \
            in the pattern's folders that no line names, lengths differing more than 2× between \
            locales, a subtitle over 17 characters per second, an unreadable file. Prints the \
            lines per locale and per speaker. Findings exit 1 with --strict. --srt/--vtt write \
            a review track: every line in key order, back to back, each shown for its file's \
            length in --locale (default: the table's first locale); written whole, only on success. \
            With --scene SCENE.yaml (TABLE then optional: the scene's dialogue: table), the table \
            checked is the scene's and --srt/--vtt write the subtitles of the scene rendered \
            offline — what `earshot render SCENE --subtitles` writes, without an audio file.
            """)

    @Argument(help: "The line table (.yaml or .csv); with --scene, the scene's table (or left out).")
    var table: String?

    @Option(name: .long, help: "A scene with a dialogue: table: check its table, and write the subtitles of its render with --srt/--vtt.")
    var scene: String?

    @Option(name: .long, help: "Write the subtitles of every line, back to back, as SubRip (.srt).")
    var srt: String?

    @Option(name: .long, help: "Write the same as WebVTT (.vtt).")
    var vtt: String?

    @Option(name: .long, help: "The locale of --srt/--vtt (default: the table's first).")
    var locale: String?

    @Flag(name: .long, help: "Exit 1 when a line has a finding.")
    var strict = false

    func validate() throws {
        if table == nil, scene == nil { throw ValidationError("give a line table, or --scene SCENE.yaml") }
        if scene != nil, locale != nil { throw ValidationError("--locale is the review track's; with --scene the scene's dialogue: locale says it") }
    }

    func run() throws {
        let loadedScene = scene.map(SceneDescription.load)   // its problems exit 1
        let sceneDialogue = loadedScene.map(Self.dialogue)   // LinesCommand+Scene.swift
        let table = sceneDialogue?.path ?? self.table ?? ""
        if let given = self.table, let d = sceneDialogue, !Self.sameFile(given, d.path) {
            fail("\(given) is not the line table of \(scene ?? "") (its dialogue: lines is \(d.path))")
        }
        let loaded: DialogueTable
        if let d = sceneDialogue {
            loaded = d.table
        } else {
            switch LineTableReader.check(path: table) {
            case .success(let t): loaded = t
            case .failure(let problems):
                for p in problems.problems.dropLast() { note("earshot: \(p.description)") }
                fail(problems.problems.last?.description ?? "invalid line table")
            }
        }
        let report = LineTableCheck.run(loaded)
        for f in report.findings { note("earshot: warning: \(table): \(f)") }
        let locales = loaded.locales.map { "\($0) \(report.linesPerLocale[$0] ?? 0)" }.joined(separator: ", ")
        let speakers = report.linesPerSpeaker.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("\(table): \(loaded.lines.count) lines; with a file per locale: \(locales); per speaker: \(speakers)"
              + (report.findings.isEmpty ? "" : "; \(report.findings.count) finding\(report.findings.count == 1 ? "" : "s")"))
        let outputs = [(srt, false), (vtt, true)].compactMap { path, vtt in path.map { ($0, vtt) } }
        for (path, vtt) in outputs { checkOutput(path, vtt: vtt, inputs: [table] + [scene].compactMap { $0 }) }
        if !outputs.isEmpty {
            let entries = loadedScene.map(Self.rendered) ?? reviewEntries(loaded)   // LinesCommand+Scene.swift
            write(entries, to: outputs)
        }
        if strict, !report.findings.isEmpty { throw ExitCode(1) }
    }

    /// `path` can take the subtitles: the right extension, over no input, in a writable folder.
    func checkOutput(_ path: String, vtt: Bool, inputs: [String]) {
        guard path.lowercased().hasSuffix(vtt ? ".vtt" : ".srt") else { fail("--\(vtt ? "vtt" : "srt") writes a \(vtt ? ".vtt" : ".srt") file: \(path)") }
        OutputGuard.refuseOverwriting([path], inputs: inputs)
        OutputGuard.requireWritableFolder(path)
        if let problem = OutputGuard.notAFileProblem(path) { fail(problem) }
    }

    /// Every line with a file in the locale, in key order, back to back.
    func reviewEntries(_ loaded: DialogueTable) -> [SubtitleEntry] {
        let locale = self.locale ?? loaded.locales.first ?? "en"
        var entries: [SubtitleEntry] = []
        var t = 0.0
        for key in loaded.lines.keys.sorted() {
            guard let resolved = try? loaded.resolve(key, locale: locale),
                  let seconds = try? ClipDecoder.inspect(path: resolved.path).duration, seconds > 0 else { continue }
            entries.append(SubtitleEntry(start: t, end: t + seconds, text: resolved.text.isEmpty ? key : resolved.text))
            t += seconds
        }
        return entries
    }

    /// `entries` as each output's format, in one transaction: all the files whole, or none.
    func write(_ entries: [SubtitleEntry], to outputs: [(path: String, vtt: Bool)]) {
        let staged = OutputTransaction()
        do throws(EarshotError) {
            for (path, vtt) in outputs {
                let text = vtt ? SubtitleFile.vtt(entries) : SubtitleFile.srt(entries)
                try staged.write(Array(text.utf8), to: path)
            }
            try staged.commit()
        } catch {
            staged.rollback()
            fail(error.cliDescription + " (nothing written)")
        }
    }
}
