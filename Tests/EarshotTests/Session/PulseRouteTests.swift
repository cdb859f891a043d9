@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Following the system's default output (issue 13, item 17) on a real sound server: a private
/// PulseAudio daemon with two null sinks, `a` (the default) and `b`, both recorded from their
/// monitors, while `earshot play` plays a stepped tone live. `pactl set-default-sink b` must move
/// the sound to `b` within 1 s, continuing where it was; unloading `b` (the headphones it played
/// on go away) moves it back to `a`. The session's route-change events arrive in that order. The
/// CLI runs as its own process so that OpenAL Soft reads Earshot's generated configuration and
/// this daemon's `XDG_RUNTIME_DIR` when it first opens a device.
final class PulseRouteTests: XCTestCase {
    /// The clip: 0.5 s steps whose tone says where it is (step i plays 400 + 100·i Hz).
    static let stepHz = (0..<16).map { 400.0 + 100.0 * Double($0) }

    private func pactl(_ arguments: [String], _ env: [String: String]) throws -> String {
        let r = try ChildProcess.run("/usr/bin/pactl", arguments, environment: env)
        XCTAssertEqual(r.status, 0, "pactl \(arguments.joined(separator: " "))")
        return r.output
    }

    /// The index of the sink the only playback stream is on, if there is one.
    private func streamSink(_ env: [String: String]) -> String? {
        let list = (try? ChildProcess.run("/usr/bin/pactl", ["list", "short", "sink-inputs"], environment: env).output) ?? ""
        return list.split(separator: "\n").first.flatMap { line in
            let columns = line.split(separator: "\t")
            return columns.count > 1 ? String(columns[1]) : nil
        }
    }

    /// The step heard in each 0.1 s window of a raw float32 stereo recording (nil: silence).
    private func steps(_ url: URL) throws -> [Int?] {
        let data = try Data(contentsOf: url)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var out: [Int?] = []
        var at = 0
        while (at + 4_800) * 2 <= samples.count {
            let levels = Self.stepHz.map { SessionMeasure.level(samples, start: at, frames: 4_800, frequency: $0) }
            let best = levels.indices.max { levels[$0] < levels[$1] }
            out.append(best.flatMap { levels[$0] > -45 ? $0 : nil })
            at += 4_800
        }
        return out
    }

    func testSoundFollowsTheDefaultSinkAndComesBackWhenItGoesAway() throws { try soundFollowsTheDefaultSinkAndComesBackWhenItGoesAway(on: .pulseaudio) }
    func testSoundFollowsTheDefaultSinkAndComesBackWhenItGoesAwayOnPipeWire() throws { try soundFollowsTheDefaultSinkAndComesBackWhenItGoesAway(on: .pipewire) }

