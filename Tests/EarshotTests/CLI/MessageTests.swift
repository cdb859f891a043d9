import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Messages that are true and one line long (issue 24, class 6).
final class MessageTests: XCTestCase {
    private var dir: String!

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "earshot-msg-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-hide_banner", "-loglevel", "error", "-y"] + args
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }

    /// A damaged MP3: libmpg123's notes no longer reach stderr (its handles are made quiet), and
    /// the reason is the real one, not libsndfile's "File does not exist … (possibly a pipe?)".
    func testDamagedMP3IsOneTrueLine() throws {
        let good = dir + "/good.mp3"
        try ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:duration=0.2", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "64k", good])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: good)))
        let ok = try CLIRunner.run("earshot", ["info", good])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertEqual(ok.stderr, "")
        // Cut it to its tag and first frame header, and zero a header further on.
        let damaged = dir + "/damaged.mp3"
        bytes = Array(bytes.prefix(300))
        XCTAssertTrue(FileManager.default.createFile(atPath: damaged, contents: Data(bytes)))
        for command in [["info", damaged], ["decode", damaged, "-o", dir + "/d.wav"]] {
            let r = try CLIRunner.run("earshot", command)
            XCTAssertEqual(r.status, 1, "\(command): \(r.stderr)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(command): more than one line: \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("damaged or truncated MP3"), r.stderr)
            XCTAssertFalse(r.stderr.contains("possibly a pipe") || r.stderr.contains("Note:") || r.stderr.contains("Warning:"), r.stderr)
        }
        // The library agrees from memory and from a path.
        XCTAssertThrowsError(try ClipDecoder.decode(data: bytes, name: "m.mp3")) { XCTAssertTrue("\($0)".contains("damaged or truncated MP3"), "\($0)") }
    }

    /// A file name with a newline or an escape stays on the one error line, escaped.
    func testControlCharactersInANameAreEscaped() throws {
        let name = dir + "/two\nlines\u{1B}[31m.wav"
        XCTAssertTrue(FileManager.default.createFile(atPath: name, contents: Data("not audio".utf8)))
        let r = try CLIRunner.run("earshot", ["info", name])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("two\\nlines\\u{1B}[31m.wav"), r.stderr)
        XCTAssertEqual(EarshotError.fileNotFound(path: "a\tb").description, "a\\tb: no such file")
    }

    /// `record` where no input opens: one line, no "ALSA lib …" or "AL lib: (EE)" lines (capture
    /// calls now run in the prepared OpenAL environment, as output calls did).
    func testRecordWithoutAnInputSaysOneLine() throws {
        let r = try CLIRunner.run("earshot", ["record", "-o", dir + "/r.wav", "--seconds", "0.1"])
        XCTAssertFalse(r.stderr.contains("ALSA lib") || r.stderr.contains("AL lib"), r.stderr)
        if r.status != 0 {   // no input on this machine (the usual case here): the one refusal line
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("no audio input device"), r.stderr)
        }
    }
}

extension MessageTests {
    /// A file name that is not UTF-8 (Latin-1 `café.wav`) opens, from the CLI and the library,
    /// and is shown with its byte escaped.
    func testNonUTF8FileNamesOpen() throws {
        let raw: [UInt8] = Array(dir.utf8) + Array("/caf".utf8) + [0xE9] + Array(".wav".utf8)
        let source = CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/beep.wav").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let fd = (raw + [0]).withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: raw.count + 1) { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let name = RawPath.string(fromBytes: raw)
        XCTAssertEqual(RawPath.bytes(name), raw)
        XCTAssertEqual(try ClipDecoder.decode(path: name).frameCount, try ClipDecoder.decode(path: source).frameCount)
        // The CLI gets the bytes from argv (Process passes the String's UTF-8: use a shell).
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "\"$0\" info \"$(printf '\(dir!)/caf\\351.wav')\"", CLIRunner.productsDirectory.appendingPathComponent("earshot").path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("caf\\xE9.wav"), text)
        XCTAssertTrue(text.contains("frames:      12000"), text)
    }

    /// An output name that is not UTF-8 is refused, not written under another name (Foundation
    /// turned `\xE9t\xE9.wav` into `\u{F7E9}t\u{F7E9}.wav` and the CLI said "wrote t.wav").
    func testNonUTF8OutputNamesAreRefusedNotRenamed() throws {
        let source = CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/beep.wav").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "cd \"$1\" && \"$0\" decode \"$2\" -o \"$(printf '\\351t\\351.wav')\"",
                       CLIRunner.productsDirectory.appendingPathComponent("earshot").path, dir!, source]
        let err = Pipe()
        p.standardError = err
        try p.run()
        p.waitUntilExit()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 1, text)
        XCTAssertTrue(text.contains("\\xE9t\\xE9.wav"), text)
        XCTAssertTrue(text.contains("not a UTF-8 file name"), text)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], "nothing written under any name")
    }
}
