@testable import Earshot
import EarshotLinux
import EarshotTestSupport
import Foundation
import XCTest

/// The MPRIS watcher against a hostile peer: another process on the test bus that owns
/// `org.mpris.MediaPlayer2.*` names, floods `PropertiesChanged` with `PlaybackStatus`
/// invalidated (100 a second) and never answers `Get`. The peer must be another process (the
/// watcher ignores players of its own): the HostilePeerProbe executable (Tests/HostilePeerProbe,
/// real libdbus connections through `BusConnection`), stopped by PID. The real player is mpv
/// with mpv-mpris, driven by playerctl.
final class MPRISHostilePeerTests: XCTestCase {
    static let mpvName = "org.mpris.MediaPlayer2.mpv"
    static let hostilePrefix = "org.mpris.MediaPlayer2.hostile"

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
        engine?.session.deactivate()
        engine?.shutdown()
        engine = nil
        for child in children { child.stop() }
        children.removeAll()
        bus?.stop()
        bus = nil
        fixtures = nil
    }

    /// The hostile peer (Tests/HostilePeerProbe): `names` names on each of `connections`
    /// connections, the first flooding invalidations, nothing ever answered.
    private func startHostilePeer(connections: Int = 1, names: Int = 1) throws -> ChildProcess {
        let probe = CLIRunner.productsDirectory.appendingPathComponent("HostilePeerProbe").path
        guard FileManager.default.isExecutableFile(atPath: probe) else { throw CLIRunnerError.notBuilt("HostilePeerProbe") }
        let peer = try ChildProcess(probe, [bus.address, "\(connections)", "\(names)"])
        children.append(peer)
        return peer
    }

    private func startPlayer() throws -> ChildProcess {
        let file = try fixtures.sineWAV("player.wav", frequency: 440, amplitude: 0.2, seconds: 2)
        let mpv = try ChildProcess("/usr/bin/mpv", ["--ao=null", "--vo=null", "--no-terminal", "--idle=yes", "--pause",
                                                    "--loop-file=inf", file], environment: bus.environment)
        children.append(mpv)
        return mpv
    }

    func testFloodingPeerThatNeverAnswersDoesNotDelayARealPlayer() throws {
        let source = MPRISHintSource(busAddress: bus.address)
        let session = engine.session
        session.addHintSource(source)
        session.activate()
        XCTAssertNotNil(waitFor(5) { source.isConnected })

        let hostile = try startHostilePeer()
        let hostileName = "\(Self.hostilePrefix).c0n0"
        XCTAssertNotNil(waitFor(10) { source.counters.signals >= 100 }, "the flood reaches the watcher")
        XCTAssertEqual(source.players[hostileName], false, "tracked, not playing: it never answered")
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint, "a peer that never answers does not raise the hint")

        _ = try startPlayer()
        XCTAssertNotNil(waitFor(5) { source.players[Self.mpvName] != nil }, "mpv is seen despite the flood")
        usleep(400_000)
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint)
        let r = try ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "play"], environment: bus.environment)
        XCTAssertEqual(r.status, 0, "playerctl play")
        let began = waitFor(3) { session.secondaryAudioShouldBeSilencedHint }
        XCTAssertNotNil(began)
        XCTAssertLessThan(began ?? 99, 0.5, "the hint begins within 500 ms of play while the peer floods")
        print("MPRIS hostile: play → hint began after \(String(format: "%.0f", (began ?? 0) * 1000)) ms")

        // Bounded: one query per peer at most, the flood coalesced, the silent peer asked ~once a second.
        usleep(1_500_000)
        let c = source.counters
        print("MPRIS hostile: \(c)")
        XCTAssertEqual(c.peers, 2)
        XCTAssertLessThanOrEqual(c.outstanding, 2)
        XCTAssertGreaterThan(c.signals, 300, "the flood went on")
        XCTAssertGreaterThan(c.coalesced, c.signals / 2, "invalidations coalesced while the peer's query is out")
        XCTAssertLessThan(c.queriesSent, 30, "the silent peer is not asked once per signal")
        XCTAssertTrue(session.secondaryAudioShouldBeSilencedHint, "mpv still plays")

        hostile.stop(signal: SIGKILL)
        XCTAssertNotNil(waitFor(3) { source.players[hostileName] == nil && source.counters.peers == 1 },
                        "the vanished peer's state is dropped")
        XCTAssertEqual(source.players[Self.mpvName], true)
    }

    func testTrackedPeersAndNamesAreBounded() throws {
        let source = MPRISHintSource(busAddress: bus.address)
        engine.session.addHintSource(source)
        engine.session.activate()
        XCTAssertNotNil(waitFor(5) { source.isConnected })
        let connections = MPRISHintSource.maxPeers + 3
        let names = MPRISHintSource.maxNamesPerPeer + 2
        let hostile = try startHostilePeer(connections: connections, names: names)
        let limit = MPRISHintSource.maxPeers * MPRISHintSource.maxNamesPerPeer
        XCTAssertNotNil(waitFor(10) { source.players.count == limit && source.counters.ignoredPeers >= connections * names - limit },
                        "tracks \(limit) of \(connections * names) names")
        usleep(500_000)
        let c = source.counters
        print("MPRIS bounded: \(c)")
        XCTAssertEqual(c.peers, MPRISHintSource.maxPeers)
        XCTAssertEqual(source.players.count, limit)
        XCTAssertLessThanOrEqual(c.outstanding, MPRISHintSource.maxPeers)
        XCTAssertFalse(engine.session.secondaryAudioShouldBeSilencedHint)
        hostile.stop(signal: SIGKILL)
        XCTAssertNotNil(waitFor(3) { source.players.isEmpty && source.counters.peers == 0 }, "all dropped when the peer goes")
    }
    func testSilentPeersAtActivationAreAskedTogetherNotOneAfterAnother() throws {
        // Three silent peers and a playing mpv are on the bus before activation. Asked one after
        // another they would cost 3 × 250 ms, past activation's 500 ms wait; asked together, 250 ms.
        _ = try startHostilePeer(connections: 3)
        let probe = try BusConnection(address: bus.address, timeoutMilliseconds: 1_000)
        XCTAssertNotNil(waitFor(10) {
            ((try? probe.callBus("ListNames", timeoutMilliseconds: 1_000))?.first?.strings ?? []).filter { $0.hasPrefix(Self.hostilePrefix) }.count == 3
        }, "the silent peers are on the bus")
        _ = try startPlayer()
        XCTAssertNotNil(waitFor(5) {
            (try? ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "status"], environment: bus.environment).output)?.contains("Paused") == true
        }, "mpv is on the bus")
        XCTAssertEqual(try ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "play"], environment: bus.environment).status, 0)
        XCTAssertNotNil(waitFor(3) {
            (try? ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "status"], environment: bus.environment).output)?.contains("Playing") == true
        })
        let session = engine.session
        session.category = .ambient   // mixes: this test is about the first scan, not pausing the player
        let source = MPRISHintSource(busAddress: bus.address)
        session.addHintSource(source)
        let start = Date()
        session.activate()
        let took = Date().timeIntervalSince(start)
        print("MPRIS hostile: activation with 3 silent peers took \(String(format: "%.0f", took * 1000)) ms")
        XCTAssertTrue(session.secondaryAudioShouldBeSilencedHint, "right as activate() returns")
        XCTAssertEqual(source.players.count, 4)
    }
}
