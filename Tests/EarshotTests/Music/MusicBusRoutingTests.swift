@testable import Earshot
import EarshotMeasure
import XCTest

/// Issue 23 item 8: a streamed track plays on the bus it was loaded on, with that bus's gain,
/// pause, stop, snapshots and ducking rules, and a mono track can follow an emitter. Measured on
/// loopback renders: a track on `.voice` (500 Hz) and one on `.music` (700 Hz) play at once,
/// each measured by its band energy in 0.1 s windows.
final class MusicBusRoutingTests: XCTestCase {
    static let voiceHz = 500.0
    static let musicHz = 700.0
    static let window = 0.1

    private var fixtures: MusicFixtures!
    private var engine: AudioEngine!
    private var renderer: FrameRenderer!
    private var line: MusicTrack!
    private var theme: MusicTrack!

    override func setUpWithError() throws {
        fixtures = try MusicFixtures()
        engine = try TestSignals.loopbackEngine()
        renderer = FrameRenderer(engine)
        line = try engine.loadMusic(path: try fixtures.sineWAV("line.wav", frequency: Int(Self.voiceHz), amplitude: 0.3, seconds: 2), bus: .voice)
        theme = try engine.loadMusic(path: try fixtures.sineWAV("theme.wav", frequency: Int(Self.musicHz), amplitude: 0.3, seconds: 2))
        line.numberOfLoops = -1
        theme.numberOfLoops = -1
    }

    override func tearDown() {
        engine?.shutdown()
        engine = nil
        line = nil
        theme = nil
        renderer = nil
        fixtures = nil
    }

    /// The (voice-track, music-track) levels in dB of the last window after rendering `seconds`.
    private func levels(after seconds: Double = 0.3) throws -> (line: Double, theme: Double) {
        try renderer.render(seconds: seconds)
        let start = renderer.frames - Int(Self.window * 48_000)
        return (renderer.level(from: start, seconds: Self.window, frequency: Self.voiceHz),
                renderer.level(from: start, seconds: Self.window, frequency: Self.musicHz))
    }

    func testTheBusIsTheOneLoadedOnAndAnUnknownBusIsRefused() throws {
        XCTAssertEqual(line.bus, .voice)
        XCTAssertEqual(theme.bus, .music)
        XCTAssertThrowsError(try engine.loadMusic(path: line.path, bus: Bus("dialog"))) {
            guard case .invalidArgument = $0 as? EarshotError else { return XCTFail("\($0)") }
        }
    }

    func testAVoiceTrackKeepsItsLevelUnderTheSecondaryAudioHint() throws {
        let session = engine.session
        session.activate()
        try line.play()
        try theme.play()
        let before = try levels()
        XCTAssertGreaterThan(before.line, -30)
        XCTAssertGreaterThan(before.theme, -30)
        session.setSecondaryAudioHint(true)
        let during = try levels(after: session.attack + 0.3)
        print("MusicBusRoutingTests: hint — line \(during.line - before.line) dB, theme \(during.theme - before.theme) dB")
        XCTAssertLessThan(during.theme - before.theme, -80, "the music track yields to the hint")
        XCTAssertEqual(during.line, before.line, accuracy: 0.1, "the spoken line on .voice does not")
        session.setSecondaryAudioHint(false)
    }

    func testPauseAllExceptVoiceKeepsTheVoiceTrackAndHoldsTheMusicTrack() throws {
        try line.play()
        try theme.play()
        let before = try levels()
        try engine.pauseAll(except: [.ui, .voice])
        let during = try levels()
        XCTAssertEqual(during.line, before.line, accuracy: 0.1, "the line plays on")
        XCTAssertLessThan(during.theme - before.theme, -80, "the music is held")
        XCTAssertTrue(line.isPlaying)
        XCTAssertFalse(theme.isPlaying)
        engine.resumeAll()
        let after = try levels()
        XCTAssertEqual(after.theme, before.theme, accuracy: 0.5, "the music resumes")
        XCTAssertTrue(theme.isPlaying)

        // The voice bus's own pause and stop reach the voice track and not the music track.
        try engine.setPaused(true, for: .voice)
        let paused = try levels()
        XCTAssertLessThan(paused.line - before.line, -80)
        XCTAssertEqual(paused.theme, before.theme, accuracy: 0.5)
        try engine.setPaused(false, for: .voice)
        XCTAssertEqual(try levels().line, before.line, accuracy: 0.5)
        try engine.stopAll(on: .voice)
        let stopped = try levels()
        XCTAssertFalse(line.isPlaying)
        XCTAssertTrue(theme.isPlaying)
        XCTAssertLessThan(stopped.line - before.line, -80)
        XCTAssertEqual(stopped.theme, before.theme, accuracy: 0.5)
    }

