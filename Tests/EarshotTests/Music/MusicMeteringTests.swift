import Earshot
import XCTest

/// Level meters of a track (its samples playing now) and of the master output (rendered samples).
final class MusicMeteringTests: XCTestCase {
    func testTrackMetersAMinusSixDBFSSine() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.sineWAV("sine.wav", amplitude: 0.5))
        track.isMeteringEnabled = true
        track.updateMeters()
        XCTAssertEqual(track.peakPower(forChannel: 0), MeterReading.silence, "nothing plays yet")
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.3)
        track.updateMeters()
        XCTAssertEqual(track.meters.frames, 2_400)
        XCTAssertEqual(track.peakPower(forChannel: 0), -6, accuracy: 0.5)
        XCTAssertEqual(track.averagePower(forChannel: 0), -9, accuracy: 0.5)
        // The window follows the play position: after the end, silence.
        _ = try MusicRender.render(engine, seconds: 0.8)
        track.updateMeters()
        XCTAssertEqual(track.averagePower(forChannel: 0), MeterReading.silence)
    }

    func testTrackMetersFollowWhatPlaysNow() throws {
        // 0.5 s at −6 dBFS then 0.5 s at −20 dBFS: the meter reads the part being played.
        let files = try MusicFixtures()
        let loud = try files.sineWAV("loud.wav", amplitude: 0.5, seconds: 0.5)
        let quiet = try files.sineWAV("quiet.wav", amplitude: 0.1, seconds: 0.5)
        let joined = files.path("joined.wav")
        try MusicFixtures.run("/usr/bin/sox", [loud, quiet, joined])
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: joined)
        track.isMeteringEnabled = true
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.45)
        track.updateMeters()
        XCTAssertEqual(track.peakPower(forChannel: 0), -6, accuracy: 0.5)
        _ = try MusicRender.render(engine, seconds: 0.2)
        track.updateMeters()
        XCTAssertEqual(track.peakPower(forChannel: 0), -20, accuracy: 0.5)
    }

    func testMasterOutputMetersTheRenderedSamples() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        engine.isOutputMeteringEnabled = true
        // A stereo track plays bit-exact to the outputs.
        let track = try engine.loadMusic(path: try files.sineWAV("stereo.wav", amplitude: 0.5, channels: 2))
        track.isMeteringEnabled = true
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.3)
        let out = engine.outputMeters()
        XCTAssertEqual(out.frames, 2_400)
        for ch in 0..<2 {
            XCTAssertEqual(out.peakPower[ch], -6, accuracy: 0.5)
            XCTAssertEqual(out.averagePower[ch], -9, accuracy: 0.5)
        }
        track.updateMeters()
        XCTAssertEqual(track.meters.averagePower[1], out.averagePower[1], accuracy: 0.1)
        try engine.setGain(0.5, for: .music)
        _ = try MusicRender.render(engine, seconds: 0.1)
        XCTAssertEqual(engine.outputMeters().peakPower[0], -12, accuracy: 0.5)
    }
}
