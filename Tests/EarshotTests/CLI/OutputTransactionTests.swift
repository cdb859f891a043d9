import CSndFile
@testable import Earshot
import EarshotOutputs
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 24 item 4: outputs that neither lie nor linger. Each command's outputs appear together
/// and only on success; temporaries cannot be guessed or redirected; every catchable fatal signal
/// cleans up; partials of dead processes are swept; stdout errors and failing sources exit 1.
/// All through the real CLI.
final class OutputTransactionTests: XCTestCase {
    private var tmp: URL!
    private var beep: String { CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds/beep.wav").path }

    override func setUpWithError() throws {
        tmp = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-tx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func path(_ name: String) -> String { tmp.appendingPathComponent(name).path }
    private func files() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: tmp.path))?.sorted() ?? [] }

    /// A pid that no process has now: a child that has exited.
    private func deadPID() throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/true")
        try p.run()
        p.waitUntilExit()
        return p.processIdentifier
    }

    func testPlantedSymlinksAtPredictableNamesRedirectNothing() throws {
        // The old temporary name was `.NAME.partial-PID`: plant a symlink to a victim at that name
        // for the 400 pids after the one a child just got (the next child's among them, unless 400
        // processes start meanwhile), for the WAV and the plot.
        let victim = path("victim.txt")
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        let me = try deadPID() + 1
        let folder = tmp.path
        var planted = 0
        for pid in me..<(me + 400) {
            for name in ["out.wav", "plot.svg"] where symlink(victim, "\(folder)/.\(name).partial-\(pid)") == 0 { planted += 1 }
        }
        XCTAssertEqual(planted, 800)
        var r = try CLIRunner.run("earshot", ["decode", beep, "-o", path("out.wav")])
        XCTAssertEqual(r.status, 0, r.stderr)
        let scene = path("s.yaml")
        try "duration: 0.5\nclips: { beep: \(beep) }\nevents: [ { at: 0, play: beep } ]\n".write(toFile: scene, atomically: true, encoding: .utf8)
        // The output itself a symlink to the victim: replaced, not followed.
        try FileManager.default.createSymbolicLink(atPath: path("r.wav"), withDestinationPath: victim)
        r = try CLIRunner.run("earshot", ["render", scene, "-o", path("r.wav"), "--plot", path("plot.svg"), "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious", "the victim is untouched")
        for name in ["out.wav", "r.wav", "plot.svg"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path(name))
            XCTAssertEqual(attributes[.type] as? FileAttributeType, .typeRegular, name)
        }
        XCTAssertEqual(try SndFileDecoder.decode(path: path("out.wav")).frameCount, try SndFileDecoder.decode(path: beep).frameCount)
        // The planted links are not ours: not swept (only regular files are).
        XCTAssertEqual(files().filter { $0.contains(".partial-") }.count, 800)
    }

    func testPlotOntoAFolderOrADeviceLeavesNoWAV() throws {
        let scene = path("s.yaml")
        try "duration: 0.5\nclips: { beep: \(beep) }\nevents: [ { at: 0, play: beep } ]\n".write(toFile: scene, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: path("plots"), withIntermediateDirectories: false)
        var r = try CLIRunner.run("earshot", ["render", scene, "-o", path("a.wav"), "--plot", path("plots")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\(path("plots")): cannot write: it is a folder"), r.stderr)
        XCTAssertFalse(r.stderr.contains("NSCocoaErrorDomain"), r.stderr)
        // A device that takes nothing (a full disk for the plot): refused, nothing written.
        r = try CLIRunner.run("earshot", ["render", scene, "-o", path("a.wav"), "--plot", "/dev/full"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("/dev/full: cannot write: it is not a regular file"), r.stderr)
        XCTAssertEqual(files(), ["plots", "s.yaml"], "no WAV, no partial")
    }

    func testAFullPlotDiskRollsBackTheWAVInProcess() throws {
        // The transaction itself: a staged WAV and a plot whose write fails (ENOSPC on /dev/full's
        // folder cannot be made here, so a write into a folder that vanished stands in) — neither appears.
        let tx = OutputTransaction()
        let writer = try AudioFileWriter(path: path("t.wav"), sampleRate: 48_000, channels: 1, transaction: tx)
        try writer.write([Float](repeating: 0.1, count: 4_800))
        try writer.close()
        XCTAssertFalse(files().contains("t.wav"), "hidden until the commit")
        XCTAssertThrowsError(try tx.write(Array("<svg/>".utf8), to: path("gone/p.svg")))
        tx.rollback()
        XCTAssertEqual(files(), [], "the WAV's temporary went with the rollback")
        // And a commit that meets a folder at a target renames nothing.
        let tx2 = OutputTransaction()
        let w2 = try AudioFileWriter(path: path("u.wav"), sampleRate: 48_000, channels: 1, transaction: tx2)
        try w2.write([Float](repeating: 0.1, count: 480))
        try w2.close()
        try FileManager.default.createDirectory(atPath: path("p.svg"), withIntermediateDirectories: false)
        try tx2.write(Array("<svg/>".utf8), to: path("p.svg"))
        XCTAssertThrowsError(try tx2.commit()) { XCTAssertTrue("\($0)".contains("it is a folder"), "\($0)") }
        XCTAssertEqual(files(), ["p.svg"], "no WAV either")
    }

    func testStdoutToAFullDeviceExitsOne() throws {
        for args in [["validate", "Demos/Scenes/showcase.yaml", "--json"], ["info", beep], ["validate", "Demos/Scenes/showcase.yaml"]] {
            let p = Process()
            p.executableURL = CLIRunner.productsDirectory.appendingPathComponent("earshot")
            p.arguments = args
            p.currentDirectoryURL = CLIRunner.packageRoot
            p.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
            let err = Pipe()
            p.standardError = err
            try p.run()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 1, "\(args)")
            XCTAssertTrue(message.contains("earshot: cannot write to standard output: No space left on device"), message)
        }
    }

    func testSIGHUPAndOtherFatalSignalsMidRenderLeaveNoPartial() throws {
        let scene = path("long.yaml")
        try "duration: 36000\nclips: { beep: \(beep) }\nemitters: { e: { clip: beep, loop: true, position: [1, 0, 0] } }\n"
            .write(toFile: scene, atomically: true, encoding: .utf8)
        for sig in [SIGHUP, SIGQUIT, SIGUSR1, SIGPIPE] {
            let process = Process()
            process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("earshot")
            process.arguments = ["render", scene, "-o", path("long.wav"), "--plot", path("long.svg"), "--quiet"]
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while !files().contains(where: { $0.contains(".partial-") }), process.isRunning, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
            XCTAssertTrue(files().contains { $0.contains(".partial-") }, "writing has started: \(files())")
            if sig == SIGPIPE {
                // Ignored (a closed pipe is a write error instead): the render goes on; SIGTERM ends it.
                kill(process.processIdentifier, SIGPIPE)
                Thread.sleep(forTimeInterval: 0.3)
                XCTAssertTrue(process.isRunning, "SIGPIPE is ignored")
            }
            let sent = sig == SIGPIPE ? SIGTERM : sig
            kill(process.processIdentifier, sent)
            let stop = Date().addingTimeInterval(30)
            while process.isRunning, Date() < stop { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning {
                XCTFail("signal \(sig): still rendering 30 s later (the signal was lost)")
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "signal \(sig): exits by itself")
            XCTAssertEqual(process.terminationStatus, 128 + sent, "signal \(sig)")
            XCTAssertEqual(files(), ["long.yaml"], "signal \(sig): no partial file, no output")
        }
    }

    func testStalePartialsOfDeadProcessesAreSwept() throws {
        let dead = try deadPID()
        let stale = [".out.wav.partial-\(dead)", ".out.wav.partial-\(dead)-0123456789abcdef", ".other.flac.partial-\(dead)-fedcba9876543210"]
        let kept = [".out.wav.partial-\(getpid())-0123456789abcdef",   // alive: this test process
                    ".out.wav.partial-\(dead)-xyz",                      // not our pattern
                    ".out.wav.partial-\(dead)-0123456789ABCDEF",         // not our pattern (upper case)
                    "out.wav.partial-\(dead)",                           // not hidden
                    ".out.wav.partial-\(dead).bak"]                      // not our pattern
        for name in stale + kept { try "x".write(toFile: path(name), atomically: false, encoding: .utf8) }
        let r = try CLIRunner.run("earshot", ["decode", beep, "-o", path("out.wav")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(files(), (kept + ["out.wav"]).sorted(), "exactly the dead process's partials are gone")
        XCTAssertNil(PartialFile.stalePartialPID(".out.wav.partial-1"), "pid 1 (init) is never swept")
        XCTAssertEqual(PartialFile.stalePartialPID(".a.partial-42"), 42)
    }

    func testChainedOggChangingRateIsAnErrorAndLeavesNothing() throws {
        let tool = try FFmpegTool()
        let a = try tool.synth("a.ogg", expression: "0.4*sin(2*PI*440*t)", rate: 44_100, samples: 44_100, codec: "libvorbis")
        let b = try tool.synth("b.ogg", expression: "0.4*sin(2*PI*660*t)", rate: 22_050, samples: 22_050, codec: "libvorbis")
        var chained = try Data(contentsOf: URL(fileURLWithPath: a))
        chained.append(try Data(contentsOf: URL(fileURLWithPath: b)))
        let ogg = path("chained.ogg")
        try chained.write(to: URL(fileURLWithPath: ogg))
        let scene = path("m.yaml")
        try "duration: 3\nmusic: { m: { file: chained.ogg } }\nevents:\n  - { at: 0, music: m, action: play }\n"
            .write(toFile: scene, atomically: true, encoding: .utf8)
        for args in [["render", scene, "-o", path("m.wav")], ["play", ogg, "--music", "--out", path("p.wav")],
                     ["decode", ogg, "-o", path("d.wav")]] {
            let r = try CLIRunner.run("earshot", args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("changes format part-way") && r.stderr.contains("22050 Hz"), "\(args): \(r.stderr)")
        }
        XCTAssertEqual(files(), ["chained.ogg", "m.yaml"], "no silent WAV, no 0-frame WAV")
    }

    func testAFileShrinkingWhileDecodedIsAnError() throws {
        // Opened (libsndfile has read the header's length), then cut to half: the rest of the read
        // comes up short. Whole-file decode and music streaming both say so.
        func longClip(_ name: String) throws -> (path: String, size: Int64) {
            let clip = path(name)
            let writer = try AudioFileWriter(path: clip, sampleRate: 48_000, channels: 1)
            try writer.write([Float](repeating: 0.25, count: 96_000))
            try writer.close()
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: clip)[.size] as? Int64)
            return (clip, size)
        }
        let (clip, size) = try longClip("long.wav")
        var info = SF_INFO()
        let file = try XCTUnwrap(sf_open(clip, Int32(SFM_READ), &info))
        defer { sf_close(file) }
        XCTAssertEqual(truncate(clip, Int(size / 2)), 0)
        var caught: EarshotError?
        do throws(EarshotError) { _ = try SndFileDecoder.read(file, info: info, name: clip, options: .init()) } catch { caught = error }
        guard case .fileChangedWhileReading(_, let decoded, let expected)? = caught else { return XCTFail("\(String(describing: caught))") }
        XCTAssertEqual(expected, 96_000)
        XCTAssertLessThan(decoded, 50_000)

        let (clip2, size2) = try longClip("long2.wav")
        let stream = try SndFileStreamDecoder(path: clip2)
        XCTAssertEqual(truncate(clip2, Int(size2 / 2)), 0)
        var buffer = [Float](repeating: 0, count: 4_096)
        caught = nil
        do throws(EarshotError) {
            while try buffer.withUnsafeMutableBufferPointer({ (b) throws(EarshotError) in try stream.read(into: b.baseAddress!, frames: 4_096) }) > 0 {}
        } catch { caught = error }
        guard case .fileChangedWhileReading(_, _, let expected2)? = caught else { return XCTFail("\(String(describing: caught))") }
        XCTAssertEqual(expected2, 96_000)
    }
}
