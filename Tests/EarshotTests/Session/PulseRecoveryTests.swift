@testable import Earshot
import Foundation
import EarshotTestSupport
import XCTest

/// The output device lost for real: a private PulseAudio daemon is killed while
/// `earshot play --music --effect` plays on its null sink, then started again. Earshot must be
/// heard on the new daemon within a second of its return, the music near where it was, the
/// effect still looping. The CLI runs as its own process so that OpenAL Soft sees this daemon's
/// `XDG_RUNTIME_DIR` when it first opens a device.
final class PulseRecoveryTests: XCTestCase {
    static let effectHz = 2_000.0
    /// The music: 1 s steps whose tone says where the track is (second i plays 400 + 100·i Hz).
    static let stepHz = (0..<8).map { 400.0 + 100.0 * Double($0) }

    /// Fixtures and a private daemon with a `game` null sink as default (stop it by `runtime`).
    private func privateDaemon(_ server: SoundServer) throws -> (MusicFixtures, URL, [String: String]) {
        try requireTools(["/usr/bin/parec"])
        let fixtures = try MusicFixtures()
        let pulse = try PrivateSoundServer.start(server, in: fixtures.directory)
        do {
            try pulse.nullSink("game", makeDefault: true)
        } catch {
            pulse.stop()
            throw error
        }
        return (fixtures, pulse.runtime, pulse.environment)
    }

    /// 0.1 s windows of a raw float32 stereo recording: the effect's level and the music step heard.
    private func windows(_ url: URL) throws -> [(effect: Double, step: Int?)] {
        let data = try Data(contentsOf: url)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var out: [(Double, Int?)] = []
        var at = 0
        while (at + 4_800) * 2 <= samples.count {
            let effect = SessionMeasure.level(samples, start: at, frames: 4_800, frequency: Self.effectHz)
            let levels = Self.stepHz.map { SessionMeasure.level(samples, start: at, frames: 4_800, frequency: $0) }
            let best = levels.indices.max { levels[$0] < levels[$1] }
            out.append((effect, best.flatMap { levels[$0] > -45 ? $0 : nil }))
            at += 4_800
        }
        return out
    }

    func testKilledAndRestartedDaemonIsHeardAgainWithNothingLost() throws { try killedAndRestartedDaemonIsHeardAgainWithNothingLost(on: .pulseaudio) }
    func testKilledAndRestartedDaemonIsHeardAgainWithNothingLostOnPipeWire() throws { try killedAndRestartedDaemonIsHeardAgainWithNothingLost(on: .pipewire) }

    private func killedAndRestartedDaemonIsHeardAgainWithNothingLost(on server: SoundServer) throws {
        let (fixtures, runtime, env) = try privateDaemon(server)
        defer { PrivateSoundServer.stop(runtime: runtime) }

        // The stepped music and a looping effect.
        let musicPath = fixtures.directory.appendingPathComponent("steps.wav").path
        let writer = try AudioFileWriter(path: musicPath, sampleRate: 48_000, channels: 1, format: .f32)
        for hz in Self.stepHz {
            try writer.write((0..<48_000).map { Float(0.3 * sin(2 * .pi * hz * Double($0) / 48_000)) })
        }
        try writer.close()
        let effect = try fixtures.sineWAV("effect.wav", frequency: Int(Self.effectHz), amplitude: 0.3, seconds: 1)

        let before = fixtures.directory.appendingPathComponent("before.f32")
        let after = fixtures.directory.appendingPathComponent("after.f32")
        let parecArgs = ["--device=game.monitor", "--latency-msec=20", "--raw", "--format=float32le", "--rate=48000", "--channels=2"]
        let rec1 = try ChildProcess("/usr/bin/parec", parecArgs, environment: env, output: before)
        defer { rec1.stop() }
        let log = fixtures.directory.appendingPathComponent("earshot.log")
        let earshot = try ChildProcess(CLIRunner.productsDirectory.appendingPathComponent("earshot").path,
                                       ["play", musicPath, "--music", "--effect", effect, "--seconds", "9", "--no-system-hints"],
                                       environment: env.merging(["ALSOFT_DRIVERS": "pulse", "EARSHOT_LOG": "notice"]) { $1 },
                                       errorOutput: log)
        defer { earshot.stop() }
        usleep(2_500_000)

        // Kill the daemon mid-playback (no goodbye), wait, start a new one.
        let pid = try XCTUnwrap(PrivateSoundServer.pulsePID(runtime))
        kill(pid, SIGKILL)
        XCTAssertNotNil(waitFor(3) { kill(pid, 0) != 0 }, "the daemon died")
        rec1.stop(signal: SIGINT)
        usleep(1_000_000)
        XCTAssertTrue(earshot.isRunning, "earshot survives the loss of its sound server")
        try PrivateSoundServer.start(server, in: runtime.deletingLastPathComponent()).nullSink("game", makeDefault: true)   // the same runtime folder
        let ready = Date()
        let rec2 = try ChildProcess("/usr/bin/parec", parecArgs, environment: env, output: after)
        defer { rec2.stop() }
        // Earshot plays on the new daemon within a second of its return (its own account, read
        // as it happens: the null sink's monitor does not keep wall-clock time on a busy machine).
        let restoredAfter = waitFor(5) {
            ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("output device restored")
        }
        XCTAssertNotNil(waitFor(12) { !earshot.isRunning }, "earshot ends after --seconds")
        rec2.stop(signal: SIGINT)
        let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(earshot.process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("output device lost"), stderr)
        let restoredIn = try XCTUnwrap(restoredAfter, "no restore: \(stderr)")
        XCTAssertLessThanOrEqual(restoredIn, 1.0, "rebuilt on the new daemon within 1 s of its return")
        _ = ready

        // The recordings are read by content (0.1 s windows, in the sink's own time).
        let w1 = try windows(before), w2 = try windows(after)
        let heard1 = w1.filter { $0.effect > -40 }
        XCTAssertGreaterThanOrEqual(heard1.count, 3, "earshot was heard before the loss")
        let lastStepBefore = try XCTUnwrap(heard1.compactMap(\.step).last, "music before the loss")
        let firstHeard = try XCTUnwrap(w2.firstIndex { $0.effect > -40 }, "earshot is heard on the new daemon")
        print("recovery (\(server)): rebuilt \(restoredIn) s after the daemon's return; last step before \(lastStepBefore); windows after: \(w2.count)")
        // The music goes on near where it was: not from the start, at most ~2.5 s further on.
        let firstStepAfter = try XCTUnwrap(w2[firstHeard...].compactMap(\.step).first, "music after the restore")
        XCTAssertGreaterThanOrEqual(firstStepAfter, lastStepBefore, "the music did not restart from the top")
        XCTAssertLessThanOrEqual(firstStepAfter, lastStepBefore + 3, "the music is near where it was")
        // The effect keeps looping on the new daemon.
        let heard2 = w2[firstHeard...].filter { $0.effect > -40 }.count
        XCTAssertGreaterThanOrEqual(heard2, 5, "the effect loops on after the restore")
    }

