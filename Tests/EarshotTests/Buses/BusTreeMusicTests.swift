@testable import Earshot
import EarshotMeasure
import XCTest

/// Issue 41 item 1: a streamed track on a child bus follows its group — gain, pause and stop —
/// through the same bus reads as a voice (StreamHost's bus gain and holds). Loopback renders of a
/// 700 Hz track on `score`, a child of `gameplay`.
final class BusTreeMusicTests: XCTestCase {
    func testATrackOnAChildBusFollowsItsGroup() throws {
        let fixtures = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let renderer = FrameRenderer(engine)
        let gameplay = Bus("gameplay"), score = Bus("score")
        try engine.addBus(gameplay)
        try engine.addBus(score, parent: gameplay)
        let track = try engine.loadMusic(
            path: try fixtures.sineWAV("score.wav", frequency: 700, amplitude: 0.3, seconds: 2), bus: score)
        track.numberOfLoops = -1
        try track.play()
        func level() throws -> Double {
            try renderer.render(seconds: 0.25)
            return renderer.level(from: renderer.frames - 4_800, seconds: 0.1, frequency: 700)
        }
        let base = try level()
        try engine.setGain(0.5, for: gameplay)
        let lowered = try level() - base
        try engine.defineVCA(VCA("music", buses: [gameplay]))
        try engine.setVCA("music", gain: 0.5)
        let vca = try level() - base
        try engine.setPaused(true, for: gameplay)
        let paused = try level() - base
        try engine.setPaused(false, for: gameplay)
        let resumed = try level() - base
        print("BusTreeMusicTests: group −6.02: track \(lowered) dB; + VCA 0.5: \(vca) dB; group paused: \(paused) dB; resumed \(resumed) dB")
        XCTAssertEqual(lowered, Level.dB(0.5), accuracy: 0.1)
        XCTAssertEqual(vca, 2 * Level.dB(0.5), accuracy: 0.1)
        XCTAssertLessThan(paused, -60)
        XCTAssertEqual(resumed, 2 * Level.dB(0.5), accuracy: 0.1)
        try engine.stopAll(on: gameplay)
        _ = try level()
        XCTAssertFalse(track.isPlaying, "stopAll on the group stops the track on its child")
    }
}
