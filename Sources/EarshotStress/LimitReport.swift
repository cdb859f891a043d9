import Foundation

/// What `earshot stress --find-limit` prints: one ``VoiceLimitSearch/Row`` per kind of voice,
/// with the search's settings.
///
/// Encoded as JSON (sorted keys) by `--json`; ``markdown`` is the table Benchmarks/README.md
/// publishes (`make bench-table` pastes it between the file's voices-per-core markers).
///
/// ```swift
/// let report = try VoiceLimitSearch(budget: 0.5, updateFrames: 512, probeSeconds: 2).report()
/// print(report.markdown)
/// ```
public struct LimitReport: Codable, Sendable {
    /// The CPU budget, as a share of one core.
    public var budget: Double
    /// Frames mixed per update.
    public var updateFrames: Int
    /// The mix's sample rate.
    public var sampleRate: Int
    /// One row per kind of voice searched.
    public var rows: [VoiceLimitSearch.Row]

    public init(budget: Double, updateFrames: Int, sampleRate: Int, rows: [VoiceLimitSearch.Row]) {
        self.budget = budget
        self.updateFrames = updateFrames
        self.sampleRate = sampleRate
        self.rows = rows
    }

    /// A Markdown table, as Benchmarks/README.md publishes it (a sentence, a blank line, the
    /// table; no trailing newline).
    public var markdown: String {
        var lines = [
            "Real voices mixed within \(Int((budget * 100).rounded())) % of one core at \(sampleRate / 1000) kHz stereo, \(updateFrames)-frame updates:",
            "",
            "| voices | Earshot | raw OpenAL | Earshot / raw |",
            "|---|---|---|---|",
        ]
        for r in rows {
            let ratio =
                r.rawOpenALVoices > 0 ? String(format: "%.2f", Double(r.engineVoices) / Double(r.rawOpenALVoices)) : "–"
            lines.append("| \(r.label) | \(r.engineVoices) | \(r.rawOpenALVoices) | \(ratio) |")
        }
        return lines.joined(separator: "\n")
    }
}