    func testTheTracksBusGainSnapshotAndMuteApply() throws {
        try line.play()
        try theme.play()
        let before = try levels()
        try engine.setGain(0.5, for: .voice)
        let halved = try levels()
        XCTAssertEqual(halved.line - before.line, Level.dB(0.5), accuracy: 0.1, "the voice bus's gain")
        XCTAssertEqual(halved.theme, before.theme, accuracy: 0.1, "the music bus's is not changed")
        try engine.setGain(1, for: .voice)
        try engine.begin(Snapshot("radio", busGains: [.voice: -12]))
        let snap = try levels()
        XCTAssertEqual(snap.line - before.line, -12, accuracy: 0.1, "a snapshot on the voice bus")
        engine.end(Snapshot("radio"))
        try engine.setMuted(true, for: .voice)
        XCTAssertLessThan(try levels().line - before.line, -80)
        print("MusicBusRoutingTests: bus gain 0.5 → \(halved.line - before.line) dB; snapshot −12 → \(snap.line - before.line) dB")
    }

    func testATrackFollowingAnEmitterIsPlacedAndMovesWithIt() throws {
        let radio = try engine.makeEmitter(SpatialProperties(position: Vector3(2, 0, 0)))
        try line.follow(radio)
        XCTAssertEqual(line.emitter, radio)
        try line.play()
        func channels() throws -> [Double] {
            try renderer.render(seconds: 0.2)
            let tail = Array(renderer.output.suffix(Int(Self.window * 48_000) * 2))
            return Level.rms(tail, channels: 2)
        }
        let right = try channels()
        print("MusicBusRoutingTests: emitter at +2 m: L \(right[0]) R \(right[1])")
        XCTAssertGreaterThan(right[1], 0.05)
        XCTAssertLessThan(right[0], right[1] * 0.1, "the right channel carries it")
        // Inverse-clamped distance at 2 m (reference 1): half the level of a head-relative track.
        XCTAssertEqual(right[1], 0.3 / 2.0.squareRoot() / 2, accuracy: 0.02)
        radio.position = Vector3(-2, 0, 0)
        let left = try channels()
        XCTAssertGreaterThan(left[0], 0.05)
        XCTAssertLessThan(left[1], left[0] * 0.1, "moved with the emitter to the left")
        // Back to head-relative: centred again.
        try line.follow(nil)
        let centred = try channels()
        XCTAssertEqual(centred[0], centred[1], accuracy: 0.01)
        XCTAssertGreaterThan(centred[0], 0.1)
    }

    func testFollowRefusesStereoOtherEnginesAndRemovedEmitters() throws {
        let radio = try engine.makeEmitter()
        let stereo = try engine.loadMusic(path: try fixtures.sineWAV("stereo.wav", channels: 2), bus: .voice)
        XCTAssertThrowsError(try stereo.follow(radio)) {
            guard case .invalidArgument = $0 as? EarshotError else { return XCTFail("\($0)") }
        }
        XCTAssertNil(stereo.emitter)
        let other = try TestSignals.loopbackEngine()
        defer { other.shutdown() }
        XCTAssertThrowsError(try line.follow(try other.makeEmitter())) { XCTAssertEqual($0 as? EarshotError, .wrongEngine) }
        engine.removeEmitter(radio)
        XCTAssertThrowsError(try line.follow(radio)) {
            guard case .invalidArgument = $0 as? EarshotError else { return XCTFail("\($0)") }
        }
        XCTAssertNil(line.emitter)
    }
}
