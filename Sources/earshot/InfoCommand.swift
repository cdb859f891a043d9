import ArgumentParser
import Earshot
import Foundation

/// `earshot info FILE`: container, codec, rate, channels, frames, duration, packets, bytes.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe an audio file (container, codec, rate, channels, frames, duration) or a scene (its sounds, limits, snapshots, buses).",
        discussion: """
            A file ending in .yaml or .yml is read as a scene: it is validated, then its clips, \
            sounds (selection, variation, limit, cooldown, bus), snapshots, buses (gain, ducking), \
            music, emitters and events are listed. CAF files are parsed by Earshot's own reader (frames after the packet table's trims); \
            other formats are described from libsndfile's header. Exits 1 with \
            `earshot: FILE: reason` on stderr when the file cannot be read.
            """)

    @Argument(help: "The audio file, or a scene (.yaml).")
    var file: String

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    func run() throws {
        if SceneInfo.isScene(file) {
            try SceneInfo(path: file).print(json: json)
            return
        }
        let info: ClipFileInfo
        do {
            info = try ClipDecoder.inspect(path: file)
        } catch {
            fail(error.description)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            var object = try JSONSerialization.jsonObject(with: encoder.encode(info)) as? [String: Any] ?? [:]
            object["file"] = file
            if object["packets"] == nil { object["packets"] = NSNull() }
            if object["audioBytes"] == nil { object["audioBytes"] = NSNull() }
            if object["frames"] == nil { object["frames"] = NSNull() }
            if object["duration"] == nil { object["duration"] = NSNull() }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("file:        \(EarshotError.oneLine(file))")   // escapes: control characters, non-UTF-8 bytes
            print("container:   \(info.container)")
            print("codec:       \(info.codec)")
            print("sample rate: \(info.sampleRate == info.sampleRate.rounded() ? String(Int(info.sampleRate)) : String(info.sampleRate)) Hz")
            print("channels:    \(info.channels)")
            print("frames:      \(info.frames.map(String.init) ?? "unknown (the file does not state a plausible length)")")
            print("duration:    \(info.duration.map { String(format: "%.6f s", $0) } ?? "unknown")")
            print("packets:     \(info.packets.map(String.init) ?? "-")")
            print("bytes:       \(info.bytes)\(info.audioBytes.map { " (\($0) of audio)" } ?? "")")
        }
    }
}
