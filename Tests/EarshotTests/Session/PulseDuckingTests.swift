import Foundation
import EarshotTestSupport
import XCTest

/// Ducking heard on a real sound server: a private PulseAudio daemon with a null sink, recorded
/// from its monitor with parec, while `earshot play --music --effect` plays live on it and an
/// MPRIS player (mpv on a private bus) starts and pauses. The CLI runs as its own process so that
/// OpenAL Soft sees this daemon's `XDG_RUNTIME_DIR` when it first opens a device.
final class PulseDuckingTests: XCTestCase {
    static let musicHz = 500.0
    static let effectHz = 1_500.0

    func testMPRISPlayerDucksTheMusicOnARealSinkAndSparesTheEffect() throws { try mprisPlayerDucksTheMusicOnARealSinkAndSparesTheEffect(on: .pulseaudio) }
    func testMPRISPlayerDucksTheMusicOnARealSinkAndSparesTheEffectOnPipeWire() throws { try mprisPlayerDucksTheMusicOnARealSinkAndSparesTheEffect(on: .pipewire) }

    private func mprisPlayerDucksTheMusicOnARealSinkAndSparesTheEffect(on server: SoundServer) throws {
        try runDuckingCase(on: server) { fixtures, music, effect in
            ["play", music, "--music", "--loops", "-1", "--effect", effect, "--seconds", "7.5"]
        }
    }

    /// `earshot play SCENE.yaml` live starts the same session as `play FILE --music`: an MPRIS
    /// player that starts while the scene plays ducks the scene's music and spares its effects.
    func testMPRISPlayerDucksALiveScenesMusic() throws { try mprisPlayerDucksALiveScenesMusic(on: .pulseaudio) }
    func testMPRISPlayerDucksALiveScenesMusicOnPipeWire() throws { try mprisPlayerDucksALiveScenesMusic(on: .pipewire) }

    private func mprisPlayerDucksALiveScenesMusic(on server: SoundServer) throws {
        try runDuckingCase(on: server) { fixtures, music, effect in
            let scene = fixtures.directory.appendingPathComponent("live.yaml")
            try """
                name: live ducking
                duration: 7.5
                clips: { tone: \(effect) }
                music: { bg: { file: \(music), loops: -1 } }
                emitters: { fx: { clip: tone, position: [0, 0, -1], loop: true } }
                events:
                  - { at: 0, music: bg, action: play }
                """.write(to: scene, atomically: true, encoding: .utf8)
            return ["play", scene.path]
        }
    }

