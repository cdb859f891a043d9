import ArgumentParser
import Earshot
import EarshotScenes
import Foundation

/// `earshot info FILE`: container, codec, rate, channels, frames, duration, packets, bytes, loudness, markers.
struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract:
            "Describe an audio file (container, codec, rate, channels, frames, duration, markers) or a scene (its sounds, limits, snapshots, buses).",
        discussion: """
            A file ending in .yaml or .yml is read as a scene (or, without `duration:` and a \
            timeline, as a bank, with the files it includes): it is validated, then its clips, \
            sounds (selection, variation, limit, cooldown, bus; a layered sound's layers, their clips and curves), snapshots, buses (gain, ducking), \
            music tracks and sets (states, transitions, stingers), emitters and events are listed. \
            A file of 4, 9 or 16 channels is also described as a first-, second- or third-order \
            ambisonic bed (AmbiX unless declared FuMa) and how Earshot would play it. CAF files are parsed by Earshot's own reader (frames after the packet table's trims); \
            other formats are described from libsndfile's header. Loudness (EBU R128: integrated, LRA, max momentary and short-term) and true peak are measured by decoding the whole file. Markers are listed with their \
            time, frame, kind, length and name: WAV cue points (labl names, ltxt lengths) and smpl \
            loops, CAF mark and regn chunks, Ogg Vorbis CHAPTERxxx comments; marker chunks that \
            cannot be read are reported as unreadable without failing the file. Exits 1 with \
            `earshot: FILE: reason` on stderr when the file cannot be read.
            """)

    @Argument(help: "The audio file, or a scene (.yaml).")
    var file: String

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    /// The markers, one a line: time, frame, kind, length for regions and loops, id, name.
    func printMarkers(_ info: ClipFileInfo) {
        if let reason = info.markersUnreadable {
            say("markers:     unreadable (the audio is not affected): \(EarshotError.oneLine(reason))")
            return
        }
        var notes: [String] = []
        if info.markersLeftOut > 0 {
            notes.append("\(info.markersLeftOut) past the end of the audio or unusable, left out")
        }
        if info.markersShortened > 0 { notes.append("\(info.markersShortened) shortened to end with the audio") }
        say(
            "markers:     \(info.markers.isEmpty ? "none" : String(info.markers.count))\(notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")"
        )
        for m in info.markers {
            let seconds = String(format: "%.6f s", m.time(sampleRate: info.sampleRate))
            var line = "  \(seconds)  frame \(m.frame)  \(m.kind.rawValue)"
            if let length = m.length {
                line += String(
                    format: "  length %d frames (%.6f s)", length,
                    info.sampleRate > 0 ? Double(length) / info.sampleRate : 0)
            }
            if let id = m.id { line += "  id \(id)" }
            line += "  \"\(EarshotError.oneLine(m.name))\""
            say(line)
        }
    }

    func run() throws {
        if SceneInfo.isScene(file) {
            if SceneBank.isBank(path: file) {
                try SceneInfo.printBank(path: file, json: json)
                return
            }
            try SceneInfo(path: file).print(json: json)
            return
        }
        let info: ClipFileInfo
        do {
            info = try ClipDecoder.inspect(path: file)
        } catch {
            fail(error.description)
        }
        let loudness = Self.loudness(of: file)   // InfoCommand+Loudness.swift
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            var object = try JSONSerialization.jsonObject(with: encoder.encode(info)) as? [String: Any] ?? [:]
            object["file"] = file
            if object["packets"] == nil { object["packets"] = NSNull() }
            if object["audioBytes"] == nil { object["audioBytes"] = NSNull() }
            if object["frames"] == nil { object["frames"] = NSNull() }
            if object["duration"] == nil { object["duration"] = NSNull() }
            object["markersUnreadable"] = info.markersUnreadable ?? NSNull()
            object["ambisonics"] = Self.ambisonicJSON(channels: info.channels) ?? NSNull()
            object["loudness"] = Self.loudnessJSON(loudness)
            object["markers"] = info.markers.map { m -> [String: Any] in
                [
                    "name": m.name, "frame": m.frame, "seconds": m.time(sampleRate: info.sampleRate),
                    "kind": m.kind.rawValue,
                    "id": m.id ?? NSNull(), "length": m.length ?? NSNull(),
                    "lengthSeconds": m.length.map { info.sampleRate > 0 ? Double($0) / info.sampleRate : 0 }
                        ?? NSNull(),
                ]
            }
            try sayJSON(object: object, pretty: true)
        } else {
            say("file:        \(EarshotError.oneLine(file))")   // escapes: control characters, non-UTF-8 bytes
            say("container:   \(info.container)")
            say("codec:       \(info.codec)")
            say(
                "sample rate: \(info.sampleRate == info.sampleRate.rounded() ? String(Int(info.sampleRate)) : String(info.sampleRate)) Hz"
            )
            say("channels:    \(info.channels)")
            if let a = Self.ambisonicDescription(channels: info.channels) { say("ambisonics:  \(a)") }
            say(
                "frames:      \(info.frames.map(String.init) ?? "unknown (the file does not state a plausible length)")"
            )
            say("duration:    \(info.duration.map { String(format: "%.6f s", $0) } ?? "unknown")")
            say("packets:     \(info.packets.map(String.init) ?? "-")")
            say("bytes:       \(info.bytes)\(info.audioBytes.map { " (\($0) of audio)" } ?? "")")
            Self.printLoudness(loudness)
            printMarkers(info)
        }
    }
}
