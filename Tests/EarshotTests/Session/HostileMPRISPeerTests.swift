@testable import Earshot
import Foundation
import XCTest

/// A hostile MPRIS peer (issue 12, item 7): a real second connection on the test bus owns
/// `org.mpris.MediaPlayer2.hostile`, floods `PropertiesChanged` with `PlaybackStatus` invalidated
/// at 100 signals a second and never answers `Get`. Was: every signal blocked the watcher for
/// its 250 ms call timeout, so a real player starting meanwhile was noticed tens of seconds late.
/// Now a real player's `Playing` still raises the hint within 0.5 s, and the peer never does.
final class HostileMPRISPeerTests: XCTestCase {
    static let mpvName = "org.mpris.MediaPlayer2.mpv"

    /// The peer: python3-dbus (Debian's), a bus connection with no main loop, so the `Get`
    /// calls it receives are never answered.
    static let peerScript = """
        import dbus, sys, time
        bus = dbus.bus.BusConnection(sys.argv[1])
        bus.request_name('org.mpris.MediaPlayer2.hostile')
        end = time.time() + float(sys.argv[2])
        sent = 0
        while time.time() < end:
            m = dbus.lowlevel.SignalMessage('/org/mpris/MediaPlayer2', 'org.freedesktop.DBus.Properties', 'PropertiesChanged')
            m.append('org.mpris.MediaPlayer2.Player', dbus.Dictionary({}, signature='sv'), dbus.Array(['PlaybackStatus'], signature='s'))
            bus.send_message(m)
            bus.flush()
            sent += 1
            time.sleep(0.01)
        print(sent)
        """

    private var fixtures: MusicFixtures!
    private var bus: PrivateBus!
    private var children: [ChildProcess] = []
    private var engine: AudioEngine!

    override func setUpWithError() throws {
        for tool in ["/usr/bin/dbus-daemon", "/usr/bin/mpv", "/usr/bin/playerctl", "/usr/bin/python3"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is missing: run `make deps`")
        }
        guard FileManager.default.fileExists(atPath: "/etc/mpv/scripts/mpris.so") else { throw XCTSkip("mpv-mpris is missing: run `make deps`") }
        guard (try? ChildProcess.run("/usr/bin/python3", ["-c", "import dbus"]).status) == 0 else {
            throw XCTSkip("python3-dbus is missing: run `make deps`")
        }
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

    func testARealPlayerIsHeardWhileAPeerFloodsAndNeverAnswers() throws {
        let source = MPRISHintSource(busAddress: bus.address)
        let session = engine.session
        session.category = .ambient   // mix: this test is about noticing players, not pausing them
        session.addHintSource(source)
        session.activate()
        XCTAssertTrue(source.isConnected)

        let script = fixtures.directory.appendingPathComponent("hostile.py")
        try Self.peerScript.write(to: script, atomically: true, encoding: .utf8)
        let peerOut = fixtures.directory.appendingPathComponent("hostile.out")
        let peer = try ChildProcess("/usr/bin/python3", [script.path, bus.address, "8"], environment: bus.environment, output: peerOut)
        children.append(peer)
        XCTAssertNotNil(waitFor(5) { source.players["org.mpris.MediaPlayer2.hostile"] != nil }, "the peer is tracked")
        usleep(1_000_000)   // 100 signals in flight before the real player appears

        let file = try fixtures.sineWAV("player.wav", frequency: 440, amplitude: 0.2, seconds: 2)
        let mpv = try ChildProcess("/usr/bin/mpv", ["--ao=null", "--vo=null", "--no-terminal", "--idle=yes", "--pause",
                                                    "--loop-file=inf", file], environment: bus.environment)
        children.append(mpv)
        let seen = waitFor(8) { source.players[Self.mpvName] != nil }
        print("HostileMPRISPeerTests: mpv's name seen after \(String(format: "%.0f", (seen ?? 99) * 1000)) ms while the peer floods")
        XCTAssertNotNil(seen, "mpv's MPRIS name is seen while the peer floods")
        XCTAssertLessThan(seen ?? 99, 2, "within 2 s of mpv starting (its own start-up included)")
        usleep(400_000)
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint, "the peer never raises the hint")
        XCTAssertEqual(try ChildProcess.run("/usr/bin/playerctl", ["-p", "mpv", "play"], environment: bus.environment).status, 0)
        let began = waitFor(3) { session.secondaryAudioShouldBeSilencedHint }
        print("HostileMPRISPeerTests: play → hint after \(String(format: "%.0f", (began ?? 99) * 1000)) ms while the peer floods")
        XCTAssertNotNil(began)
        XCTAssertLessThan(began ?? 99, 0.5, "the real player's Playing raises the hint within 0.5 s")
        XCTAssertTrue(peer.isRunning, "the peer was still flooding")
        XCTAssertNotNil(waitFor(10) { !peer.isRunning })
        let sent = Int((try? String(contentsOf: peerOut, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        XCTAssertGreaterThan(sent, 300, "the peer flooded (\(sent) signals)")
    }
}
