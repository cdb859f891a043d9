@testable import Earshot
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// Recording on a real sound server (PulseAudio, and PipeWire through `pipewire-pulse`): a known tone is played into a null sink and
/// `earshot record` captures the sink's monitor. The CLI runs as its own process so that OpenAL
/// Soft sees this daemon's `XDG_RUNTIME_DIR` when it first opens a device.
final class RecordingTests: XCTestCase {
    private var runtime: URL!
    private var env: [String: String] = [:]
    private var folder: URL!

    /// Starts `server` with a `game` null sink as default (stopped in tearDown).
    private func start(_ server: SoundServer) throws {
        try requireTools(["/usr/bin/pactl", "/usr/bin/paplay", "/usr/bin/sox"])
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pulse = try PrivateSoundServer.start(server, in: folder)
        runtime = pulse.runtime
        env = pulse.environment
        try pulse.nullSink("game", makeDefault: true)
    }

    override func tearDownWithError() throws {
        if let runtime { PrivateSoundServer.stop(runtime: runtime) }
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// A 1 kHz sine of amplitude 0.5 for `seconds`, made by sox.
    private func tone(seconds: Double) throws -> String {
        let path = folder.appendingPathComponent("tone.wav").path
        _ = try FFmpegTool.run("/usr/bin/sox", ["-n", "-r", "48000", "-c", "1", "-b", "16", path, "synth", "\(seconds)", "sine", "1000", "vol", "0.5"])
        return path
    }

    /// Plays `file` into the null sink with a short latency (so the monitor delivers steadily),
    /// and waits until the sink has run for 2.5 s: a fresh null sink's monitor delivers nothing
    /// to a capture stream for its first 1.5–2 s (measured here with OpenAL Soft 1.19.1).
    private func play(_ file: String) throws -> ChildProcess {
        // 250 ms of buffering in the player: with 20 ms a loaded machine (two cores compiling)
        // starved paplay, and its underruns reached the monitor as gaps that the recorder then
        // captured faithfully (931 and 966 Hz measured on a 1 kHz tone, twice in one session).
        let player = try ChildProcess("/usr/bin/paplay", ["--latency-msec=250", "--device=game", file], environment: env)
        usleep(2_500_000)
        return player
    }

    /// The monitor source's name as OpenAL lists it.
    private func monitorName() throws -> String {
        let r = try CLIRunner.run("earshot", ["devices", "--json"], environment: env)
        let report = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let inputs = report?["inputDevices"] as? [String] ?? []
        return try XCTUnwrap(inputs.first { $0.hasPrefix("Monitor of") }, "inputs: \(inputs)")
    }

    /// Frequency (zero crossings) and RMS of a mono 16-bit WAV between `from` and `to` seconds.
    private func measure(_ path: String, from: Double, to: Double) throws -> (frequency: Double, rms: Double, frames: Int) {
        let audio = try SndFileDecoder.decode(path: path)
        let x = audio.floatSamples()
        let a = Int(from * 48_000), b = min(x.count, Int(to * 48_000))
        guard b > a + 100 else { return (0, 0, x.count) }
        var crossings = 0, sum = 0.0
        for i in (a + 1)..<b {
            if (x[i - 1] < 0) != (x[i] < 0) { crossings += 1 }
            sum += Double(x[i]) * Double(x[i])
        }
        return (Double(crossings) / 2 / (Double(b - a) / 48_000), (sum / Double(b - a)).squareRoot(), x.count)
    }

    func testRecordsAToneWithTheRightFrequencyLevelAndMeters() throws { try recordsAToneWithTheRightFrequencyLevelAndMeters(on: .pulseaudio) }
    func testRecordsAToneWithTheRightFrequencyLevelAndMetersOnPipeWire() throws { try recordsAToneWithTheRightFrequencyLevelAndMeters(on: .pipewire) }

    private func recordsAToneWithTheRightFrequencyLevelAndMeters(on server: SoundServer) throws {
        try start(server)
        let monitor = try monitorName()
        let player = try play(try tone(seconds: 6))
        defer { player.stop() }
        let out = folder.appendingPathComponent("rec.wav").path
        let r = try CLIRunner.run("earshot", ["record", "-o", out, "--seconds", "2", "--device", monitor, "--json"], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(summary["frames"] as? Int, 96_000)
        XCTAssertEqual(summary["deviceLost"] as? Bool, false)
        // The tone: RMS 0.5/√2 = −9.03 dBFS, peak 0.5 = −6.02 dBFS — as the server hands it over:
        // the mono tone reaches both channels of the sink whole, and the mono capture of its
        // monitor folds them back as (L + R)/2 on PulseAudio, (L + R)/√2 on PipeWire 0.3.65 (its
        // channel mixer's default): 3.01 dB more there.
        let fold = server == .pipewire ? 3.01 : 0
        let average = try XCTUnwrap((summary["averagePower"] as? [Double])?.first)
        let peak = try XCTUnwrap((summary["peakPower"] as? [Double])?.first)
        print("recording (\(server)): meter average \(average) dB, peak \(peak) dB")
        XCTAssertEqual(average, -9.03 + fold, accuracy: 1, "meter average")
        XCTAssertEqual(peak, -6.02 + fold, accuracy: 1, "meter peak")
        let m = try measure(out, from: 1, to: 2)
        XCTAssertEqual(m.frames, 96_000)
        XCTAssertEqual(m.frequency, 1_000, accuracy: 5)
        XCTAssertEqual(Level.dB(m.rms), -9.03 + fold, accuracy: 1, "level within 1 dB")
        // ffprobe reads it.
        let probe = try FFmpegTool.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out])
        XCTAssertEqual(Double(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 2, accuracy: 0.001)
    }

    /// The server dies mid-recording: the command says so and exits 1, and the file holds
    /// what was recorded before — a valid file ffprobe reads.
    func testServerKilledMidRecordingKeepsAValidFile() throws { try serverKilledMidRecordingKeepsAValidFile(on: .pulseaudio) }
    func testServerKilledMidRecordingKeepsAValidFileOnPipeWire() throws { try serverKilledMidRecordingKeepsAValidFile(on: .pipewire) }

    private func serverKilledMidRecordingKeepsAValidFile(on server: SoundServer) throws {
        try start(server)
        let monitor = try monitorName()
        let player = try play(try tone(seconds: 6))
        defer { player.stop() }
        let out = folder.appendingPathComponent("cut.wav").path
        let errors = folder.appendingPathComponent("record.err")
        let recorder = try ChildProcess(CLIRunner.productsDirectory.appendingPathComponent("earshot").path,
                                        ["record", "-o", out, "--seconds", "6", "--device", monitor], environment: env,
                                        errorOutput: errors)
        usleep(1_500_000)
        let pid = try XCTUnwrap(PrivateSoundServer.pulsePID(runtime))
        kill(pid, SIGKILL)
        XCTAssertNotNil(waitFor(5) { !recorder.isRunning }, "the recorder ends when its device goes away")
        recorder.process.waitUntilExit()
        XCTAssertEqual(recorder.process.terminationStatus, 1)
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        XCTAssertTrue(stderr.contains("the input device \"\(monitor)\" went away"), stderr)
        let probe = try FFmpegTool.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out])
        let duration = Double(String(decoding: probe, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        XCTAssertGreaterThan(duration, 0.5, "what was recorded is kept")
        XCTAssertLessThan(duration, 2.5)
        XCTAssertEqual(try measure(out, from: 0.2, to: duration - 0.1).frequency, 1_000, accuracy: 5)
    }
}

/// The session decides whether the engine records (no sound server needed: the refusal comes
/// before any device is opened, and with the category right the missing input is the error).
final class RecordingPolicyTests: XCTestCase {
    func testOnlyPlayAndRecordRecords() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-policy-\(UUID().uuidString).wav").path
        for category in [AudioSession.Category.ambient, .soloAmbient, .playback] {
            engine.session.category = category
            XCTAssertThrowsError(try engine.makeRecorder(.init(device: "no such input", path: path))) { error in
                guard case .invalidArgument(let what)? = error as? EarshotError else { return XCTFail("\(category): \(error)") }
                XCTAssertTrue(what.contains("playAndRecord"), what)
            }
        }
        engine.session.category = .playAndRecord
        XCTAssertThrowsError(try engine.makeRecorder(.init(device: "no such input", path: path))) { error in
            guard case .noInputDevice(let detail)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertEqual(detail, "none is named \"no such input\"")
        }
        XCTAssertThrowsError(try engine.makeRecorder(.init(path: path + ".mp3"))) { error in
            guard case .invalidArgument(let what)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains("cannot write \".mp3\" files"), what)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }
}