    private func soundFollowsTheDefaultSinkAndComesBackWhenItGoesAway(on server: SoundServer) throws {
        try requireTools(["/usr/bin/parec"])
        let fixtures = try MusicFixtures()
        let pulse = try PrivateSoundServer.start(server, in: fixtures.directory)
        defer { pulse.stop() }
        let env = pulse.environment
        _ = try pactl(["load-module", "module-null-sink", "sink_name=a"], env)
        let moduleB = try pactl(["load-module", "module-null-sink", "sink_name=b"], env).trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try pactl(["set-default-sink", "a"], env)
        // A default source of its own: otherwise the default source is the default sink's
        // monitor, and changing the default sink would move the recorders too.
        // (pipewire-pulse 0.3.65 has no module-null-source: a null sink of the source class is one.)
        _ = try pactl(server == .pulseaudio ? ["load-module", "module-null-source", "source_name=mic"]
                          : ["load-module", "module-null-sink", "sink_name=mic", "media.class=Audio/Source/Virtual"], env)
        _ = try pactl(["set-default-source", "mic"], env)
        let sinks = try pactl(["list", "short", "sinks"], env).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        guard let indexA = sinks.first(where: { $0.count > 1 && $0[1] == "a" })?[0],
              let indexB = sinks.first(where: { $0.count > 1 && $0[1] == "b" })?[0] else {
            return XCTFail("the two sinks: \(sinks)")
        }

        let clip = fixtures.directory.appendingPathComponent("steps.wav").path
        let writer = try AudioFileWriter(path: clip, sampleRate: 48_000, channels: 1, format: .f32)
        for hz in Self.stepHz {
            try writer.write((0..<24_000).map { Float(0.3 * sin(2 * .pi * hz * Double($0) / 48_000)) })
        }
        try writer.close()

        let recA = fixtures.directory.appendingPathComponent("a.f32")
        let recB = fixtures.directory.appendingPathComponent("b.f32")
        // node.dont-reconnect: WirePlumber moves a recorder of a monitor along with the default sink.
        let parecArgs = ["--raw", "--format=float32le", "--rate=48000", "--channels=2", "--latency-msec=20",
                         "--property=node.dont-reconnect=true"]
        let parecA = try ChildProcess("/usr/bin/parec", ["--device=a.monitor"] + parecArgs, environment: env, output: recA)
        defer { parecA.stop() }
        let parecB = try ChildProcess("/usr/bin/parec", ["--device=b.monitor"] + parecArgs, environment: env, output: recB)
        defer { parecB.stop() }
        usleep(300_000)

        let log = fixtures.directory.appendingPathComponent("earshot.log")
        let earshot = try ChildProcess(CLIRunner.productsDirectory.appendingPathComponent("earshot").path,
                                       ["play", clip, "--seconds", "8", "--no-system-hints"],
                                       environment: env.merging(["ALSOFT_DRIVERS": "pulse"]) { $1 }, errorOutput: log)
        defer { earshot.stop() }
        XCTAssertNotNil(waitFor(3) { self.streamSink(env) == indexA }, "earshot plays on a, the default")
        usleep(3_000_000)

        // The user picks b: the stream moves within 1 s.
        _ = try pactl(["set-default-sink", "b"], env)
        let moved = waitFor(2) { self.streamSink(env) == indexB }
        XCTAssertNotNil(moved, "the stream moved to b")
        print(String(format: "route (\(server)): moved to the new default in %.0f ms", (moved ?? 99) * 1000))
        XCTAssertLessThan(moved ?? 99, 1, "within 1 s")
        usleep(2_000_000)

        // b goes away (the headphones unplugged): PulseAudio moves the stream back to a.
        _ = try pactl(["unload-module", moduleB], env)
        XCTAssertNotNil(waitFor(2) { self.streamSink(env) == indexA }, "back on a")
        XCTAssertNotNil(waitFor(10) { !earshot.isRunning }, "earshot ends after --seconds")
        parecA.stop(signal: SIGINT)
        parecB.stop(signal: SIGINT)
        let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(earshot.process.terminationStatus, 0, stderr)

        // Events, in order: the new default, then the output it played on going away.
        let routes = stderr.split(separator: "\n").filter { $0.contains("route change") }.map(String.init)
        XCTAssertEqual(routes, ["earshot: session: route change: playing on a new output device",
                                "earshot: session: route change: the output device went away"], stderr)

        // What was heard where: a, then b, then a again, the steps running on across the moves.
        // (A null sink's monitor runs well behind the stream, so the recordings are read by their
        // content, not by wall-clock time; the move itself was timed above.)
        let onA = try steps(recA), onB = try steps(recB)
        let heardB = onB.compactMap { $0 }
        // a's recording: the first stretch of sound, a gap of at least 0.3 s while b plays, the rest.
        guard let start = onA.firstIndex(where: { $0 != nil }) else { return XCTFail("nothing heard on a") }
        var gapAt = onA.count
        var quiet = 0
        for k in start..<onA.count {
            quiet = onA[k] == nil ? quiet + 1 : 0
            if quiet == 3 { gapAt = k - 2; break }
        }
        let firstA = onA[start..<gapAt].compactMap { $0 }, againA = onA[gapAt...].compactMap { $0 }
        print("route (\(server)): a heard steps \(firstA) then \(againA); b heard \(heardB)")
        XCTAssertGreaterThanOrEqual(heardB.count, 10, "b played about 2 s")
        XCTAssertGreaterThanOrEqual(againA.count, 10, "a played again after b went away")
        guard let lastA = firstA.last, let firstB = heardB.first, let lastB = heardB.last, let resumedA = againA.first else {
            return XCTFail("a, b, a: \(firstA) \(heardB) \(againA)")
        }
        XCTAssertGreaterThanOrEqual(lastA, 2, "a had played on for a while before the move")
        XCTAssertTrue((0...1).contains(firstB - lastA), "b continues where a was (not from the start): \(lastA) → \(firstB)")
        XCTAssertTrue((0...1).contains(resumedA - lastB), "a continues where b was: \(lastB) → \(resumedA)")
        XCTAssertEqual(heardB, heardB.sorted(), "b heard the steps in order")
        XCTAssertEqual(againA, againA.sorted(), "and a after it")
    }
}
