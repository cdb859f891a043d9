import Earshot
import EarshotContent
import Foundation

/// Line-table and subtitle-file fuzzing (issue 42): YAML and CSV line tables and `.srt`/`.vtt`
/// files written from their structures — every key and column, values at their limits, just
/// inside and outside them, in random combinations — then one field edited (a value out of
/// range, a quote left open, a key repeated, a column added, a time past 59 …), and read as
/// `earshot lines` and the engine read them.
///
/// A finding is a valid structure refused or read differently from what was written; a table or
/// subtitle list accepted that breaks a documented limit (a line count, a name or text length, an
/// `expire` or cue range, a subtitle ending before it starts); a subtitle list that does not
/// read back from what ``SubtitleFile/srt(_:)`` and ``SubtitleFile/vtt(_:)`` write of it; or (by
/// killing the process) a trap or signal. Refused edits are an accepted outcome.
///
/// ```swift
/// let report = LineTableFuzzer(seed: 1).run(cases: 100)
/// print(report.summary)
/// ```
public struct LineTableFuzzer {
    public var seed: UInt64
    /// The folder each case's files are written to (a tmpfs by default).
    public var scratch: String = "/dev/shm"

    public init(seed: UInt64) { self.seed = seed }

    public struct Report: FuzzReport {
        public var cases = 0
        public var validTables = 0
        public var refusedTables = 0
        public var validSubtitles = 0
        public var refusedSubtitles = 0
        public var findings: [String] = []
        public var seconds = 0.0
        public var summary: String {
            "line tables: \(cases) cases (tables \(validTables) read, \(refusedTables) refused; subtitles \(validSubtitles) read, \(refusedSubtitles) refused) in "
                + String(format: "%.1f s", seconds) + ", \(findings.count) findings"
        }
    }

    /// A line as generated: what the reader must return for it.
    struct Line {
        var key: String, speaker: String, priority: String?, expire: Double?, text: [String: String]
    }

