@testable import Earshot
import EarshotLinux
import EarshotMeasure
import Foundation
import XCTest

/// The MPRIS hint source against real parts: a private `dbus-daemon`, mpv with mpv-mpris,
/// driven by playerctl. Every process is stopped by PID, whatever happens; every wait is bounded.
final class MPRISIntegrationTests: XCTestCase {
    static let mpvName = "org.mpris.MediaPlayer2.mpv"

    private var fixtures: MusicFixtures!
    private var bus: PrivateBus!
    private var children: [ChildProcess] = []
    private var engine: AudioEngine!

    override func setUpWithError() throws {
        try requireTools(["/usr/bin/dbus-daemon", "/usr/bin/mpv", "/usr/bin/playerctl"])
        guard FileManager.default.fileExists(atPath: "/etc/mpv/scripts/mpris.so") else { throw XCTSkip("mpv-mpris is missing: run `make deps`") }
        fixtures = try MusicFixtures()
        bus = try PrivateBus()
        engine = try TestSignals.loopbackEngine()
    }

    override func tearDown() {
        engine?.session.deactivate()   // stops the MPRIS watcher (shutdown alone leaves it to the next update or release)
        engine?.shutdown()
        engine = nil
        for child in children { child.stop() }
        children.removeAll()
        bus?.stop()
        bus = nil
        fixtures = nil
    }

    private func startPlayer() throws -> ChildProcess {
        let file = try fixtures.sineWAV("player.wav", frequency: 440, amplitude: 0.2, seconds: 2)
        let mpv = try ChildProcess("/usr/bin/mpv", ["--ao=null", "--vo=null", "--no-terminal", "--idle=yes", "--pause",
                                                    "--loop-file=inf", file], environment: bus.environment)
        children.append(mpv)
        return mpv
    }

    private func playerctl(_ command: String) throws {
        let r = try ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", command], environment: bus.environment)
        XCTAssertEqual(r.status, 0, "playerctl \(command)")
    }

    func testPlayPauseAndVanishingPlayerDriveTheHint() throws {
        let source = MPRISHintSource(busAddress: bus.address)
        let session = engine.session
        let events = EventCollector(session)
        session.addHintSource(source)
        session.activate()
        // activate() waits at most its initialScanTimeout: under load the first scan may finish later.
        XCTAssertNotNil(waitFor(5) { source.isConnected })
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint)