    /// Plays live on a private PulseAudio null sink (recorded from its monitor) what `arguments`
    /// says — a 500 Hz music track and a 1500 Hz effect — while mpv (on a private bus) plays from
    /// 3 s to 5.5 s; checks the music is down at least 20 dB meanwhile and the effect untouched.
    private func runDuckingCase(on server: SoundServer, _ arguments: (MusicFixtures, String, String) throws -> [String]) throws {
        try requireTools(["/usr/bin/pactl", "/usr/bin/parec", "/usr/bin/mpv", "/usr/bin/playerctl",
                          "/usr/bin/dbus-daemon"])
        let fixtures = try MusicFixtures()
        // The sound server, stopped by the PID in its pid file whatever happens.
        let pulse = try PrivateSoundServer.start(server, in: fixtures.directory)
        defer { pulse.stop() }
        try pulse.nullSink("game", makeDefault: true)
        let pulseEnv = pulse.environment

        let bus = try PrivateBus()
        defer { bus.stop() }
        let playerFile = try fixtures.sineWAV("player.wav", frequency: 440, amplitude: 0.2, seconds: 2)
        let mpv = try ChildProcess("/usr/bin/mpv", ["--ao=null", "--vo=null", "--no-terminal", "--idle=yes", "--pause",
                                                    "--loop-file=inf", playerFile], environment: bus.environment)
        defer { mpv.stop() }
        func playerctl(_ command: String) throws -> String {
            try ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", command], environment: bus.environment).output
        }
        XCTAssertNotNil(waitFor(5) { (try? playerctl("status"))?.contains("Paused") == true }, "mpv is on the bus, paused")

        let music = try fixtures.sineWAV("music.wav", frequency: Int(Self.musicHz), amplitude: 0.3, seconds: 2)
        let effect = try fixtures.sineWAV("effect.wav", frequency: Int(Self.effectHz), amplitude: 0.3, seconds: 1)
        let recording = fixtures.directory.appendingPathComponent("rec.f32")
        let parec = try ChildProcess("/usr/bin/parec", ["--device=game.monitor", "--latency-msec=20", "--raw", "--format=float32le",
                                                        "--rate=48000", "--channels=2"], environment: pulseEnv, output: recording)
        defer { parec.stop() }
        let recStart = Date()
        let log = fixtures.directory.appendingPathComponent("earshot.log")
        let earshot = try ChildProcess(CLIRunner.productsDirectory.appendingPathComponent("earshot").path,
                                       try arguments(fixtures, music, effect),
                                       environment: pulseEnv.merging(bus.environment) { $1 }.merging(["ALSOFT_DRIVERS": "pulse"]) { $1 },
                                       errorOutput: log)
        defer { earshot.stop() }
        usleep(3_000_000)
        let tPlay = Date().timeIntervalSince(recStart)
        _ = try playerctl("play")
        usleep(2_500_000)
        let tPause = Date().timeIntervalSince(recStart)
        _ = try playerctl("pause")
        XCTAssertNotNil(waitFor(10) { !earshot.isRunning }, "earshot ends after --seconds")
        waitForFileToSettle(recording)   // parec may lag the server on a loaded machine
        parec.stop(signal: SIGINT)
        let stderr = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(earshot.process.terminationStatus, 0, stderr)
        XCTAssertTrue(stderr.contains("secondary audio hint: begin"), stderr)
        XCTAssertTrue(stderr.contains("secondary audio hint: end"), stderr)

        // The monitor's timeline does not map exactly onto wall-clock time (the null sink mixes
        // in bursts and parec may lag), so the recording is read by its content: 0.1 s windows
        // while earshot is heard (the effect's band present), each classed by the music's band.
        let data = try Data(contentsOf: recording)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var windows: [(music: Double, effect: Double)] = []
        var at = 0
        while (at + 4_800) * 2 <= samples.count {
            windows.append((SessionMeasure.level(samples, start: at, frames: 4_800, frequency: Self.musicHz),
                            SessionMeasure.level(samples, start: at, frames: 4_800, frequency: Self.effectHz)))
            at += 4_800
        }
        let heard = Array(windows.filter { $0.effect > -40 }.dropFirst().dropLast())   // not the start and stop edges
        XCTAssertGreaterThan(heard.count, 20, "earshot is heard on the sink (\(windows.count) windows recorded)")
        guard heard.count > 20 else { return }
        let e0 = heard.map(\.effect).sorted()[heard.count / 2]
        let m0 = heard.map(\.music).max() ?? 0
        // up: the music at its level; down: at least 20 dB under; anything else is a ramp.
        let classes = heard.map { $0.music > m0 - 1 ? "u" : ($0.music < m0 - 20 ? "d" : "r") }.joined()
        print(String(format: "ducking (\(server)): music %.1f dB, effect %.1f dB; play at %.1f s, pause at %.1f s; %d of %d windows heard: ",
                     m0, e0, tPlay, tPause, heard.count, windows.count) + classes)
        XCTAssertGreaterThan(m0, -40, "the music is heard on the sink")
        let runs = classes.replacingOccurrences(of: "r", with: "")
            .reduce(into: [(Character, Int)]()) { runs, c in
                if let last = runs.last, last.0 == c { runs[runs.count - 1].1 += 1 } else { runs.append((c, 1)) }
            }
        XCTAssertEqual(runs.map { String($0.0) }.joined(), "udu",
                       "music heard, then at least 20 dB down while the player plays, then back: \(classes)")
        XCTAssertTrue(runs.allSatisfy { $0.1 >= 3 }, "each stretch lasts at least 0.3 s: \(classes)")
        XCTAssertLessThanOrEqual(classes.filter { $0 == "r" }.count, 8, "ramps are short (attack 0.1 s, release 0.5 s): \(classes)")
        // The effect stays within 1 dB: its median while the music is down against its median
        // while the music is up, and window by window (a window holding a gap in parec's stream
        // reads low in every band, so up to a tenth of them may stray).
        func median(_ xs: [Double]) -> Double { xs.isEmpty ? -300 : xs.sorted()[xs.count / 2] }
        let classed = zip(heard, classes)
        let effectUp = median(classed.filter { $0.1 == "u" }.map(\.0.effect))
        let effectDown = median(classed.filter { $0.1 == "d" }.map(\.0.effect))
        XCTAssertEqual(effectDown, effectUp, accuracy: 1, "the effect is not ducked")
        let strays = heard.filter { abs($0.effect - e0) > 1 }.count
        XCTAssertLessThanOrEqual(strays, heard.count / 10, "the effect stays within 1 dB throughout")
    }
}
