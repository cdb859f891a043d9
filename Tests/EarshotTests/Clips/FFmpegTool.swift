import Earshot
import Foundation
import XCTest

/// Runs ffmpeg (and friends) to make test vectors at test time, in a temporary directory that is
/// removed when the tool is released.
final class FFmpegTool {
    let directory: URL
    let ffmpeg: String

    /// Finds ffmpeg on PATH; skips the test with a clear message when it is absent.
    init(file: StaticString = #filePath, line: UInt = #line) throws {
        guard let path = FFmpegTool.which("ffmpeg") else {
            throw XCTSkip("ffmpeg is not installed (apt-get install ffmpeg, or `make deps`): skipping the ffmpeg-vector tests")
        }
        ffmpeg = path
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-clips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let p = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs ffmpeg with `-loglevel error -y` and the arguments; fails the test on a non-zero exit.
    @discardableResult
    func run(_ arguments: [String]) throws -> Data {
        try FFmpegTool.run(ffmpeg, ["-hide_banner", "-nostdin", "-loglevel", "error", "-y"] + arguments)
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "FFmpegTool", code: Int(process.terminationStatus), userInfo: [
                NSLocalizedDescriptionKey: "\(tool) \(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))"])
        }
        return data
    }

    /// Synthesises `samples` frames of `expression` (one `|`-separated expression per channel).
    func synth(_ name: String, expression: String, rate: Int, samples: Int, codec: String, extra: [String] = []) throws -> String {
        let out = path(name)
        try run(["-f", "lavfi", "-i", "aevalsrc=\(expression):s=\(rate)",
                 "-af", "atrim=end_sample=\(samples)", "-c:a", codec] + extra + [out])
        return out
    }

    /// ffmpeg's own decode of `file` to raw samples of `format` (`s16le`, `f32le`).
    func decodeRaw(_ file: String, format: String) throws -> Data {
        try run(["-i", file, "-f", format, "-"])
    }
}

extension PCMAudio {
    /// The samples as little-endian bytes (the layout of ffmpeg's s16le / f32le output).
    var littleEndianBytes: Data {
        switch samples {
        case .int16(let s): return s.withUnsafeBytes { Data($0) }
        case .float32(let s): return s.withUnsafeBytes { Data($0) }
        }
    }
}