        let mpv = try startPlayer()
        XCTAssertNotNil(waitFor(5) { source.players[Self.mpvName] != nil }, "mpv's MPRIS name appears on the bus")
        // mpv-mpris may report Playing for a moment while it starts: the settled state is paused.
        usleep(400_000)
        XCTAssertEqual(source.players[Self.mpvName], false)
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint)
        XCTAssertEqual(events.events, [], "no hint edge from a paused player starting")

        try playerctl("play")
        let began = waitFor(2) { session.secondaryAudioShouldBeSilencedHint }
        XCTAssertNotNil(began)
        XCTAssertLessThan(began ?? 99, 0.5, "the hint begins within 500 ms of play")
        print("MPRIS: play → hint began after \(String(format: "%.0f", (began ?? 0) * 1000)) ms")

        try playerctl("pause")
        let paused = waitFor(2) { !session.secondaryAudioShouldBeSilencedHint }
        XCTAssertNotNil(paused)
        XCTAssertLessThan(paused ?? 99, 0.5, "the hint ends within 500 ms of pause")
        print("MPRIS: pause → hint ended after \(String(format: "%.0f", (paused ?? 0) * 1000)) ms")

        try playerctl("play")
        XCTAssertNotNil(waitFor(2) { session.secondaryAudioShouldBeSilencedHint })
        mpv.stop(signal: SIGKILL)
        let vanished = waitFor(2) { !session.secondaryAudioShouldBeSilencedHint }
        XCTAssertNotNil(vanished, "a player that vanishes ends the hint")
        XCTAssertLessThan(vanished ?? 99, 0.5)
        XCTAssertNil(source.players[Self.mpvName])
        print("MPRIS: kill → hint ended after \(String(format: "%.0f", (vanished ?? 0) * 1000)) ms")

        XCTAssertEqual(events.wait(count: 4), [.secondaryAudioHint(.begin), .secondaryAudioHint(.end),
                                               .secondaryAudioHint(.begin), .secondaryAudioHint(.end)])
    }

    func testHintIsRightAtActivationWithAPlayerAlreadyPlaying() throws {
        _ = try startPlayer()
        XCTAssertNotNil(waitFor(5) {
            (try? ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "status"], environment: bus.environment).output)?.contains("Paused") == true
        }, "mpv is on the bus")
        try playerctl("play")
        XCTAssertNotNil(waitFor(3) {
            (try? ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "status"], environment: bus.environment).output)?.contains("Playing") == true
        })
        let session = engine.session
        session.category = .ambient   // mixes: the player is left playing
        let events = EventCollector(session)
        session.addHintSource(MPRISHintSource(busAddress: bus.address))
        session.activate()
        XCTAssertTrue(session.secondaryAudioShouldBeSilencedHint, "right as activate() returns")
        XCTAssertEqual(session.musicDuckGain, 0, "and the music is already ducked")
        XCTAssertEqual(events.wait(count: 1), [.secondaryAudioHint(.begin)])
    }

    // MARK: The policy table (Earshot.docc/AudioSessionPolicy.md), one test per row

    private func status() -> String {
        ((try? ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "status"], environment: bus.environment).output) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// mpv on the bus and playing; then the session activates in `category`. Returns the
    /// session's events collector.
    private func activateWithAPlayerPlaying(_ category: AudioSession.Category) throws -> EventCollector {
        _ = try startPlayer()
        XCTAssertNotNil(waitFor(5) { status() == "Paused" }, "mpv is on the bus")
        try playerctl("play")
        XCTAssertNotNil(waitFor(3) { status() == "Playing" })
        let session = engine.session
        session.category = category
        let events = EventCollector(session)
        session.addHintSource(MPRISHintSource(busAddress: bus.address))
        session.activate()
        return events
    }

    /// The duck factor once the ramps have run (0.7 s of frames on the engine clock).
    private func settledDuck() throws -> Float {
        try FrameRenderer(engine).render(seconds: 0.7)
        return engine.session.musicDuckGain
    }

    /// `ambient`: mixes (the player keeps playing), the hint ducks the music.
    func testAmbientMixesAndDucks() throws {
        let events = try activateWithAPlayerPlaying(.ambient)
        XCTAssertTrue(AudioSession.Category.ambient.mixesWithOthers)
        usleep(500_000)
        XCTAssertEqual(status(), "Playing", "an ambient session leaves the player alone")
        XCTAssertTrue(engine.session.secondaryAudioShouldBeSilencedHint)
        XCTAssertEqual(try settledDuck(), 0, "the music is ducked (silent)")
        XCTAssertEqual(events.wait(count: 1), [.secondaryAudioHint(.begin)])
    }

    /// `soloAmbient`: does not mix (activation pauses the playing player, and the music starts
    /// unducked); a player started afterwards raises the hint and ducks the music.
    func testSoloAmbientSilencesOthersAndDucksForALaterPlayer() throws {
        let events = try activateWithAPlayerPlaying(.soloAmbient)
        XCTAssertEqual(status(), "Paused", "activation paused the player")
        XCTAssertFalse(engine.session.secondaryAudioShouldBeSilencedHint, "nothing plays once activate() returns")
        XCTAssertEqual(engine.session.musicDuckGain, 1, "the music starts unducked")
        try playerctl("play")
        XCTAssertNotNil(waitFor(3) { self.engine.session.secondaryAudioShouldBeSilencedHint }, "a later player raises the hint")
        XCTAssertEqual(status(), "Playing", "and is not paused again")
        XCTAssertEqual(try settledDuck(), 0, "the music ducks")
        XCTAssertEqual(events.wait(count: 1), [.secondaryAudioHint(.begin)])
    }

    /// `playback`: does not mix (activation pauses the player); a later player raises the hint,
    /// which is reported but never ducks the music.
    func testPlaybackSilencesOthersAndNeverDucks() throws {
        let events = try activateWithAPlayerPlaying(.playback)
        XCTAssertEqual(status(), "Paused", "activation paused the player")
        try playerctl("play")
        XCTAssertNotNil(waitFor(3) { self.engine.session.secondaryAudioShouldBeSilencedHint }, "the hint is reported")
        XCTAssertEqual(try settledDuck(), 1, "the music plays on")
        XCTAssertEqual(events.wait(count: 1), [.secondaryAudioHint(.begin)])
        XCTAssertFalse(AudioSession.Category.playback.silencedByRingerSwitch)
        XCTAssertTrue(AudioSession.Category.soloAmbient.silencedByRingerSwitch)
    }

    func testOwnProcessPlayersAreIgnored() throws {
        // This process takes an MPRIS name on the bus (it never answers Get: a player of ours).
        let own = try BusConnection(address: bus.address, timeoutMilliseconds: 1_000)
        let reply = try own.call(destination: BusConnection.busName, path: BusConnection.busPath, interface: BusConnection.busName,
                                 member: "RequestName", values: [.string("org.mpris.MediaPlayer2.earshottest"), .uint32(4)],
                                 timeoutMilliseconds: 1_000)
        XCTAssertEqual(reply.first, .uint32(1), "primary owner of the name")
        _ = try startPlayer()
        let source = MPRISHintSource(busAddress: bus.address)
        engine.session.addHintSource(source)
        engine.session.activate()
        XCTAssertNotNil(waitFor(5) { source.players[Self.mpvName] != nil })
        XCTAssertNil(source.players["org.mpris.MediaPlayer2.earshottest"], "our own player is not counted")
        withExtendedLifetime(own) {}
    }

    func testNoBusMeansUnavailableAndTheEngineRunsOn() throws {
        let source = MPRISHintSource(busAddress: "unix:path=/nonexistent/earshot-bus")
        let session = engine.session
        session.addHintSource(source)
        let start = Date()
        session.activate()
        XCTAssertLessThan(Date().timeIntervalSince(start), 0.6, "activation does not hang on a missing bus")
        let status = try XCTUnwrap(session.hintSources.first)
        XCTAssertFalse(status.isAvailable)
        XCTAssertFalse(status.detail.isEmpty)
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint)
        let clip = try engine.loadClip(TestSignals.sine(seconds: 0.2), name: "tone")
        _ = try engine.play(clip)
        engine.update()
        let out = try engine.render(frames: 4_800)
        XCTAssertGreaterThan(Level.rms(out, channels: 2)[0], 0.05, "the engine plays on")
    }

    func testBusGoingAwayEndsTheHintAndDoesNotEndTheProcess() throws {
        let source = MPRISHintSource(busAddress: bus.address)
        let session = engine.session
        session.addHintSource(source)
        session.activate()
        _ = try startPlayer()
        XCTAssertNotNil(waitFor(5) { source.players[Self.mpvName] != nil })
        usleep(300_000)
        try playerctl("play")
        XCTAssertNotNil(waitFor(2) { session.secondaryAudioShouldBeSilencedHint })
        bus.stop()   // libdbus would _exit() the test process here with exit-on-disconnect on
        XCTAssertNotNil(waitFor(2) { !session.secondaryAudioShouldBeSilencedHint }, "no bus: nothing playing")
        XCTAssertNotNil(waitFor(2) { session.hintSources.first?.isAvailable == false })
        XCTAssertFalse(source.isConnected)
    }
}
