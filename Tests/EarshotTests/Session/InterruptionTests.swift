@testable import Earshot
import XCTest

/// Interruptions on a loopback engine: what pauses, what keeps its position, what resumes when.
final class InterruptionTests: XCTestCase {
    private var fixtures: MusicFixtures!
    private var engine: AudioEngine!
    private var renderer: FrameRenderer!

    override func setUpWithError() throws {
        fixtures = try MusicFixtures()
        engine = try TestSignals.loopbackEngine()
        renderer = FrameRenderer(engine)
    }

    override func tearDown() {
        engine?.shutdown()
        engine = nil
        renderer = nil
        fixtures = nil
    }

    private func lastLevel(_ hz: Double, seconds: Double = 0.1) -> Double {
        renderer.level(from: renderer.frames - Int(seconds * 48_000), seconds: seconds, frequency: hz)
    }

    /// The playhead (frames) of a voice, from the pool.
    private func playhead(_ voice: Voice) -> Double? {
        engine.context.withCurrent {
            engine.core.pool.slot(voice.id).map { engine.core.pool.slots[$0].playhead }
        }
    }

    func testBeganPausesVoicesAndTracksKeepingPositionsAndEndedResumes() throws {
        let session = engine.session
        let events = EventCollector(session)
        let trackFile = try fixtures.sineWAV("music.wav", frequency: 500, amplitude: 0.3, seconds: 3)
        let track = try engine.loadMusic(path: trackFile)
        let clip = try engine.loadClip(TestSignals.sine(frequency: 2_000, amplitude: 0.3, seconds: 1), name: "one-shot")
        try track.play()
        let voice = try engine.play(clip, options: .init(bus: .voice))   // a one-shot on another bus
        try renderer.render(seconds: 0.4)
        XCTAssertGreaterThan(lastLevel(500), -40)
        XCTAssertGreaterThan(lastLevel(2_000), -40)

        session.beginInterruption()
        XCTAssertTrue(session.isInterrupted)
        let trackAt = track.currentTime
        XCTAssertEqual(trackAt, 0.4, accuracy: 0.02)
        try renderer.render(seconds: 2)   // longer than the one-shot has left
        XCTAssertLessThan(lastLevel(500, seconds: 1.9), -100, "the track is silent while interrupted")
        XCTAssertLessThan(lastLevel(2_000, seconds: 1.9), -100, "the voice is silent while interrupted")
        XCTAssertFalse(track.isPlaying)
        XCTAssertTrue(voice.isPlaying, "an interrupted voice is paused, not ended")
        XCTAssertEqual(track.currentTime, trackAt, accuracy: 0.001, "the track's position stands still")

        session.endInterruption(shouldResume: true)
        XCTAssertFalse(session.isInterrupted)
        XCTAssertEqual(events.wait(count: 2), [.interruption(.began), .interruption(.ended(shouldResume: true))])
        XCTAssertTrue(track.isPlaying)
        let resumed = renderer.frames
        try renderer.render(seconds: 0.3)
        XCTAssertEqual(track.currentTime, trackAt + 0.3, accuracy: 0.03, "the track goes on from where it was")
        XCTAssertGreaterThan(renderer.level(from: resumed + 2_400, seconds: 0.2, frequency: 2_000), -40,
                             "the one-shot picks up where it stopped")
        // The one-shot had ~0.6 s left when interrupted: it ends about 0.6 s after resuming.
        try renderer.render(seconds: 0.25)
        XCTAssertTrue(voice.isPlaying, "0.55 s after resuming it still plays (its time froze)")
        try renderer.render(seconds: 0.2)
        XCTAssertFalse(voice.isPlaying, "0.75 s after resuming it has ended (nothing played twice)")
    }