    func testANamedDeviceThatGoesAwayFallsBackToTheDefaultAndSaysSo() throws { try aNamedDeviceThatGoesAwayFallsBackToTheDefaultAndSaysSo(on: .pulseaudio) }
    func testANamedDeviceThatGoesAwayFallsBackToTheDefaultAndSaysSoOnPipeWire() throws { try aNamedDeviceThatGoesAwayFallsBackToTheDefaultAndSaysSo(on: .pipewire) }

    private func aNamedDeviceThatGoesAwayFallsBackToTheDefaultAndSaysSo(on server: SoundServer) throws {
        let (fixtures, runtime, env) = try privateDaemon(server)
        defer { PrivateSoundServer.stop(runtime: runtime) }
        // A second sink, the one earshot is asked to play on.
        let loaded = try ChildProcess.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=second",
                                                             "sink_properties=device.description=Second"], environment: env)
        XCTAssertEqual(loaded.status, 0)
        let module = loaded.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let effect = try fixtures.sineWAV("effect.wav", frequency: Int(Self.effectHz), amplitude: 0.3, seconds: 1)
        let music = try fixtures.sineWAV("music.wav", frequency: 500, amplitude: 0.3, seconds: 2)
        let recording = fixtures.directory.appendingPathComponent("default.f32")
        let rec = try ChildProcess("/usr/bin/parec", ["--device=game.monitor", "--latency-msec=20", "--raw", "--format=float32le", "--rate=48000",
                                                      "--channels=2"], environment: env, output: recording)
        defer { rec.stop() }
        let log = fixtures.directory.appendingPathComponent("earshot.log")
        let earshot = try ChildProcess(CLIRunner.productsDirectory.appendingPathComponent("earshot").path,
                                       ["play", music, "--music", "--loops", "-1", "--effect", effect, "--device", "Second",
                                        "--seconds", "5", "--no-system-hints"],
                                       environment: env.merging(["ALSOFT_DRIVERS": "pulse", "EARSHOT_LOG": "notice"]) { $1 },
                                       errorOutput: log)
        defer { earshot.stop() }
        usleep(1_500_000)
        XCTAssertEqual(try ChildProcess.run("/usr/bin/pactl", ["unload-module", module], environment: env).status, 0)
        XCTAssertNotNil(waitFor(10) { !earshot.isRunning }, "earshot ends after --seconds")
        rec.stop(signal: SIGINT)
        let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(earshot.process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("output device lost: Second"), stderr)
        XCTAssertTrue(stderr.contains("device \"Second\" is gone; fell back to the default device"), stderr)
        XCTAssertTrue(stderr.contains("earshot: session: route change: device \"Second\" is gone; playing on the default device"), stderr)
        // And it is heard on the default sink afterwards.
        let heard = try windows(recording).filter { $0.effect > -40 }.count
        XCTAssertGreaterThanOrEqual(heard, 5, "the effect plays on the default sink after the fallback")
    }
}
