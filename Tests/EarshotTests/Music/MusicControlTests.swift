import Earshot
import EarshotMeasure
import XCTest

/// Transport and gain controls, measured on the loopback output.
final class MusicControlTests: XCTestCase {
    func testSeekLandsWithinOneMillisecond() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.clickWAV("click.wav", clickFrame: 72_000))   // click at 1.5 s
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.2)
        XCTAssertEqual(track.currentTime, 0.2, accuracy: 0.001)
        track.currentTime = 1.0
        XCTAssertEqual(track.currentTime, 1.0, accuracy: 0.001)
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 0.7))
        // The click is 0.5 s of file after the seek point.
        let click = MusicRender.firstSound(out, threshold: 0.05)
        XCTAssertEqual(Double(click), 24_000, accuracy: 48, "click at output frame \(click)")
        XCTAssertEqual(track.currentTime, 1.7, accuracy: 0.001)
    }

    func testVorbisSeekLandsWithinOneMillisecond() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.sineVorbis("sine.ogg", seconds: 2))
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.1)
        track.currentTime = 1.25
        _ = try MusicRender.render(engine, seconds: 0.3)
        XCTAssertEqual(track.currentTime, 1.55, accuracy: 0.001)
        // Seeking while stopped moves where play resumes.
        track.stop()
        track.currentTime = 0.5
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.1)
        XCTAssertEqual(track.currentTime, 0.6, accuracy: 0.001)
    }

    func testPauseKeepsPositionAndStopKeepsCurrentTime() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.clickWAV("click.wav", clickFrame: 72_000))
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.3)
        track.pause()
        XCTAssertFalse(track.isPlaying)
        _ = try MusicRender.render(engine, seconds: 0.5)
        XCTAssertEqual(track.currentTime, 0.3, accuracy: 0.001)
        try track.play()
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 1.4))
        // 1.2 s of file remained before the click.
        XCTAssertEqual(Double(MusicRender.firstSound(out, threshold: 0.05)), 57_600, accuracy: 48)
        track.stop()
        XCTAssertEqual(track.currentTime, 1.7, accuracy: 0.001)
        XCTAssertFalse(track.isPlaying)
    }

    func testFadeReachesTargetAtItsEnd() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.sineWAV("sine.wav"))
        track.numberOfLoops = -1
        try track.play()
        let before = MusicRender.left(try MusicRender.render(engine, seconds: 0.2))
        let full = Level.rms(before, 4_800..<9_600)
        for curve in [MusicTrack.FadeCurve.linear, .equalPower] {
            track.volume = 1
            _ = try MusicRender.render(engine, seconds: 0.05)
            track.fade(to: 0.25, duration: 0.5, curve: curve)
            let during = MusicRender.left(try MusicRender.render(engine, seconds: 0.5))
            let after = MusicRender.left(try MusicRender.render(engine, seconds: 0.05))
            XCTAssertEqual(Level.dB(Level.rms(after, 0..<after.count)) - Level.dB(full),
                           Level.dB(0.25), accuracy: 0.5, "\(curve)")
            XCTAssertEqual(track.volume, 0.25, accuracy: 1e-6)
            // Half-way the level is between the ends (linear: 0.625; equal power: 0.73).
            let mid = Level.rms(during, 11_520..<12_480) / full
            let expected = curve == .linear ? 0.625 : Double((0.5 + 0.5 * 0.0625).squareRoot())
            XCTAssertEqual(mid, expected, accuracy: 0.03, "\(curve)")
        }
    }

    /// Plays a looping 500 Hz sine, applies `change`, and returns by how many dB the music's level
    /// moved (RMS over 50 ms before and after), with the engine and track for further steps.
    private func musicLevelStep(_ files: MusicFixtures, _ change: (AudioEngine) throws -> Void) throws -> (dB: Double, engine: AudioEngine, track: MusicTrack) {
        let engine = try TestSignals.loopbackEngine()
        let track = try engine.loadMusic(path: try files.sineWAV("sine.wav"))
        track.numberOfLoops = -1
        try track.play()
        let a = MusicRender.left(try MusicRender.render(engine, seconds: 0.1))
        try change(engine)
        let b = MusicRender.left(try MusicRender.render(engine, seconds: 0.1))
        return (Level.dB(Level.rms(b, 2_400..<4_800)) - Level.dB(Level.rms(a, 2_400..<4_800)), engine, track)
    }

    func testFadeThatStopsEndsWithStoppedAndMusicBusGainApplies() throws {
        let files = try MusicFixtures()
        let (step, engine, track) = try musicLevelStep(files) { try $0.setGain(0.5, for: .music) }
        defer { engine.shutdown() }
        XCTAssertEqual(step, Level.dB(0.5), accuracy: 0.2)
        track.fade(to: 0, duration: 0.2, stopsAtEnd: true)
        _ = try MusicRender.render(engine, seconds: 0.25)
        XCTAssertFalse(track.isPlaying)
    }

    /// The master gain reaches music once, as it reaches effects (it was applied twice: in the
    /// track's source gain and again in the listener's).
    func testMasterGainReachesMusicOnce() throws {
        let files = try MusicFixtures()
        let (step, engine, _) = try musicLevelStep(files) { $0.masterGain = 0.5 }
        defer { engine.shutdown() }
        XCTAssertEqual(step, Level.dB(0.5), accuracy: 0.2)
        XCTAssertEqual(try engine.effectiveGain(for: .music), 0.5, "master × bus, as documented")
    }

    func testTapeRateIsPitchAndPanMovesAMonoTrack() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.sineWAV("sine.wav"))
        track.rateMode = .tape
        track.rate = 2
        track.pan = 1
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.1)
        XCTAssertEqual(track.currentTime, 0.2, accuracy: 0.002)
        let out = try MusicRender.render(engine, seconds: 0.1)
        let rms = Level.rms(out, channels: 2)
        XCTAssertGreaterThan(Level.dB(rms[1]) - Level.dB(rms[0]), 20, "\(rms)")
        // 1 s of file at double rate lasts 0.5 s.
        _ = try MusicRender.render(engine, seconds: 0.35)
        XCTAssertFalse(track.isPlaying)
    }
}
