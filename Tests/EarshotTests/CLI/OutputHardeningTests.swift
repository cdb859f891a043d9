@testable import Earshot
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// Outputs and odd command lines (issue 12, items 3, 4 and 9): containers by extension, no
/// partial files, no writing over inputs, bounded durations, free space checked first, negative
/// numbers accepted; every refusal is `earshot: …` and exit 1, never a signal.
final class OutputHardeningTests: XCTestCase {
    private var tmp: URL!
    private var beep: String { CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/beep.wav").path }

    override func setUpWithError() throws {
        tmp = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func path(_ name: String) -> String { tmp.appendingPathComponent(name).path }
    private func files() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: tmp.path))?.sorted() ?? [] }

    private func assertRefused(_ r: CLIRunner.Result, _ fragment: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, 1, "exit status; stderr: \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.hasPrefix("earshot: "), r.stderr, file: file, line: line)
        XCTAssertTrue(r.stderr.contains(fragment), r.stderr, file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r.stderr)", file: file, line: line)
    }

    // MARK: Item 9: negative numbers

    func testNegativeNumbersAreValuesNotOptions() throws {
        let out = path("left.wav")
        let r = try CLIRunner.run("earshot", ["play", beep, "--at", "-3,0,0", "--out", out])
        XCTAssertEqual(r.status, 0, r.stderr)
        let audio = try SndFileDecoder.decode(path: out).floatSamples()
        let rms = Level.rms(audio, channels: 2)
        XCTAssertGreaterThan(rms[0], rms[1] * 4, "3 m to the left is heard on the left")
        assertRefused(try CLIRunner.run("earshot", ["render", "Demos/Scenes/orbit.yaml", "-o", path("o.wav"), "--duration", "-1"]),
                      "--duration must be more than 0")
        assertRefused(try CLIRunner.run("earshot", ["play", beep, "--gain", "-2", "--out", path("g.wav")]), "--gain must be")
        XCTAssertFalse(files().contains("o.wav"))
    }

    // MARK: Item 4: bounded durations, free space first

    func testAbsurdDurationsAndFullDisksAreRefusedBeforeWriting() throws {
        // Was: SIGILL in FrameLoop (1e15 s) or a disk filled (1e10 s).
        for seconds in ["1e15", "1e10", "86401", "nan", "inf"] {
            assertRefused(try CLIRunner.run("earshot", ["play", beep, "--out", path("long.wav"), "--seconds", seconds]),
                          "--seconds must be more than 0 and at most 86400")
        }
        // 24 h at 192 kHz stereo (61.8 GiB) does not fit the machine's tmpfs: refused up front.
        let shm = "/dev/shm/earshot-\(UUID().uuidString).wav"
        let start = Date()
        let r = try CLIRunner.run("earshot", ["play", beep, "--out", shm, "--seconds", "86400", "--rate", "192000"])
        assertRefused(r, "cannot write: needs 61.8 GiB")
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "refused before rendering")
        XCTAssertFalse(FileManager.default.fileExists(atPath: shm))
        // The library says the same.
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        XCTAssertThrowsError(try FrameLoop(engine: engine).render(seconds: 1e15, to: path("x.wav")) { _ in }) { error in
            guard case .invalidArgument(let what)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains("at most 86400 s"), what)
        }
    }

    // MARK: Item 3: containers, inputs, plots, partial files

    func testContainerFollowsTheExtensionAndOthersAreRefusedByName() throws {
        assertRefused(try CLIRunner.run("earshot", ["render", "Demos/Scenes/orbit.yaml", "-o", path("x.mp3"), "--duration", "0.5"]),
                      "cannot write \".mp3\" files (audio outputs are .wav, .rf64, .w64, .caf, .aiff, .flac, .ogg)")
        let expected = ["wav": "wav", "rf64": "wav", "w64": "w64", "caf": "caf", "aiff": "aiff", "aif": "aiff", "flac": "flac", "ogg": "ogg"]
        for (ext, format) in expected {
            let out = path("scene.\(ext)")
            let r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/orbit.yaml", "-o", out, "--duration", "0.5", "--quiet"])
            XCTAssertEqual(r.status, 0, "\(ext): \(r.stderr)")
            let probe = try FFmpegTool.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=format_name,duration",
                                                                "-of", "default=nw=1", out])
            let text = String(decoding: probe, as: UTF8.self)
            XCTAssertTrue(text.contains("format_name=\(format)"), "\(ext): \(text)")
            XCTAssertTrue(text.contains("duration=0.5"), "\(ext): \(text)")
        }
        // A short .wav is a plain RIFF WAV (libsndfile writes RF64 only past 4 GiB).
        let header = try Data(contentsOf: URL(fileURLWithPath: path("scene.wav"))).prefix(4)
        XCTAssertEqual(String(decoding: header, as: UTF8.self), "RIFF")
        // .rf64 asks for RF64 whatever the length (ffprobe's wav demuxer reads both).
        let rf64 = try Data(contentsOf: URL(fileURLWithPath: path("scene.rf64"))).prefix(4)
        XCTAssertEqual(String(decoding: rf64, as: UTF8.self), "RF64")
        // AIFF's 32-bit sizes: a 10-hour output is refused before writing.
        XCTAssertThrowsError(try AudioFileWriter(path: path("long.aiff"), sampleRate: 48_000, channels: 2,
                                                 expectedFrames: 10 * 3_600 * 48_000)) { error in
            guard case .tooLarge(_, _, let size, _, let setting)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertEqual(size, 10 * 3_600 * 48_000 * 4)
            XCTAssertTrue(setting.contains("AIFF"), setting)
        }
        XCTAssertFalse(files().contains("long.aiff"))
    }

    func testInputsAreNeverOverwritten() throws {
        let scene = path("s.yaml")
        let clip = path("b.wav")
        try FileManager.default.copyItem(atPath: beep, toPath: clip)
        try "duration: 1\nclips: { b: b.wav }\nevents: [ { at: 0, play: b } ]\n".write(toFile: scene, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: clip))
        assertRefused(try CLIRunner.run("earshot", ["render", scene, "-o", clip]), "refusing to write over an input")
        try FileManager.default.createSymbolicLink(atPath: path("alias.wav"), withDestinationPath: clip)
        assertRefused(try CLIRunner.run("earshot", ["render", scene, "-o", path("alias.wav")]), "refusing to write over an input")
        assertRefused(try CLIRunner.run("earshot", ["render", scene, "-o", path("o.wav"), "--plot", path("o.wav")]), "the same file as")
        assertRefused(try CLIRunner.run("earshot", ["decode", clip, "-o", clip]), "refusing to write over an input")
        assertRefused(try CLIRunner.run("earshot", ["play", clip, "--out", clip]), "refusing to write over an input")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: clip)), before, "the input is intact")
    }

    func testPlotIntoAMissingFolderFailsBeforeRendering() throws {
        let start = Date()
        let r = try CLIRunner.run("earshot", ["render", "Demos/Scenes/showcase.yaml", "-o", path("show.wav"), "--plot", path("none/plot.svg")])
        assertRefused(r, "the folder \(path("none")) does not exist")
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "before the render")
        XCTAssertEqual(files(), [], "nothing written")
    }

    func testAFailedRenderLeavesNothingBehind() throws {
        struct Stop: Error {}
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        XCTAssertThrowsError(try FrameLoop(engine: engine).render(seconds: 2, to: path("cut.wav")) { t in
            if t > 1 { throw Stop() }
        })
        XCTAssertEqual(files(), [], "no file and no partial file")
        XCTAssertNoThrow(try FrameLoop(engine: engine).render(seconds: 0.1, to: path("whole.wav")) { _ in })
        XCTAssertEqual(files(), ["whole.wav"])
    }

    // MARK: Ctrl-C

    /// Ctrl-C in the middle of an offline render: the process used to die of the signal and leave
    /// `.NAME.partial-PID` behind; now it removes it and exits 130.
    func testCtrlCDuringARenderLeavesNothingBehind() throws {
        let scene = path("long.yaml")
        try "duration: 36000\n".write(toFile: scene, atomically: true, encoding: .utf8)
        for args in [["render", scene, "-o", path("long.wav"), "--quiet"],
                     ["play", beep, "--loop", "--seconds", "36000", "--out", path("loop.flac")]] {
            let process = Process()
            process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("earshot")
            process.arguments = args
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while !files().contains(where: { $0.contains(".partial-") }), process.isRunning, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            XCTAssertTrue(files().contains { $0.contains(".partial-") }, "\(args): writing has started: \(files())")
            process.interrupt()   // SIGINT, as Ctrl-C sends
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "\(args): exits by itself, not by the signal")
            XCTAssertEqual(process.terminationStatus, 130, "\(args)")
            XCTAssertEqual(files(), ["long.yaml"], "\(args): no partial file, no output")
        }
    }

    /// `play SCENE --out` may not overwrite one of the scene's clips either.
    func testPlaySceneOutIsNotOneOfItsClips() throws {
        let clip = path("beep.wav"), scene = path("s.yaml")
        try FileManager.default.copyItem(atPath: beep, toPath: clip)
        try "duration: 1\nclips: { beep: beep.wav }\nevents: [ { at: 0, play: beep } ]\n".write(toFile: scene, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: URL(fileURLWithPath: clip))
        let r = try CLIRunner.run("earshot", ["play", scene, "--out", tmp.path + "/./beep.wav"])
        assertRefused(r, "refusing to write over an input")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: clip)), before)
        XCTAssertEqual(files(), ["beep.wav", "s.yaml"])
    }
}
