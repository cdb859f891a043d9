@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The session's two feeds from the platform, driven through their protocols alone:
/// ``SecondaryAudioHintSource`` (the hint) and ``DefaultOutputSource`` (route changes), each
/// supplied by a hand-made source in this process — what a game on another platform, or a test,
/// plugs in instead of Earshot's Linux sources (D-Bus/MPRIS and PulseAudio, tested against real
/// daemons in Tests/EarshotTests/Linux).
///
/// No mock stands in for a real part here: these sources *are* implementations of the public
/// protocols, written as a game developer would, and the protocol's contract is what is under
/// test — when the session and the engine start and stop a source, that `silenceOthers` is asked
/// in a category that does not mix, that reports before start or after stop are ignored. Every
/// part behind the protocols is the real one: the session's policy, the ducking ramp and the
/// engine's hold, measured on a loopback render (band levels by Goertzel, RMS).
final class SourceProtocolTests: XCTestCase {
    /// A hint source fed by hand: counts its calls, and on `silenceOthers` its "other player"
    /// stops (it reports nothing playing), as a real player asked to pause does.
    private final class HandHintSource: SecondaryAudioHintSource {
        let name = "hand"
        private let state = Locked<(sink: HintSink?, starts: Int, stops: Int, silenced: Int, playing: Bool)>((nil, 0, 0, 0, true))

        var starts: Int { state.withLock { $0.starts } }
        var stops: Int { state.withLock { $0.stops } }
        var silenced: Int { state.withLock { $0.silenced } }

        func start(reportingTo sink: HintSink) {
            let playing = state.withLock { s -> Bool in
                s.sink = sink
                s.starts += 1
                return s.playing
            }
            sink.report(otherAudioPlaying: playing)   // the first scan: a player already plays
        }

        func stop() { state.withLock { $0.stops += 1 } }   // keeps its sink: a late report must be ignored

        func silenceOthers() {
            let sink = state.withLock { s -> HintSink? in
                s.silenced += 1
                s.playing = false
                return s.sink
            }
            DispatchQueue.global().async { sink?.report(otherAudioPlaying: false) }   // "paused", from another thread
        }

        func report(_ playing: Bool) { state.withLock { $0.sink }?.report(otherAudioPlaying: playing) }
        func unavailable(_ reason: String) { state.withLock { $0.sink }?.reportUnavailable(reason) }
    }

    /// A default-output source fed by hand (a headphone jack, say).
    private final class HandOutputSource: DefaultOutputSource {
        private let state = Locked<(report: (@Sendable (DefaultOutputChange) -> Void)?, starts: Int, stops: Int)>((nil, 0, 0))

        var starts: Int { state.withLock { $0.starts } }
        var stops: Int { state.withLock { $0.stops } }

        func start(reportingTo report: @escaping @Sendable (DefaultOutputChange) -> Void) {
            state.withLock { s in
                s.report = report
                s.starts += 1
            }
        }

        func stop() { state.withLock { $0.stops += 1 } }   // keeps the closure: a late report must be ignored

        func send(_ reason: AudioSession.RouteChangeReason, _ output: String) {
            state.withLock { $0.report }?(DefaultOutputChange(reason: reason, output: output))
        }
    }

    static let musicHz = 500.0
    static let effectHz = 2_000.0

    func testAHandMadeHintSourceDrivesTheSessionThroughTheProtocol() throws {
        let fixtures = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let renderer = FrameRenderer(engine)
        let track = try engine.loadMusic(path: try fixtures.sineWAV("music.wav", frequency: Int(Self.musicHz), amplitude: 0.3, seconds: 2))
        track.numberOfLoops = -1
        let effect = try engine.loadClip(TestSignals.sine(frequency: Self.effectHz, amplitude: 0.3, seconds: 1), name: "effect")
        _ = try engine.play(effect, options: .init(loop: true))
        func lastWindow(_ hz: Double) -> Double { renderer.level(from: renderer.frames - 4_800, seconds: 0.1, frequency: hz) }

        let session = engine.session
        let events = EventCollector(session)
        let hand = HandHintSource()
        session.addHintSource(hand)
        XCTAssertEqual(hand.starts, 0, "an inactive session does not start its sources")

        // soloAmbient (the default) does not mix: activation asks the source to silence the
        // player it reported, and waits for it to report the player stopped.
        session.activate()
        XCTAssertEqual(hand.starts, 1)
        XCTAssertEqual(hand.silenced, 1, "activation in a category that does not mix silences the others")
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint, "the silenced player no longer counts")
        XCTAssertEqual(session.hintSources, [HintSourceStatus(name: "hand", isRunning: true, isReady: true, isAvailable: true,
                                                              detail: "", reportsOtherAudio: false)])

