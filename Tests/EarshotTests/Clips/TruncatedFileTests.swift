@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Files cut short are said to be cut short (issue 35.9, 36.6): files made by real encoders (sox,
/// ffmpeg) of 72,000 frames, then truncated, give `EarshotError.truncated` with the frames
/// expected and found — from a path, from memory, on inspection (`validate`, `info`) — or load
/// leniently with `ClipDecoder.Options.allowsTruncated`.
final class TruncatedFileTests: XCTestCase {
    private var dir: String!

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sox"), FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
            throw XCTSkip("sox and ffmpeg make the test files (apt-get install sox ffmpeg, or `make deps`)")
        }
        dir = NSTemporaryDirectory() + "earshot-trunc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { if let dir { try? FileManager.default.removeItem(atPath: dir) } }

    private func tool(_ path: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "\(path) \(args)")
    }

    /// 1.5 s of pink noise at 48 kHz mono (72,000 frames), as `ext`, by sox (ffmpeg for Opus and
    /// for RF64, `rf64`: a WAV whose sizes are in its `ds64` chunk).
    private func encoded(_ ext: String) throws -> String {
        let path = dir + "/full.\(ext == "rf64" ? "wav" : ext)"
        if ext == "opus" || ext == "rf64" {
            try tool("/usr/bin/ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi",
                                        "-i", "anoisesrc=d=1.5:c=pink:r=48000:a=0.3"] + (ext == "rf64" ? ["-rf64", "always"] : []) + [path])
        } else {
            try tool("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", path, "synth", "1.5", "pinknoise", "vol", "0.5"])
        }
        return path
    }

    /// The first `count` bytes of `path`, as a new file.
    private func cut(_ path: String, to count: Int, name: String) throws -> String {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(count)
        let out = dir + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: out, contents: bytes))
        return out
    }

    private func truncation(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> (expected: Int?, found: Int)? {
        do {
            try body()
            XCTFail("no error", file: file, line: line)
        } catch let EarshotError.truncated(_, expected, found, _) {
            return (expected, found)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
        return nil
    }

    /// Every container, cut in half: the typed error, frames expected and found, by path, by
    /// bytes and by inspection; whole files still decode to 72,000 frames.
    func testHalfFilesOfEveryContainerAreTruncated() throws {
        for ext in ["wav", "rf64", "flac", "ogg", "opus", "caf"] {
            let full = try encoded(ext)
            XCTAssertEqual(try ClipDecoder.decode(path: full).frameCount, 72_000, ext)
            XCTAssertNoThrow(try ClipDecoder.inspect(path: full), ext)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: full)[.size] as? Int)
            let half = try cut(full, to: size / 2, name: "half.\(ext)")
            let bytes = try FileBytes.read(path: half)
            let byPath = try XCTUnwrap(truncation { _ = try ClipDecoder.decode(path: half) }, ext)
            let byBytes = try XCTUnwrap(truncation { _ = try ClipDecoder.decode(data: bytes, name: "half.\(ext)") }, ext)
            // Inspection (`info`, `validate`) finds what decoding finds, without decoding but for a FLAC.
            let inspected = try XCTUnwrap(truncation { _ = try ClipDecoder.inspect(path: half) }, ext)
            let inspectedBytes = try XCTUnwrap(truncation { _ = try ClipDecoder.inspect(data: bytes, name: "half.\(ext)") }, ext)
            XCTAssertEqual(inspected.found, byPath.found, ext)
            XCTAssertEqual(inspectedBytes.found, byPath.found, ext)
            XCTAssertEqual(byPath.expected, byBytes.expected, ext)
            XCTAssertEqual(byPath.found, byBytes.found, ext)
            let expected = try XCTUnwrap(byPath.expected, ext)
            // The whole stated length for headers that state it; an Ogg page's granule (at least) otherwise.
            if ["wav", "rf64", "flac", "caf"].contains(ext) { XCTAssertEqual(expected, 72_000, ext) }
            XCTAssertGreaterThan(expected, byPath.found, ext)
            XCTAssertLessThan(byPath.found, 40_000, ext)
            if ext != "opus" { XCTAssertGreaterThan(byPath.found, 15_000, ext) }   // libsndfile's Opus reader opens none of it
        }
    }

    /// The issue's three files: the half Ogg that loaded 19,136 of 72,000 frames silently, the
    /// truncated WAV that validated ok, the 3,000-byte Ogg that was "not an Ogg Vorbis file".
    func testTheIssuesFilesAndTheCLI() throws {
        let ogg = try encoded("ogg"), wav = try encoded("wav")
        let oggSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: ogg)[.size] as? Int)
        let halfOgg = try cut(ogg, to: oggSize / 2, name: "half.ogg")
        let smallOgg = try cut(ogg, to: 3_000, name: "small.ogg")
        let halfWAV = try cut(wav, to: 80 + 144_000, name: "half.wav")   // sox: an 80-byte header
        let small = try XCTUnwrap(truncation { _ = try ClipDecoder.decode(path: smallOgg) })
        XCTAssertEqual(small.found, 0)
        for file in [halfOgg, smallOgg, halfWAV] {
            for command in [["info", file], ["decode", file, "-o", dir + "/out.wav"]] {
                let r = try CLIRunner.run("earshot", command)
                XCTAssertEqual(r.status, 1, "\(command): \(r.stdout)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
                XCTAssertTrue(r.stderr.contains("truncated:") && r.stderr.contains("found"), r.stderr)
                XCTAssertFalse(r.stderr.contains("not an Ogg Vorbis file"), r.stderr)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out.wav"))
        }
        let r = try CLIRunner.run("earshot", ["info", halfWAV])
        XCTAssertTrue(r.stderr.contains("72000 frames expected, 36000 found"), r.stderr)
        // A scene using the truncated WAV does not validate.
        let scene = dir + "/scene.yaml"
        try "duration: 1\nclips: { c: half.wav }\nevents:\n  - { at: 0, play: c }\n".write(toFile: scene, atomically: true, encoding: .utf8)
        let v = try CLIRunner.run("earshot", ["validate", scene])
        XCTAssertEqual(v.status, 1, v.stdout)
        XCTAssertTrue(v.stderr.contains("truncated"), v.stderr)
    }

    /// Lenient loading: what is there, with the truncation recorded; an engine loads it with a
    /// warning and plays it.
    func testLenientLoadingKeepsWhatIsThere() throws {
        let wav = try encoded("wav"), ogg = try encoded("ogg")
        let halfWAV = try cut(wav, to: 80 + 144_000, name: "half.wav")   // sox: an 80-byte header
        let oggSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: ogg)[.size] as? Int)
        let halfOgg = try cut(ogg, to: oggSize / 2, name: "half.ogg")
        var options = ClipDecoder.Options()
        options.allowsTruncated = true
        let audio = try ClipDecoder.decode(path: halfWAV, options: options)
        XCTAssertEqual(audio.frameCount, 36_000)
        XCTAssertEqual(audio.truncation?.expectedFrames, 72_000)
        XCTAssertEqual(audio.truncation?.foundFrames, 36_000)
        let vorbis = try ClipDecoder.decode(path: halfOgg, options: options)
        XCTAssertEqual(vorbis.truncation?.foundFrames, vorbis.frameCount)
        XCTAssertNil(try ClipDecoder.decode(path: wav, options: options).truncation)

        var configuration = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000, channels: .stereo))
        configuration.allowsTruncatedClips = true
        let engine = try AudioEngine(configuration: configuration)
        defer { engine.shutdown() }
        let clip = try engine.loadClip(path: halfWAV)
        XCTAssertEqual(clip.info.frameCount, 36_000)
        let strict = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000, channels: .stereo)))
        defer { strict.shutdown() }
        XCTAssertThrowsError(try strict.loadClip(path: halfWAV)) { error in
            guard case EarshotError.truncated(_, 72_000?, 36_000, _) = error else { return XCTFail("\(error)") }
        }
    }

    /// A WAV streamed to a pipe states no length (ffmpeg 0xFFFFFFFF, sox 0x7FFFF000): not truncated.
    func testStreamedWAVIsNotTruncated() throws {
        let out = dir + "/piped.wav"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "sox -n -r 48000 -c 1 -t wav - synth 0.5 sine 440 2>/dev/null > '\(out)'"]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(try ClipDecoder.decode(path: out).frameCount, 24_000)
    }

    /// Streamed music: a truncated Ogg, Opus or WAV is refused when it is loaded; a FLAC, whose
    /// cut shows only while it is decoded, ends its stream with the typed error.
    func testStreamedMusicIsRefusedOrEndsWithTheError() throws {
        let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000, channels: .stereo)))
        defer { engine.shutdown() }
        for ext in ["ogg", "opus", "wav", "flac"] {
            let full = try encoded(ext)
            XCTAssertNoThrow(try engine.loadMusic(path: full), ext)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: full)[.size] as? Int)
            let half = try cut(full, to: size / 2, name: "half.\(ext)")
            if ext == "flac" {
                let stream = try SndFileStreamDecoder(path: half)
                var buffer = [Float](repeating: 0, count: 4_096)
                let cut = truncation {
                    while try buffer.withUnsafeMutableBufferPointer({ (b) throws(EarshotError) in try stream.read(into: b.baseAddress!, frames: 4_096) }) > 0 {}
                }
                XCTAssertEqual(cut?.expected, 72_000)
                XCTAssertLessThan(cut?.found ?? .max, 40_000)
            } else {
                XCTAssertNotNil(truncation { _ = try engine.loadMusic(path: half) }, ext)
            }
        }
    }
}