    public func run(cases: Int, seconds: Double = .infinity, log: ((String) -> Void)? = nil) -> Report {
        let folder = "\(scratch)/earshot-lines-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return FuzzDriver(seed: seed, logEvery: 200).run(Report(), cases: cases, seconds: seconds, log: log) { i, g, report in
            tableCase(i, &g, &report, folder: folder)
            subtitleCase(i, &g, &report)
        }
    }

    // MARK: Tables

    static let locales = ["en", "fr", "fr-CA", "de", "ja"]

    /// A name: ordinary, at the byte limit, UTF-8, or (rarely, in an edit) over it.
    func name(_ g: inout SplitMix64, _ i: Int) -> String {
        switch g.next() % 6 {
        case 0: return String(repeating: "k", count: DialogueTable.maxNameBytes - 4) + "\(i % 1000)".padding(toLength: 4, withPad: "0", startingAt: 0)
        case 1: return "réplique.\(i)"
        case 2: return "line-\(i)_é"
        default: return "intro.guard.\(i)"
        }
    }

    func text(_ g: inout SplitMix64) -> String {
        switch g.next() % 8 {
        case 0: return String(repeating: "é", count: DialogueTable.maxTextBytes / 2)   // exactly the limit in bytes
        case 1: return "Halte, \"dit-il\" : qui va là ?"
        case 2: return "a, b, c"
        case 3: return "Line with ' quote"
        case 4: return "x"
        default: return "Halt! Who goes there?"
        }
    }

    func lines(_ g: inout SplitMix64, locales: [String]) -> [Line] {
        let count = Int(g.next() % 6) + 1
        var out: [Line] = []
        var keys = Set<String>()
        for n in 0..<count {
            let key = name(&g, n)
            guard keys.insert(key).inserted else { continue }
            var t: [String: String] = [:]
            for l in locales where g.next() % 3 != 0 { t[l] = text(&g) }
            let priorities: [String?] = [nil, "bark", "story", "system"]
            let expires: [Double?] = [nil, 0, 0.5, 3_600]
            out.append(Line(key: key, speaker: g.next() % 2 == 0 ? "guard" : "captain",
                            priority: priorities[Int(g.next() % 4)], expire: expires[Int(g.next() % 4)], text: t))
        }
        return out
    }

    static func yamlQuoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func csvField(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    func yaml(_ lines: [Line], locales: [String]) -> String {
        var out = "locales: [\(locales.joined(separator: ", "))]\nfallback: \(locales[0])\nfiles: \"voice/{locale}/{key}.wav\"\nlines:\n"
        for l in lines {
            var fields = ["speaker: \(Self.yamlQuoted(l.speaker))"]
            if let p = l.priority { fields.append("priority: \(p)") }
            if let e = l.expire { fields.append("expire: \(e)") }
            if !l.text.isEmpty {
                fields.append("text: { " + l.text.sorted { $0.key < $1.key }.map { "\($0.key): \(Self.yamlQuoted($0.value))" }.joined(separator: ", ") + " }")
            }
            // libyaml's implicit keys end at 1024 characters: a longer one is an explicit key (`? …`).
            let key = Self.yamlQuoted(l.key)
            out += key.count < 1_000 ? "  \(key): { \(fields.joined(separator: ", ")) }\n" : "  ? \(key)\n  : { \(fields.joined(separator: ", ")) }\n"
        }
        return out
    }

    func csv(_ lines: [Line], locales: [String], crlf: Bool) -> String {
        let nl = crlf ? "\r\n" : "\n"
        var out = (["key", "speaker", "priority", "expire"] + locales.map { "text.\($0)" }).joined(separator: ",") + nl
        for l in lines {
            let row = [l.key, l.speaker, l.priority ?? "", l.expire.map { "\($0)" } ?? ""] + locales.map { l.text[$0] ?? "" }
            out += row.map(Self.csvField).joined(separator: ",") + nl
        }
        return out
    }

    /// One edit of a YAML table's text: usually something the reader must refuse.
    func editYAML(_ text: String, _ g: inout SplitMix64) -> String {
        let edits: [(String) -> String] = [
            { $0.replacingOccurrences(of: "priority: bark", with: "priority: boss") },
            { $0.replacingOccurrences(of: "expire: 0.5", with: "expire: 3600.001") },
            { $0.replacingOccurrences(of: "expire: 0.0", with: "expire: -0.001") },
            { $0.replacingOccurrences(of: "expire: 0.5", with: "expire: .nan") },
            { $0.replacingOccurrences(of: "speaker: ", with: "speakr: ") },
            { $0 + "  \"intro.guard.0\": { speaker: x }\n  \"intro.guard.0\": { speaker: y }\n" },
            { $0.replacingOccurrences(of: "locales: [", with: "locales: [xx, ") },
            { $0.replacingOccurrences(of: "fallback: ", with: "fallback: zz") },
            { $0 + "  big: { speaker: s, text: { en: \"\(String(repeating: "a", count: DialogueTable.maxTextBytes + 1))\" } }\n" },
            { $0 + "  \(String(repeating: "k", count: DialogueTable.maxNameBytes + 1)): { speaker: s }\n" },
            { $0 + "  cued: { speaker: s, cues: { en: [{ at: -1, text: a }, { at: 0.5 }] } }\n" },
            { $0 + "  cued2: { speaker: s, cues: { en: [{ at: 0.25, text: a }, { at: 86400, text: b }] } }\n" },
            { String($0.prefix(max(0, $0.count / 2))) },
            { $0.replacingOccurrences(of: "{", with: "[") },
            { $0 + "anchors: &a [x, *a]\n" },
            { $0.replacingOccurrences(of: "  ", with: "\t") },
        ]
        return edits[Int(g.next() % UInt64(edits.count))](text)
    }

    func editCSV(_ text: String, _ g: inout SplitMix64) -> String {
        let edits: [(String) -> String] = [
            { $0 + "unclosed,guard,,,\"never" },
            { $0 + "extra,guard,,,a,b,c,d,e,f,g,h\n" },
            { $0.replacingOccurrences(of: ",bark,", with: ",boss,") },
            { $0.replacingOccurrences(of: ",0.5,", with: ",-1,") },
            { $0.replacingOccurrences(of: "key,", with: "kee,") },
            { $0 + "a\"b,guard\n" },
            { $0 + "\"q\"x,guard\n" },
            { String(repeating: "c,", count: LineTableReader.maxColumns + 1) + "\n" + $0 },
            { $0 + ",guard\n" },
            { "\u{FEFF}" + $0 },
            { $0 + $0.split(separator: "\n").dropFirst().prefix(1).joined() + "\n" },
        ]
        return edits[Int(g.next() % UInt64(edits.count))](text)
    }

    func tableCase(_ i: Int, _ g: inout SplitMix64, _ report: inout Report, folder: String) {
        let localeCount = Int(g.next() % 3) + 1
        let locales = Array(Self.locales.shuffled(using: &g).prefix(localeCount))
        let generated = lines(&g, locales: locales)
        let isCSV = g.next() % 2 == 0
        var text = isCSV ? csv(generated, locales: locales, crlf: g.next() % 3 == 0) : yaml(generated, locales: locales)
        let edited = g.next() % 2 == 0
        if edited { text = isCSV ? editCSV(text, &g) : editYAML(text, &g) }
        let path = "\(folder)/table.\(isCSV ? "csv" : "yaml")"
        do { try text.write(toFile: path, atomically: false, encoding: .utf8) } catch { return }
        switch LineTableReader.check(path: path) {
        case .failure(let problems):
            report.refusedTables += 1
            if !edited { report.findings.append("case \(i): a valid \(isCSV ? "CSV" : "YAML") table refused: \(problems.problems.first.map(\.description) ?? "")\n\(text)") }
        case .success(let table):
            report.validTables += 1
            if let problem = limitBroken(table) { report.findings.append("case \(i): \(problem)\n\(text.prefix(4_000))") }
            guard !edited else { return }
            for l in generated {
                guard let read = table.lines[l.key] else {
                    report.findings.append("case \(i): line \(l.key.prefix(40)) lost\n\(text.prefix(4_000))")
                    continue
                }
                if read.speaker != l.speaker || read.text != l.text || read.expire != l.expire
                    || read.priority.rawValue != (l.priority ?? "story") {
                    report.findings.append("case \(i): line \(l.key.prefix(40)) read as \(read), written as \(l)\n\(text.prefix(4_000))")
                }
            }
            if table.lines.count != generated.count { report.findings.append("case \(i): \(table.lines.count) lines read, \(generated.count) written") }
        }
    }

    /// A documented limit the accepted `table` breaks, or nil.
    func limitBroken(_ table: DialogueTable) -> String? {
        if table.lines.count > DialogueTable.maxLines { return "\(table.lines.count) lines accepted" }
        for (key, l) in table.lines {
            if key.utf8.count > DialogueTable.maxNameBytes || l.speaker.utf8.count > DialogueTable.maxNameBytes { return "a name over the limit accepted" }
            if l.text.values.contains(where: { $0.utf8.count > DialogueTable.maxTextBytes }) { return "a text over the limit accepted" }
            if let e = l.expire, !(e.isFinite && (0...3_600).contains(e)) { return "expire \(e) accepted" }
            for cues in l.cues.values {
                if cues.count > DialogueTable.maxCues { return "\(cues.count) cues accepted" }
                if cues.contains(where: { !($0.time.isFinite && (0...86_400).contains($0.time)) }) { return "a cue time out of range accepted" }
            }
            if !table.locales.isEmpty, let stray = l.text.keys.first(where: { !table.locales.contains($0) }) { return "text in locale \(stray) outside the table's locales accepted" }
        }
        return nil
    }

    // MARK: Subtitles

    func subtitleCase(_ i: Int, _ g: inout SplitMix64, _ report: inout Report) {
        var entries: [SubtitleEntry] = []
        var t = 0.0
        for _ in 0..<Int(g.next() % 5) {
            let gap: Double = Double(g.next() % 5_000) / 1000
            let length: Double = Double(g.next() % 3_000) / 1000
            let start: Double = t + gap
            let end: Double = start + length
            let texts = ["Halt!", "Qui va là ?\nMontrez-vous.", "-->", "1", "NOTE this", "<i>x</i>"]
            let pick = Int(g.next() % UInt64(texts.count))
            entries.append(SubtitleEntry(start: start, end: end, text: texts[pick]))
            t = end
        }
        if g.next() % 20 == 0 { entries.append(SubtitleEntry(start: 359_999.998, end: 359_999.999, text: "the last")) }
        let vtt = g.next() % 2 == 0
        var text = vtt ? SubtitleFile.vtt(entries) : SubtitleFile.srt(entries)
        let edited = g.next() % 2 == 0
        if edited {
            text = Self.editSubtitles(text, Int(g.next() % 11))
        }
        let name = vtt ? "case.vtt" : "case.srt"
        do {
            let read = try SubtitleFile.parse(text, name: name)
            report.validSubtitles += 1
            if read.count > DialogueTable.maxCues { report.findings.append("case \(i): \(read.count) subtitles accepted") }
            if let bad = read.first(where: { !($0.start.isFinite && $0.end.isFinite && $0.start >= 0 && $0.end >= $0.start) }) {
                report.findings.append("case \(i): subtitle \(bad) accepted\n\(text)")
            }
            // What the writers write of it reads back the same (to the millisecond).
            for again in [SubtitleFile.srt(read), SubtitleFile.vtt(read)] {
                let back = (try? SubtitleFile.parse(again, name: again.hasPrefix("WEBVTT") ? "x.vtt" : "x.srt")) ?? []
                if back.count != read.count || zip(back, read).contains(where: { abs($0.start - $1.start) > 0.0006 || abs($0.end - $1.end) > 0.0006 }) {
                    report.findings.append("case \(i): written and read back differently\n\(text)")
                }
            }
            if !edited, read.count != entries.count || zip(read, entries).contains(where: { abs($0.start - $1.start) > 0.0006 || $0.text != $1.text }) {
                report.findings.append("case \(i): a written subtitle file read differently\n\(text)")
            }
        } catch {
            report.refusedSubtitles += 1
            if !edited { report.findings.append("case \(i): a written subtitle file refused: \(error)\n\(text)") }
        }
    }

    /// Edit `which` (0…10) of a subtitle file's text.
    static func editSubtitles(_ t: String, _ which: Int) -> String {
        switch which {
        case 0: return t.replacingOccurrences(of: "00:00:0", with: "00:00:6")
        case 1: return t.replacingOccurrences(of: "00:0", with: "00:6")
        case 2: return t.replacingOccurrences(of: " --> ", with: " -> ")
        case 3: return t.replacingOccurrences(of: ",", with: ";")
        case 4: return t.replacingOccurrences(of: "\n", with: "\r\n")
        case 5: return t.replacingOccurrences(of: "WEBVTT", with: "WEBVT")
        case 6: return t.replacingOccurrences(of: "000\n", with: "0000\n")
        case 7: return t + "99\n00:00:02,000 --> 00:00:01,000\nbackwards\n"
        case 8: return String(repeating: "1\n00:00:00,000 --> 00:00:00,001\nx\n\n", count: DialogueTable.maxCues + 1)
        case 9: return String(t.prefix(t.count / 2))
        default: return "\u{FEFF}" + t
        }
    }
}
