import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Files for the music tests, made at test time by real encoders (sox, ffmpeg), and render helpers.
final class MusicFixtures {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-music-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs a tool; throws with its stderr when it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        p.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard p.terminationStatus == 0 else {
            throw NSError(domain: "MusicFixtures", code: Int(p.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "\(tool) \(arguments.joined(separator: " ")): \(message)"])
        }
        return message
    }

    /// A 16-bit sine WAV written by sox (no dither): `frequency` Hz at `amplitude`, `seconds` long.
    func sineWAV(_ name: String, frequency: Int = 500, amplitude: Double = 0.5, seconds: Double = 1, channels: Int = 1) throws -> String {
        let out = path(name)
        try SoxTone.write(to: out, frequency: frequency, amplitude: amplitude, seconds: seconds, channels: channels)
        return out
    }

    /// The same sine encoded to Ogg Vorbis by ffmpeg's libvorbis (quality 8).
    func sineVorbis(_ name: String, frequency: Int = 500, amplitude: Double = 0.5, seconds: Double = 1, channels: Int = 1) throws -> String {
        let wav = try sineWAV(name + ".src.wav", frequency: frequency, amplitude: amplitude, seconds: seconds, channels: channels)
        let out = path(name)
        try Self.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", wav, "-c:a", "libvorbis", "-q:a", "8", out])
        return out
    }

    /// A mono WAV of silence with one click (0.9) at `clickFrame`, written through libsndfile.
    func clickWAV(_ name: String, seconds: Double = 2, clickFrame: Int) throws -> String {
        var samples = [Float](repeating: 0, count: Int(seconds * 48_000))
        samples[clickFrame] = 0.9
        let out = path(name)
        let writer = try AudioFileWriter(path: out, sampleRate: 48_000, channels: 1, format: .f32)
        try writer.write(samples)
        try writer.close()
        return out
    }
}

/// Rendering and measuring helpers for music tests.
enum MusicRender {
    /// Renders `seconds` in blocks of `block` frames (a game frame's worth) and returns the
    /// interleaved stereo output.
    static func render(_ engine: AudioEngine, seconds: Double, block: Int = 480) throws -> [Float] {
        try render(engine, frames: Int((seconds * Double(engine.sampleRate)).rounded()), block: block)
    }

    static func render(_ engine: AudioEngine, frames: Int, block: Int = 480) throws -> [Float] {
        var out: [Float] = []
        out.reserveCapacity(frames * 2)
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            out += try engine.render(frames: n)
            done += n
        }
        return out
    }

    /// The left channel of interleaved stereo.
    static func left(_ stereo: [Float]) -> [Float] { stride(from: 0, to: stereo.count, by: 2).map { stereo[$0] } }

    /// Index of the last sample whose magnitude exceeds `threshold` (−1 when none).
    static func lastSound(_ x: [Float], threshold: Float = 1e-4) -> Int { x.lastIndex { abs($0) > threshold } ?? -1 }
    static func firstSound(_ x: [Float], threshold: Float = 1e-4) -> Int { x.firstIndex { abs($0) > threshold } ?? -1 }

    /// Largest |x[i] − x[i−1]| over `range`.
    static func maxStep(_ x: [Float], _ range: Range<Int>) -> Float {
        var m: Float = 0
        for i in max(1, range.lowerBound)..<min(x.count, range.upperBound) { m = max(m, abs(x[i] - x[i - 1])) }
        return m
    }
}
