@testable import Earshot
import XCTest

/// Ducking measured on a loopback render: a music track (500 Hz) and a looping effect voice
/// (2 kHz) at once, each measured by its band energy (Goertzel) in 0.1 s windows that hold a
/// whole number of cycles of both.
final class DuckingRenderTests: XCTestCase {
    static let musicHz = 500.0
    static let effectHz = 2_000.0
    static let window = 0.1

    private var fixtures: MusicFixtures!
    private var engine: AudioEngine!
    private var track: MusicTrack!
    private var renderer: FrameRenderer!

    override func setUpWithError() throws {
        fixtures = try MusicFixtures()
        engine = try TestSignals.loopbackEngine()
        renderer = FrameRenderer(engine)
        let music = try fixtures.sineWAV("music.wav", frequency: Int(Self.musicHz), amplitude: 0.3, seconds: 2)
        track = try engine.loadMusic(path: music)
        track.numberOfLoops = -1
        let effect = try engine.loadClip(TestSignals.sine(frequency: Self.effectHz, amplitude: 0.3, seconds: 1), name: "effect")
        _ = try engine.play(effect, options: .init(loop: true))
    }

    override func tearDown() {
        engine?.shutdown()
        engine = nil
        track = nil
        renderer = nil
        fixtures = nil
    }

    private func music(from start: Int, seconds: Double = window) -> Double {
        renderer.level(from: start, seconds: seconds, frequency: Self.musicHz)
    }

    private func effect(from start: Int, seconds: Double = window) -> Double {
        renderer.level(from: start, seconds: seconds, frequency: Self.effectHz)
    }

    /// Renders 0.3 s and returns the baseline (music, effect) levels of its last window.
    private func baseline() throws -> (Double, Double) {
        try renderer.render(seconds: 0.3)
        let start = renderer.frames - Int(Self.window * 48_000)
        return (music(from: start), effect(from: start))
    }

    func testHintSilencesMusicWithinAttackAndBringsItBackWithinRelease() throws {
        let session = engine.session
        session.activate()
        try track.play()
        let (m0, e0) = try baseline()
        XCTAssertGreaterThan(m0, -40, "the music is heard before the hint")

        session.setSecondaryAudioHint(true)
        let begin = renderer.frames
        try renderer.render(seconds: session.attack + 1.0 / 60)   // the attack, plus the frame that notices
        let attackLevel = music(from: begin, seconds: session.attack)
        try renderer.render(seconds: 0.3)
        let ducked = renderer.frames - Int(Self.window * 48_000)
        XCTAssertLessThan(music(from: ducked) - m0, -80, "the music is silent once the attack is over")
        XCTAssertLessThan(music(from: begin + Int((session.attack + 1.0 / 60) * 48_000)) - m0, -80,
                          "silent from the first window after the attack")
        XCTAssertEqual(effect(from: ducked), e0, accuracy: 0.5, "the effect is untouched")
        // A linear ramp from 1 to 0 averages a third of the power (−4.8 dB): a ramp, not a cut.
        XCTAssertEqual(attackLevel - m0, -4.8, accuracy: 1.5, "the attack is a ramp over `attack`")
        XCTAssertEqual(session.musicDuckGain, 0)

        session.setSecondaryAudioHint(false)
        let end = renderer.frames
        try renderer.render(seconds: session.release / 2)
        let halfway = music(from: renderer.frames - Int(Self.window * 48_000))
        XCTAssertLessThan(halfway - m0, -3, "half-way through the release the music is not yet back")
        XCTAssertGreaterThan(halfway - m0, -20, "… but on its way")
        try renderer.render(seconds: session.release / 2 + 1.0 / 60)
        let back = renderer.frames
        try renderer.render(seconds: 0.2)
        XCTAssertEqual(music(from: back), m0, accuracy: 0.5, "the music is back within the release")
        XCTAssertEqual(effect(from: back), e0, accuracy: 0.5)
        XCTAssertEqual(effect(from: end, seconds: session.release), e0, accuracy: 0.5, "the effect never moved")
    }

    func testConfiguredDuckLevelInDecibels() throws {
        let session = engine.session
        session.duckLevel = -12
        session.attack = 0.05
        session.activate()
        try track.play()
        let (m0, e0) = try baseline()
        session.setSecondaryAudioHint(true, source: "test")
        try renderer.render(seconds: 0.05 + 1.0 / 60)
        let start = renderer.frames
        try renderer.render(seconds: 0.2)
        XCTAssertEqual(music(from: start) - m0, -12, accuracy: 0.5)
        XCTAssertEqual(effect(from: start), e0, accuracy: 0.5)
    }

    func testMusicStartedWhileTheHintIsOnStartsDucked() throws {
        let session = engine.session
        session.setSecondaryAudioHint(true)     // another player was already playing
        session.activate()
        try renderer.render(seconds: 0.2)
        let e0 = effect(from: renderer.frames - Int(Self.window * 48_000))
        let start = renderer.frames
        try track.play()
        try renderer.render(seconds: 0.3)
        // Compare with the music's own level when not ducked.
        session.setSecondaryAudioHint(false)
        try renderer.render(seconds: 0.6)
        let m0 = music(from: renderer.frames - Int(Self.window * 48_000))
        XCTAssertGreaterThan(m0, -40)
        XCTAssertLessThan(music(from: start, seconds: 0.05) - m0, -80, "not even the first 50 ms is heard")
        XCTAssertLessThan(music(from: start, seconds: 0.3) - m0, -80)
        XCTAssertEqual(effect(from: start, seconds: 0.3), e0, accuracy: 0.5)
    }

    func testPlaybackCategoryIgnoresTheHint() throws {
        let session = engine.session
        session.category = .playback
        session.activate()
        let events = EventCollector(session)
        try track.play()
        let (m0, _) = try baseline()
        session.setSecondaryAudioHint(true)
        try renderer.render(seconds: 0.3)
        XCTAssertEqual(music(from: renderer.frames - Int(Self.window * 48_000)), m0, accuracy: 0.5)
        XCTAssertEqual(events.wait(count: 1), [.secondaryAudioHint(.begin)], "the hint is still reported")
        // Switching to a yielding category while the hint is on ducks over the attack.
        session.category = .ambient
        try renderer.render(seconds: session.attack + 1.0 / 60)
        let start = renderer.frames
        try renderer.render(seconds: 0.1)
        XCTAssertLessThan(music(from: start) - m0, -80)
    }

    func testInactiveSessionNeverDucks() throws {
        let session = engine.session
        try track.play()
        let (m0, _) = try baseline()
        session.setSecondaryAudioHint(true)
        try renderer.render(seconds: 0.3)
        XCTAssertEqual(music(from: renderer.frames - Int(Self.window * 48_000)), m0, accuracy: 0.5)
        // Activating with the hint on lands on the ducked level at once (OpenAL smooths the
        // step over the first mix); deactivating brings the music back over the release.
        session.activate()
        try renderer.render(seconds: 0.15)
        XCTAssertLessThan(music(from: renderer.frames - Int(Self.window * 48_000)) - m0, -80)
        session.deactivate()
        try renderer.render(seconds: session.release + 1.0 / 60)
        let start = renderer.frames
        try renderer.render(seconds: 0.1)
        XCTAssertEqual(music(from: start), m0, accuracy: 0.5)
    }
}