        try track.play()
        try renderer.render(seconds: 0.3)
        let m0 = lastWindow(Self.musicHz), e0 = lastWindow(Self.effectHz)
        XCTAssertGreaterThan(m0, -40, "the music is heard")

        hand.report(true)
        XCTAssertTrue(session.secondaryAudioShouldBeSilencedHint)
        try renderer.render(seconds: session.attack + 0.3)
        let ducked = lastWindow(Self.musicHz)
        XCTAssertLessThan(ducked - m0, -80, "the source's report ducks the music")
        XCTAssertEqual(lastWindow(Self.effectHz), e0, accuracy: 0.5, "the effect is untouched")

        hand.unavailable("the platform's service went away")
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint, "an unavailable source counts as nothing playing")
        XCTAssertEqual(session.hintSources.first?.isAvailable, false)
        XCTAssertEqual(session.hintSources.first?.detail, "the platform's service went away")
        try renderer.render(seconds: session.release + 0.3)
        let back = lastWindow(Self.musicHz)
        XCTAssertEqual(back, m0, accuracy: 1, "the music is back after the release")

        session.deactivate()
        XCTAssertEqual(hand.stops, 1)
        hand.report(true)
        XCTAssertFalse(session.secondaryAudioShouldBeSilencedHint, "a report after stop is ignored")
        XCTAssertEqual(events.wait(count: 2), [.secondaryAudioHint(.begin), .secondaryAudioHint(.end)])
        usleep(50_000)
        XCTAssertEqual(events.events.count, 2, "nothing after the stop")
        print(String(format: "hand-made hint source: music %.1f dB, ducked %.1f dB, back %.1f dB", m0, ducked, back))
    }

    func testAHandMadeDefaultOutputSourceDrivesTheEngineThroughTheProtocol() throws {
        let hand = HandOutputSource()
        let engine = try TestSignals.loopbackEngine { $0.defaultOutputSource = hand }
        defer { engine.shutdown() }
        XCTAssertEqual(hand.starts, 1, "the engine starts the configured source, a loopback engine too")

        // Configurations compare their sources by identity.
        var same = engine.configuration
        same.defaultOutputSource = hand
        XCTAssertEqual(same, engine.configuration)
        same.defaultOutputSource = HandOutputSource()
        XCTAssertNotEqual(same, engine.configuration)
        same.defaultOutputSource = nil
        XCTAssertNotEqual(same, engine.configuration)

        let session = engine.session
        session.pausesWhenOutputGoesAway = true
        let events = EventCollector(session)
        let tone = try engine.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        _ = try engine.play(tone, options: .init(loop: true))
        func render(_ seconds: Double) throws -> Double {
            var out: [Float] = []
            for _ in 0..<Int((seconds * 60).rounded()) {
                engine.update(deltaTime: 1.0 / 60)
                out += try engine.render(frames: 800)
            }
            return Level.rms(Array(out.suffix(2 * 4_800)), channels: 2)[0]
        }
        let playing = try render(0.2)
        XCTAssertGreaterThan(playing, 0.1)

        hand.send(.newDeviceAvailable, "headphones")
        XCTAssertEqual(events.wait(count: 1), [.routeChange(.newDeviceAvailable)])
        XCTAssertFalse(session.isInterrupted, "a new default output: the game carries on")
        let moved = try render(0.2)
        XCTAssertEqual(moved, playing, accuracy: 0.01)

        hand.send(.oldDeviceUnavailable, "speakers")
        XCTAssertEqual(events.wait(count: 2), [.routeChange(.newDeviceAvailable), .routeChange(.oldDeviceUnavailable)])
        XCTAssertTrue(session.isInterrupted, "pausesWhenOutputGoesAway holds the audio")
        let held = try render(0.2)
        XCTAssertLessThan(held, 1e-4, "silent while held")
        session.resume()
        let resumed = try render(0.2)
        XCTAssertGreaterThan(resumed, 0.1, "resume() brings it back")

        engine.shutdown()
        XCTAssertEqual(hand.stops, 1, "shutdown stops the source")
        hand.send(.oldDeviceUnavailable, "gone")
        usleep(50_000)
        XCTAssertEqual(events.events.count, 2, "a report after shutdown is ignored")
        print(String(format: "hand-made output source: RMS %.3f playing, %.3f after a new default, %.6f held, %.3f resumed",
                     playing, moved, held, resumed))
    }
}
