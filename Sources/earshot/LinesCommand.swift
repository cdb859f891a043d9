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
            length in --locale (default: the table's first locale); written whole, only on success.
            """)

    @Argument(help: "The line table (.yaml or .csv).")
    var table: String

    @Option(name: .long, help: "Write the subtitles of every line, back to back, as SubRip (.srt).")
    var srt: String?

    @Option(name: .long, help: "Write the same as WebVTT (.vtt).")
    var vtt: String?

    @Option(name: .long, help: "The locale of --srt/--vtt (default: the table's first).")
    var locale: String?

    @Flag(name: .long, help: "Exit 1 when a line has a finding.")
    var strict = false

    func run() throws {
        let loaded: DialogueTable
        switch LineTableReader.check(path: table) {
        case .success(let t): loaded = t
        case .failure(let problems):
            for p in problems.problems.dropLast() { note("earshot: \(p.description)") }
            fail(problems.problems.last?.description ?? "invalid line table")
        }
        let report = LineTableCheck.run(loaded)
        for f in report.findings { note("earshot: warning: \(table): \(f)") }
        let locales = loaded.locales.map { "\($0) \(report.linesPerLocale[$0] ?? 0)" }.joined(separator: ", ")
        let speakers = report.linesPerSpeaker.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("\(table): \(loaded.lines.count) lines; with a file per locale: \(locales); per speaker: \(speakers)"
              + (report.findings.isEmpty ? "" : "; \(report.findings.count) finding\(report.findings.count == 1 ? "" : "s")"))
        for (path, vtt) in [(srt, false), (vtt, true)] {
            guard let path else { continue }
            writeReview(loaded, to: path, vtt: vtt)
        }
        if strict, !report.findings.isEmpty { throw ExitCode(1) }
    }

    /// Every line with a file in the locale, in key order, back to back.
    func writeReview(_ loaded: DialogueTable, to path: String, vtt: Bool) {
        guard path.lowercased().hasSuffix(vtt ? ".vtt" : ".srt") else { fail("--\(vtt ? "vtt" : "srt") writes a \(vtt ? ".vtt" : ".srt") file: \(path)") }
        let locale = self.locale ?? loaded.locales.first ?? "en"
        OutputGuard.refuseOverwriting([path], inputs: [table])
        OutputGuard.requireWritableFolder(path)
        if let problem = OutputGuard.notAFileProblem(path) { fail(problem) }
        var entries: [SubtitleEntry] = []
        var t = 0.0
        for key in loaded.lines.keys.sorted() {
            guard let resolved = try? loaded.resolve(key, locale: locale),
                  let seconds = try? ClipDecoder.inspect(path: resolved.path).duration, seconds > 0 else { continue }
            entries.append(SubtitleEntry(start: t, end: t + seconds, text: resolved.text.isEmpty ? key : resolved.text))
            t += seconds
        }
        let text = vtt ? SubtitleFile.vtt(entries) : SubtitleFile.srt(entries)
        let outputs = OutputTransaction()
        do throws(EarshotError) {
            try outputs.write(Array(text.utf8), to: path)
            try outputs.commit()
        } catch {
            outputs.rollback()
            fail(error.cliDescription + " (nothing written)")
        }
    }
}
