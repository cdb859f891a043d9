@testable import Earshot
import EarshotMeasure
import XCTest

/// Issue 23 item 7, on loopback renders: `isPlaying` is false as soon as `stop()` returns (a fade
/// still sounds, and is measured); `play(clip)` and `play(sound)` report a refusal the same way;
/// stale `Emitter.position` and `Voice.position` are both nil.
final class SmallTruthsTests: XCTestCase {
    func testIsPlayingIsFalseAsSoonAsStopReturnsWhileTheFadeStillSounds() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.5, seconds: 1), name: "tone")
        for fade in [0.0, 0.3] {
            let v = try e.play(tone, options: .init(loop: true))
            let before = Level.rms(try TestSignals.renderFrames(e, seconds: 0.1), channels: 2)[0]
            XCTAssertTrue(v.isPlaying)
            v.stop(fade: fade)
            XCTAssertFalse(v.isPlaying, "stop(fade: \(fade)) returned: not playing")
            XCTAssertEqual(v.status, .stopped)
            XCTAssertFalse(e.isPlaying(v))
            let fading = Level.rms(try TestSignals.renderFrames(e, seconds: 0.1), channels: 2)[0]
            XCTAssertFalse(v.isPlaying, "not playing during the fade either")
            _ = try TestSignals.renderFrames(e, seconds: 0.3)
            let after = Level.rms(try TestSignals.renderFrames(e, seconds: 0.1), channels: 2)[0]
            print("SmallTruthsTests: fade \(fade) s: before \(before), first 0.1 s after stop \(fading), later \(after)")
            if fade > 0 {
                XCTAssertGreaterThan(fading, before * 0.3, "a 0.3 s fade still sounds in its first 0.1 s")
                XCTAssertLessThan(fading, before * 0.95, "… going down")
            } else {
                XCTAssertLessThan(fading, before * 0.2, "the 5 ms steal fade is over at once (1.7 ms of full power in 0.1 s)")
            }
            XCTAssertLessThan(after, 1e-4, "silent once the fade is over")
            XCTAssertEqual(e.activeVoiceCount, 0)
        }
    }

    func testPlayOfAClipAndOfASoundReportARefusalTheSameWay() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 1, virtualVoices: 0)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 1), name: "tone")
        let sound = try e.makeSound(SoundDefinition(clips: [tone], priority: 200, loop: true))
        try e.play(tone, options: .init(loop: true, priority: 0))   // @discardableResult, as play(sound)
        let clipRefused = try e.play(tone, options: .init(loop: true, priority: 255))
        let soundRefused = try e.play(sound)
        XCTAssertEqual(clipRefused.status, .refused)
        XCTAssertEqual(soundRefused.status, .refused, "a full pool refuses a sound's play as a clip's: a refused voice")
        XCTAssertFalse(clipRefused.isPlaying)
        XCTAssertFalse(soundRefused.isPlaying)
        XCTAssertEqual(e.stats.refusals, 2)
        let cooled = try e.makeSound(SoundDefinition(clips: [tone], cooldown: 10))
        e.stopAllVoices()
        _ = try TestSignals.renderFrames(e, seconds: 0.05)
        XCTAssertEqual(try e.play(cooled).status, .real)
        XCTAssertEqual(try e.play(cooled).status, .refused, "the cooldown's refusal too")
    }

    func testStaleEmitterAndVoicePositionsAreBothNil() throws {
        let e = try TestSignals.loopbackEngine()
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")
        let emitter = try e.makeEmitter(SpatialProperties(position: Vector3(1, 0, 0)))
        let voice = try e.play(tone, options: .init(position: Vector3(2, 0, 0)))
        XCTAssertEqual(emitter.position, Vector3(1, 0, 0))
        XCTAssertEqual(voice.position, Vector3(2, 0, 0))
        e.removeEmitter(emitter)
        voice.stop()
        _ = try TestSignals.renderFrames(e, seconds: 0.05)
        XCTAssertNil(emitter.position, "a removed emitter has no position")
        XCTAssertNil(emitter.velocity)
        XCTAssertNil(voice.position, "an ended voice has none")
        emitter.position = Vector3(3, 0, 0)   // ignored, no trap
        XCTAssertNil(emitter.position)
        let live = try e.makeEmitter()
        e.shutdown()
        XCTAssertNil(live.position, "after shutdown too")
    }
}
