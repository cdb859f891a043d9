import Earshot
import Foundation

/// What `earshot lines` and a scene's validation say about a line table: every locale's files
/// checked (by their headers, nothing decoded), and counts.
///
/// Findings: a line without a file in a locale (by key and locale); a file in a pattern's
/// folder that no line names; a line whose lengths differ wildly between locales (the longest
/// over ``lengthRatio`` × the shortest); a subtitle faster than ``maxCharactersPerSecond``
/// (its characters ÷ its file's length — a common broadcast guideline); a file that cannot be
/// read.
///
/// ```swift
/// let table = try LineTableReader.load(path: "Demos/Scenes/Lines/dialogue.yaml")
/// let report = LineTableCheck.run(table)
/// for f in report.findings { print(f) }
/// print(report.linesPerLocale, report.linesPerSpeaker)
/// ```
public struct LineTableCheck: Sendable {
    /// Subtitles faster than this many characters per second are hard to read.
    public static let maxCharactersPerSecond = 17.0
    /// Locales' lengths of one line differing by more than this factor are flagged.
    public static let lengthRatio = 2.0
    /// The most directory entries looked at for files without a line.
    public static let maxListedFiles = 200_000

    /// One thing to fix.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        public enum Kind: String, Sendable, Hashable {
            case missingFile = "missing file"
            case fileWithoutLine = "file without a line"
            case lengthsDiffer = "lengths differ"
            case tooFast = "subtitle too fast"
            case unreadable = "unreadable file"
        }
        public var kind: Kind
        /// The line's key (empty for a file without a line).
        public var key: String
        /// The locale concerned.
        public var locale: String
        public var detail: String

        public var description: String {
            "\(kind.rawValue): " + (key.isEmpty ? "" : "\(key) ") + "[\(locale)] \(detail)"
        }
    }

    public var findings: [Finding] = []
    /// Lines with a file, per locale.
    public var linesPerLocale: [String: Int] = [:]
    /// Lines per speaker.
    public var linesPerSpeaker: [String: Int] = [:]

    /// Checks every line of `table` in every locale.
    public static func run(_ table: DialogueTable) -> LineTableCheck {
        var out = LineTableCheck()
        for locale in table.locales { out.linesPerLocale[locale] = 0 }
        for key in table.lines.keys.sorted() {
            guard let line = table.lines[key] else { continue }
            out.linesPerSpeaker[line.speaker, default: 0] += 1
            var lengths: [(String, Double)] = []
            for locale in table.locales {
                guard let path = table.path(of: line, locale: locale) else {
                    out.findings.append(Finding(kind: .missingFile, key: key, locale: locale, detail: "no file (no files: pattern and no file: for it)"))
                    continue
                }
                guard FileManager.default.fileExists(atPath: path) else {
                    out.findings.append(Finding(kind: .missingFile, key: key, locale: locale, detail: path))
                    continue
                }
                let info: ClipFileInfo
                do { info = try ClipDecoder.inspect(path: path) } catch {
                    out.findings.append(Finding(kind: .unreadable, key: key, locale: locale, detail: "\(path): \(error)"))
                    continue
                }
                out.linesPerLocale[locale, default: 0] += 1
                guard let seconds = info.duration, seconds > 0 else { continue }
                lengths.append((locale, seconds))
                if let text = line.text[locale] {
                    let cps = Double(text.count) / seconds
                    if cps > maxCharactersPerSecond {
                        out.findings.append(Finding(kind: .tooFast, key: key, locale: locale, detail: String(
                            format: "%d characters in %.2f s: %.1f characters/s (at most %.0f read comfortably)",
                            text.count, seconds, cps, maxCharactersPerSecond)))
                    }
                }
            }
            if let short = lengths.min(by: { $0.1 < $1.1 }), let long = lengths.max(by: { $0.1 < $1.1 }), long.1 > lengthRatio * short.1 {
                out.findings.append(Finding(kind: .lengthsDiffer, key: key, locale: long.0, detail: String(
                    format: "%.2f s in %@, %.2f s in %@ (more than %.0f×)", long.1, long.0, short.1, short.0, lengthRatio)))
            }
        }
        out.findings += filesWithoutLine(table)
        return out
    }

    /// Files in the pattern's folders (`{key}` in the last path component) that no line names.
    static func filesWithoutLine(_ table: DialogueTable) -> [Finding] {
        guard let pattern = table.filePattern, let keyRange = pattern.range(of: "{key}"),
              !pattern[keyRange.upperBound...].contains("/") else { return [] }
        let prefix = String(pattern[..<keyRange.lowerBound]), suffix = String(pattern[keyRange.upperBound...])
        guard !prefix.contains("{key}"), !suffix.contains("{") else { return [] }
        var out: [Finding] = []
        for locale in table.locales {
            let folderPattern = prefix.replacing("{locale}", with: locale)
            let slash = folderPattern.lastIndex(of: "/")
            let folderPart = slash.map { String(folderPattern[..<$0]) } ?? "."
            let namePrefix = slash.map { String(folderPattern[folderPattern.index(after: $0)...]) } ?? folderPattern
            let folder = folderPart.hasPrefix("/") || table.baseDirectory.isEmpty ? folderPart : (table.baseDirectory as NSString).appendingPathComponent(folderPart)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
            for name in names.sorted().prefix(maxListedFiles) where name.hasPrefix(namePrefix) && name.hasSuffix(suffix) && name.count > namePrefix.count + suffix.count {
                let key = String(name.dropFirst(namePrefix.count).dropLast(suffix.count))
                if table.lines[key] == nil {
                    out.append(Finding(kind: .fileWithoutLine, key: "", locale: locale, detail: (folder as NSString).appendingPathComponent(name)))
                }
            }
        }
        return out
    }
}