    func testVirtualVoicesFreeze() throws {
        engine.shutdown()
        engine = try TestSignals.loopbackEngine { $0.maxRealVoices = 1 }
        renderer = FrameRenderer(engine)
        let clip = try engine.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.3, seconds: 4), name: "long")
        _ = try engine.play(clip, options: .init(priority: 0))
        let virtualVoice = try engine.play(clip, options: .init(priority: 200))
        try renderer.render(seconds: 0.5)
        XCTAssertEqual(virtualVoice.status, .virtual)
        let before = try XCTUnwrap(playhead(virtualVoice))
        XCTAssertEqual(before, 0.5 * 48_000, accuracy: 1_000, "a virtual voice keeps time while playing")
        engine.session.beginInterruption()
        try renderer.render(seconds: 1)
        XCTAssertEqual(try XCTUnwrap(playhead(virtualVoice)), before, accuracy: 1_000, "… and freezes while interrupted")
        engine.session.resume()
        try renderer.render(seconds: 0.5)
        XCTAssertEqual(try XCTUnwrap(playhead(virtualVoice)), before + 0.5 * 48_000, accuracy: 1_500)
    }

    func testEndedFollowsThePolicy() throws {
        let session = engine.session
        let clip = try engine.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.3, seconds: 1), name: "loop")
        _ = try engine.play(clip, options: .init(loop: true))
        let cases: [(AudioSession.InterruptionPolicy, shouldResume: Bool, resumes: Bool)] = [
            (.resumeIfAllowed, true, true), (.resumeIfAllowed, false, false),
            (.alwaysResume, false, true), (.manual, true, false),
        ]
        for (policy, shouldResume, resumes) in cases {
            session.interruptionPolicy = policy
            session.beginInterruption()
            try renderer.render(seconds: 0.1)
            XCTAssertLessThan(lastLevel(1_000, seconds: 0.05), -100, "\(policy): silent while interrupted")
            session.endInterruption(shouldResume: shouldResume)
            XCTAssertEqual(session.isInterrupted, !resumes, "\(policy), shouldResume \(shouldResume)")
            try renderer.render(seconds: 0.1)
            if resumes {
                XCTAssertGreaterThan(lastLevel(1_000, seconds: 0.05), -30, "\(policy): playing again")
            } else {
                XCTAssertLessThan(lastLevel(1_000, seconds: 0.05), -100, "\(policy): still paused")
                session.resume()
                try renderer.render(seconds: 0.1)
                XCTAssertGreaterThan(lastLevel(1_000, seconds: 0.05), -30, "\(policy): resume() lifts it")
            }
        }
    }

    func testBeganWithoutEndedNeverWedgesAndStrayEdgesAreIgnored() throws {
        let session = engine.session
        let events = EventCollector(session)
        session.endInterruption(shouldResume: true)   // an end with no began
        session.beginInterruption()
        session.beginInterruption()                   // a second began
        let clip = try engine.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.3, seconds: 1), name: "loop")
        let voice = try engine.play(clip, options: .init(loop: true))   // played during the interruption
        try renderer.render(seconds: 0.2)
        XCTAssertTrue(voice.isPlaying)
        XCTAssertLessThan(lastLevel(1_000), -100, "a voice played during an interruption waits")
        session.resume()                              // the ended never came
        try renderer.render(seconds: 0.2)
        XCTAssertGreaterThan(lastLevel(1_000), -30)
        session.endInterruption(shouldResume: true)   // a late ended changes nothing
        XCTAssertEqual(events.wait(count: 1), [.interruption(.began)])
        usleep(20_000)
        XCTAssertEqual(events.events, [.interruption(.began)], "one began, no stray ended")
    }

    func testGamePausesOutlastTheInterruption() throws {
        let session = engine.session
        let a = try fixtures.sineWAV("a.wav", frequency: 500, amplitude: 0.3, seconds: 3)
        let b = try fixtures.sineWAV("b.wav", frequency: 750, amplitude: 0.3, seconds: 3)
        let kept = try engine.loadMusic(path: a)
        let late = try engine.loadMusic(path: b)
        let clip = try engine.loadClip(TestSignals.sine(frequency: 2_000, amplitude: 0.3, seconds: 1), name: "loop")
        _ = try engine.play(clip, options: .init(loop: true, bus: .ui))
        try kept.play()
        try renderer.render(seconds: 0.2)
        session.beginInterruption()
        try engine.setPaused(true, for: .ui)   // the game opens its pause menu meanwhile
        kept.pause()                       // and pauses this track itself
        try late.play()                    // and starts another one, which must wait
        XCTAssertFalse(late.isPlaying)
        try renderer.render(seconds: 0.2)
        XCTAssertLessThan(lastLevel(750), -100)
        session.endInterruption(shouldResume: true)
        try renderer.render(seconds: 0.3)
        XCTAssertTrue(late.isPlaying, "a track started during the interruption starts at its end")
        XCTAssertEqual(late.currentTime, 0.3, accuracy: 0.03, "from its beginning")
        XCTAssertGreaterThan(lastLevel(750), -40)
        XCTAssertFalse(kept.isPlaying, "a track the game paused stays paused")
        XCTAssertLessThan(lastLevel(500), -100)
        XCTAssertTrue(try engine.isPaused(.ui), "a bus the game paused stays paused")
        XCTAssertLessThan(lastLevel(2_000), -100)
    }
}
