#if canImport(Glibc)
import Glibc
#endif

/// The lines a game can say, by key, in every locale: what ``AudioEngine/setDialogueTable(_:)``
/// takes and `EarshotContent`'s `LineTableReader` reads from YAML or CSV.
///
/// A line's file in a locale is its own (``DialogueLine/files``), else the table's
/// ``filePattern`` with `{locale}` and `{key}` replaced (`voice/{locale}/{key}.wav`), relative
/// paths from ``baseDirectory``. A locale is looked up along a chain: the locale asked for, its
/// language alone (`fr-CA → fr`), then ``fallback``.
///
/// ```swift
/// var table = DialogueTable(locales: ["en", "fr"], fallback: "en", filePattern: "voice/{locale}/{key}.wav")
/// table.lines["intro.guard.01"] = DialogueLine(key: "intro.guard.01", speaker: "guard",
///                                              text: ["en": "Halt!", "fr": "Halte !"])
/// print(table.chain(for: "fr-CA"))   // ["fr-CA", "fr", "en"]
/// ```
public struct DialogueTable: Sendable, Equatable {
    /// The most lines a table holds (checked by the readers before they are stored).
    public static let maxLines = 100_000
    /// The longest key, speaker name, locale or file path, in bytes.
    public static let maxNameBytes = 1_024
    /// The longest subtitle text of one locale, in bytes.
    public static let maxTextBytes = 4_096
    /// The most cues one line has in one locale.
    public static let maxCues = 256
    /// Seconds a line that is cut by a more important one (or stopped) takes to fade out.
    public static let cutFade = 0.03

    /// The locales the table is written for (`[en, fr]`).
    public var locales: [String]
    /// The last locale of every chain (`en`), or nil for none.
    public var fallback: String?
    /// Where a line's file is when it names none: `{locale}` and `{key}` are replaced.
    public var filePattern: String?
    /// Where relative file paths start ("" : the working directory).
    public var baseDirectory: String
    /// The lines, by key.
    public var lines: [String: DialogueLine]
    /// How ``Bus/voice`` ducks ``Bus/music`` and ``Bus/ambience`` once the table is set (nil:
    /// the engine's duckings are left as they are). Default: ``Ducking/init(level:attack:release:threshold:hold:)``'s
    /// −12 dB.
    public var ducking: Ducking?

    public init(locales: [String] = ["en"], fallback: String? = nil, filePattern: String? = nil,
                baseDirectory: String = "", lines: [String: DialogueLine] = [:], ducking: Ducking? = Ducking()) {
        self.locales = locales
        self.fallback = fallback
        self.filePattern = filePattern
        self.baseDirectory = baseDirectory
        self.lines = lines
        self.ducking = ducking
    }

    /// Whether `locale` is a language tag ``AudioEngine/setLocale(_:)`` takes: 1…35 ASCII
    /// letters, digits, `-` or `_` (`fr`, `fr-CA`, `zh_Hant`).
    public static func isLocaleTag(_ locale: String) -> Bool {
        (1...35).contains(locale.utf8.count)
            && locale.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }

    /// The locales tried for `locale`, in order, without repeats: `fr-CA`, `fr`, then
    /// ``fallback`` (`-` or `_` separate the region).
    public func chain(for locale: String) -> [String] {
        var out: [String] = []
        func add(_ l: String) { if !l.isEmpty, !out.contains(l) { out.append(l) } }
        add(locale)
        var rest = Substring(locale)
        while let cut = rest.lastIndex(where: { $0 == "-" || $0 == "_" }) {
            rest = rest[..<cut]
            add(String(rest))
        }
        if let fallback { add(fallback) }
        return out
    }

    /// The path of `line`'s file in `locale` (its own, else the pattern's), or nil when there is none.
    public func path(of line: DialogueLine, locale: String) -> String? {
        let raw: String
        if let own = line.files[locale] {
            raw = own
        } else if let pattern = filePattern {
            raw = pattern.replacing("{locale}", with: locale).replacing("{key}", with: line.key)
        } else {
            return nil
        }
        if raw.hasPrefix("/") || baseDirectory.isEmpty { return raw }
        return baseDirectory.hasSuffix("/") ? baseDirectory + raw : baseDirectory + "/" + raw
    }

    /// What `key` resolves to for `locale`: the first locale of the chain whose file exists, its
    /// text (that locale's, else the first of the chain that has one) and cues, and whether it
    /// fell back.
    ///
    /// Throws ``EarshotError/lineMissing(key:localesTried:)`` naming the key and every locale
    /// tried (none for a key that is not in the table).
    public func resolve(_ key: String, locale: String) throws(EarshotError) -> ResolvedLine {
        guard let line = lines[key] else { throw .lineMissing(key: key, localesTried: []) }
        let chain = chain(for: locale)
        for candidate in chain {
            guard let path = path(of: line, locale: candidate), Self.isRegularFile(path) else { continue }
            let text = line.text[candidate] ?? chain.lazy.compactMap { line.text[$0] }.first ?? ""
            // `fr-CA` played from `fr` is the language's own file; only another language warns.
            let sameLanguage = candidate == locale || locale.hasPrefix(candidate + "-") || locale.hasPrefix(candidate + "_")
            return ResolvedLine(line: line, locale: candidate, path: path, text: text,
                                cues: line.cues[candidate] ?? [], fellBackFrom: sameLanguage ? nil : locale)
        }
        throw .lineMissing(key: key, localesTried: chain)
    }

    static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
    }
}

/// A line found for a locale (``DialogueTable/resolve(_:locale:)``).
public struct ResolvedLine: Sendable, Hashable {
    /// The table's line.
    public var line: DialogueLine
    /// The locale whose file plays.
    public var locale: String
    /// The file that plays.
    public var path: String
    /// The subtitle text.
    public var text: String
    /// The table's cues for that locale.
    public var cues: [SubtitleCue]
    /// The locale asked for when the file is another language's (the table's fallback: a
    /// warning), else nil (`fr` for `fr-CA` is not a fallback).
    public var fellBackFrom: String?
}
