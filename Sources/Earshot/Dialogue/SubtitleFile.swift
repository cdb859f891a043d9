import Foundation

/// One subtitle of an `.srt` or `.vtt` file: from `start` to `end` seconds, `text`.
///
/// ```swift
/// let entry = SubtitleEntry(start: 1.5, end: 2.25, text: "Halt!")
/// print(SubtitleFile.srt([entry]))
/// ```
public struct SubtitleEntry: Sendable, Hashable {
    /// Seconds from the start of the file (or of the render).
    public var start: Double
    /// Seconds where it goes away (≥ start).
    public var end: Double
    /// The text (lines joined by "\n").
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }
}

/// Reads and writes SubRip (`.srt`) and WebVTT (`.vtt`) subtitle files.
///
/// Reading: at most ``maxBytes`` bytes (checked before the file is read) and
/// ``DialogueTable/maxCues`` entries; times `HH:MM:SS,mmm` (SRT) or `[HH:]MM:SS.mmm` (VTT) below
/// 100 hours; an entry ending before it starts, a time that does not parse, or a VTT file
/// without its `WEBVTT` header throws ``EarshotError/malformedFile(_:)`` naming the line.
/// VTT `NOTE`, `STYLE` and `REGION` blocks and cue settings are skipped.
///
/// ```swift
/// let entries = try SubtitleFile.parse("1\n00:00:01,000 --> 00:00:02,500\nHalt!\n", name: "halt.srt")
/// print(entries[0].start, SubtitleFile.vtt(entries))
/// ```
public enum SubtitleFile {
    /// The largest subtitle file read: 1 MiB.
    public static let maxBytes = 1 << 20

    /// Reads `path` (`.vtt` by its name or header, else SubRip).
    public static func read(path: String) throws(EarshotError) -> [SubtitleEntry] {
        let data = try FileBytes.read(path: path, limit: maxBytes, setting: "SubtitleFile.maxBytes")
        return try parse(String(decoding: data, as: UTF8.self), name: path)
    }

    /// Parses the text of an `.srt` or `.vtt` file; `name` is for messages (and says `.vtt`).
    public static func parse(_ text: String, name: String) throws(EarshotError) -> [SubtitleEntry] {
        guard text.utf8.count <= maxBytes else {
            throw .tooLarge(name: name, what: "subtitle file", size: text.utf8.count, limit: maxBytes, setting: "SubtitleFile.maxBytes")
        }
        // "\r\n" is one Character: split on every newline character.
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        if let first = lines.first, first.hasPrefix("\u{FEFF}") { lines[0] = first.dropFirst() }
        let isVTT = name.lowercased().hasSuffix(".vtt") || lines.first?.hasPrefix("WEBVTT") == true
        var i = 0
        if isVTT {
            guard lines.first?.hasPrefix("WEBVTT") == true else { throw .malformedFile("\(name): line 1: a WebVTT file starts with WEBVTT") }
            i = 1
            while i < lines.count, !lines[i].trimmingCharacters(in: .whitespaces).isEmpty { i += 1 }   // header lines
        }
        var out: [SubtitleEntry] = []
        while i < lines.count {
            // A block: lines up to a blank one.
            while i < lines.count, lines[i].trimmingCharacters(in: .whitespaces).isEmpty { i += 1 }
            guard i < lines.count else { break }
            let start = i
            while i < lines.count, !lines[i].trimmingCharacters(in: .whitespaces).isEmpty { i += 1 }
            let block = lines[start..<i]
            if isVTT, let head = block.first, head.hasPrefix("NOTE") || head.hasPrefix("STYLE") || head.hasPrefix("REGION") { continue }
            guard let timing = block.firstIndex(where: { $0.contains("-->") }), timing - start <= 1 else {
                throw .malformedFile("\(name): line \(start + 1): a subtitle block without a `start --> end` line")
            }
            let parts = block[timing].components(separatedBy: "-->")
            let endField = parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
            guard let from = time(parts[0].trimmingCharacters(in: .whitespaces), vtt: isVTT),
                  let to = time(endField, vtt: isVTT) else {
                throw .malformedFile("\(name): line \(timing + 1): a time that is not \(isVTT ? "[HH:]MM:SS.mmm" : "HH:MM:SS,mmm")")
            }
            guard to >= from else { throw .malformedFile("\(name): line \(timing + 1): the subtitle ends before it starts") }
            guard out.count < DialogueTable.maxCues else {
                throw .tooLarge(name: name, what: "subtitles", size: out.count + 1, limit: DialogueTable.maxCues, setting: "DialogueTable.maxCues")
            }
            let text = block[(timing + 1)...].joined(separator: "\n")
            out.append(SubtitleEntry(start: from, end: to, text: text))
        }
        return out
    }

    /// Seconds of `HH:MM:SS,mmm` (SRT; `.` accepted) or `[HH:]MM:SS.mmm` (VTT); nil if it does not parse.
    static func time(_ s: String, vtt: Bool) -> Double? {
        let fields = s.replacingOccurrences(of: ",", with: ".").split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3 || (vtt && fields.count == 2) else { return nil }
        let secondsField = fields[fields.count - 1]
        let whole = secondsField.split(separator: ".", omittingEmptySubsequences: false)
        guard whole.count == 2, whole[0].count == 2, (1...3).contains(whole[1].count),
              let sec = Int(whole[0]), sec < 60, whole[1].allSatisfy(\.isASCII), let ms = Int(whole[1]) else { return nil }
        guard let minutes = Int(fields[fields.count - 2]), fields[fields.count - 2].count == 2, minutes < 60 else { return nil }
        var hours = 0
        if fields.count == 3 {
            guard fields[0].count <= 2, fields[0].allSatisfy(\.isASCII), let h = Int(fields[0]), h >= 0 else { return nil }
            hours = h
        }
        let fraction = Double(ms) / pow(10, Double(whole[1].count))
        return Double(hours * 3600 + minutes * 60 + sec) + fraction
    }

    /// SubRip text of `entries` (numbered from 1, times rounded to the millisecond).
    public static func srt(_ entries: [SubtitleEntry]) -> String {
        var out = ""
        for (n, e) in entries.enumerated() {
            out += "\(n + 1)\n\(stamp(e.start, comma: true)) --> \(stamp(e.end, comma: true))\n\(e.text)\n\n"
        }
        return out
    }

    /// WebVTT text of `entries`.
    public static func vtt(_ entries: [SubtitleEntry]) -> String {
        var out = "WEBVTT\n\n"
        for e in entries { out += "\(stamp(e.start, comma: false)) --> \(stamp(e.end, comma: false))\n\(e.text)\n\n" }
        return out
    }

    static func stamp(_ seconds: Double, comma: Bool) -> String {
        // 99:59:59.999 at most (100 hours do not fit the two digits of the hours).
        let ms = min(Int((max(0, min(seconds, 360_000)) * 1000).rounded()), 359_999_999)
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, f = ms % 1000
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let frac = f < 10 ? "00\(f)" : f < 100 ? "0\(f)" : "\(f)"
        return "\(two(h)):\(two(m)):\(two(s))\(comma ? "," : ".")\(frac)"
    }
}
