import Earshot
import Foundation

/// A line table's CSV form (RFC 4180): a header row naming the columns `key`, `speaker`,
/// `priority`, `expire`, `text.LOCALE`, `file.LOCALE`, then one line per row. Quoted fields may
/// hold commas, newlines and doubled quotes; a row with more fields than the header, an unknown
/// column, a duplicate key or an unterminated quote is a problem at its line. Limits as
/// ``LineTableReader``'s, checked before a row is stored.
///
/// ```swift
/// var csv = LineTableCSV(file: "lines.csv")
/// let table = csv.table("key,speaker,text.en\nintro.guard.01,guard,Halt!\n")
/// print(table.lines["intro.guard.01"]?.text["en"] ?? "", csv.problems)
/// ```
public struct LineTableCSV {
    let file: String
    public private(set) var problems: [SceneError] = []

    public init(file: String) { self.file = file }

    mutating func fail(_ line: Int, _ key: String, _ reason: String) {
        problems.append(.invalid(file: file, line: line, column: 1, key: key, reason: reason))
    }

    /// The rows of `text`, each with the line it starts on; nil after a problem.
    mutating func rows(_ text: String) -> [(line: Int, fields: [String])]? {
        var rows: [(Int, [String])] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var quoted = false, wasQuoted = false
        var line = 1, rowLine = 1
        let bytes = Array(text.utf8)
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field = []
            wasQuoted = false
        }
        while i < bytes.count {
            let b = bytes[i]
            if quoted {
                if b == UInt8(ascii: "\"") {
                    if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "\"") { field.append(b); i += 2; continue }
                    quoted = false
                } else {
                    if b == UInt8(ascii: "\n") { line += 1 }
                    field.append(b)
                }
                guard field.count <= DialogueTable.maxTextBytes else {
                    fail(rowLine, "", "a field over \(DialogueTable.maxTextBytes) bytes")
                    return nil
                }
                i += 1
                continue
            }
            switch b {
            case UInt8(ascii: "\""):
                guard field.isEmpty, !wasQuoted else { fail(line, "", "a quote inside an unquoted field (quote the whole field and double the quote)"); return nil }
                quoted = true
                wasQuoted = true
            case UInt8(ascii: ","):
                endField()
                guard fields.count <= LineTableReader.maxColumns else { fail(rowLine, "", "more than \(LineTableReader.maxColumns) columns"); return nil }
            case UInt8(ascii: "\r"):
                break
            case UInt8(ascii: "\n"):
                endField()
                if !(fields.count == 1 && fields[0].isEmpty) { rows.append((rowLine, fields)) }
                fields = []
                line += 1
                rowLine = line
                guard rows.count <= DialogueTable.maxLines + 1 else { fail(rowLine, "", "more than \(DialogueTable.maxLines) lines"); return nil }
            default:
                guard !wasQuoted else { fail(line, "", "text after a closing quote"); return nil }
                field.append(b)
                guard field.count <= DialogueTable.maxTextBytes else { fail(rowLine, "", "a field over \(DialogueTable.maxTextBytes) bytes"); return nil }
            }
            i += 1
        }
        guard !quoted else { fail(rowLine, "", "a quoted field is never closed"); return nil }
        if !field.isEmpty || !fields.isEmpty || wasQuoted {
            endField()
            rows.append((rowLine, fields))
        }
        return rows
    }

    /// The table in `text`; `locales` the YAML table's (empty: the text columns').
    public mutating func table(_ text: String, locales given: [String] = []) -> DialogueTable {
        var table = DialogueTable()
        guard let rows = rows(text), let header = rows.first else {
            if problems.isEmpty { fail(1, "", "an empty file: the first row names the columns (key, speaker, text.en …)") }
            return table
        }
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        var seen = Set<String>()
        for (c, n) in names.enumerated() {
            let known = ["key", "speaker", "priority", "category", "expire"].contains(n) || n.hasPrefix("text.") || n.hasPrefix("file.")
            if !known { fail(1, n, "unknown column \(c + 1) '\(n)' (key, speaker, priority, expire, text.LOCALE, file.LOCALE)") }
            if !seen.insert(n).inserted { fail(1, n, "a second column '\(n)'") }
        }
        guard let keyColumn = names.firstIndex(of: "key"), let speakerColumn = names.firstIndex(of: "speaker") else {
            fail(1, "", "the header needs the columns key and speaker")
            return table
        }
        let textLocales = names.filter { $0.hasPrefix("text.") }.map { String($0.dropFirst(5)) }
        let fileLocales = names.filter { $0.hasPrefix("file.") }.map { String($0.dropFirst(5)) }
        let locales = given.isEmpty ? textLocales : given
        for l in textLocales + fileLocales where l.isEmpty || !locales.contains(l) {
            fail(1, "text.\(l)", "'\(l)' is not one of the locales (\(locales.joined(separator: ", ")))")
        }
        table.locales = locales
        table.fallback = locales.first
        for row in rows.dropFirst() {
            guard row.fields.count <= names.count else { fail(row.line, "", "\(row.fields.count) fields; the header has \(names.count)"); continue }
            func value(_ column: String) -> String? {
                guard let c = names.firstIndex(of: column), c < row.fields.count, !row.fields[c].isEmpty else { return nil }
                return row.fields[c]
            }
            guard keyColumn < row.fields.count, speakerColumn < row.fields.count,
                  !row.fields[keyColumn].isEmpty, !row.fields[speakerColumn].isEmpty else {
                fail(row.line, "", "a row without its key or speaker")
                continue
            }
            let key = row.fields[keyColumn]
            guard key.utf8.count <= DialogueTable.maxNameBytes, row.fields[speakerColumn].utf8.count <= DialogueTable.maxNameBytes else {
                fail(row.line, "key", "a key or speaker over \(DialogueTable.maxNameBytes) bytes")
                continue
            }
            guard table.lines[key] == nil else { fail(row.line, key, "duplicate key"); continue }
            var line = DialogueLine(key: key, speaker: row.fields[speakerColumn])
            if let p = value("priority") ?? value("category") {
                guard let priority = DialoguePriority(rawValue: p) else { fail(row.line, key + ".priority", "'\(p)' is not bark, story or system"); continue }
                line.priority = priority
            }
            if let e = value("expire") {
                guard let seconds = Double(e), seconds.isFinite, (0...3_600).contains(seconds) else { fail(row.line, key + ".expire", "'\(e)' is not seconds, 0…3600"); continue }
                line.expire = seconds
            }
            for l in textLocales { if let t = value("text.\(l)") { line.text[l] = t } }
            for l in fileLocales { if let f = value("file.\(l)") { line.files[l] = f } }
            table.lines[key] = line
        }
        return table
    }
}
