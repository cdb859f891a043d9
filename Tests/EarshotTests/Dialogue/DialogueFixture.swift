@testable import Earshot
import EarshotMeasure
import Foundation

/// Voice files for dialogue tests: espeak-ng speaking lines in English and French, and sox tones
/// where a test must tell one line from another by frequency, in a temporary folder laid out as
/// `voice/{locale}/{key}.wav`.
final class DialogueFixture {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-dialogue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ locale: String, _ key: String) -> String {
        directory.appendingPathComponent("voice/\(locale)/\(key).wav").path
    }

    /// espeak-ng says `text` in `voice` (`en`, `fr`) into the line's file.
    func speak(_ key: String, _ locale: String, _ text: String) throws {
        try Self.run("/usr/bin/espeak-ng", ["-v", locale, "-w", prepared(locale, key), text])
    }

    /// A sine of `frequency` Hz at `volume` for `seconds`, mono 48 kHz, as the line's file.
    func tone(_ key: String, _ locale: String = "en", frequency: Int, seconds: Double, volume: Double = 0.3) throws {
        try Self.run("/usr/bin/sox", ["-D", "-n", "-r", "48000", "-c", "1", "-b", "16", prepared(locale, key),
                                      "synth", "\(seconds)", "sine", "\(frequency)", "vol", "\(volume)"])
    }

    private func prepared(_ locale: String, _ key: String) throws -> String {
        let p = path(locale, key)
        try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        return p
    }

    /// A table over the folder with `lines`.
    func table(_ lines: [DialogueLine], locales: [String] = ["en", "fr"]) -> DialogueTable {
        DialogueTable(locales: locales, fallback: "en", filePattern: "voice/{locale}/{key}.wav", baseDirectory: directory.path,
                      lines: Dictionary(uniqueKeysWithValues: lines.map { ($0.key, $0) }))
    }

    static func run(_ tool: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw EarshotError.invalidArgument("\(tool) failed: " + String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
    }

    /// First and last output frames (of interleaved stereo `x`) at or above `threshold`.
    static func audible(_ x: [Float], from: Int = 0, to: Int? = nil, threshold: Float = 0.0005) -> (first: Int, last: Int)? {
        let frames = x.count / 2
        var first: Int?, last: Int?
        for f in from..<min(to ?? frames, frames) where abs(x[2 * f]) >= threshold || abs(x[2 * f + 1]) >= threshold {
            if first == nil { first = f }
            last = f
        }
        guard let first, let last else { return nil }
        return (first, last)
    }

    /// The level in dB of `hz` in one channel of interleaved stereo `x` over `frames` (all by
    /// default), by correlation: one line told from another by its tone.
    static func toneDB(_ x: [Float], channel: Int = 0, hz: Double, frames: Range<Int>? = nil) -> Double {
        let range = frames ?? 0..<(x.count / 2)
        var re = 0.0, im = 0.0
        for i in range {
            let a = 2 * Double.pi * hz * Double(i) / 48_000
            re += Double(x[2 * i + channel]) * cos(a)
            im += Double(x[2 * i + channel]) * sin(a)
        }
        return Level.dB((re * re + im * im).squareRoot() / Double(max(range.count, 1)) * 2)
    }
}
