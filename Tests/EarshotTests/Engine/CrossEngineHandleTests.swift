@testable import Earshot
import EarshotMeasure
import XCTest

/// Issue 23 item 2: every handle belongs to its engine. Two loopback engines each hold a handle
/// in the same slot (clip 0, sound 0, emitter 0, voice 0); every public call that takes a handle
/// is given the *other* engine's, and the render shows that nothing of the receiving engine was
/// played, stopped, moved or changed — the throwing calls throw ``EarshotError/wrongEngine``,
/// the others do nothing. Then again after the handle's engine shut down.
final class CrossEngineHandleTests: XCTestCase {
    /// An engine with a looping 1 kHz voice of a clip and a sound, on an emitter at +2 m right.
    private struct Rig {
        let engine: AudioEngine
        let clip: Clip
        let sound: Sound
        let emitter: Emitter
        let voice: Voice
    }

    private func rig() throws -> Rig {
        let e = try TestSignals.loopbackEngine()
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, seconds: 1), name: "tone")
        let sound = try e.makeSound(SoundDefinition(clips: [clip], loop: true))
        let emitter = try e.makeEmitter(SpatialProperties(position: Vector3(2, 0, 0)))
        let voice = try e.play(clip, options: .init(loop: true, emitter: emitter))
        return Rig(engine: e, clip: clip, sound: sound, emitter: emitter, voice: voice)
    }

    private func assertWrongEngine<T>(_ body: @autoclosure () throws -> T, _ what: String,
                                      file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), what, file: file, line: line) {
            XCTAssertEqual($0 as? EarshotError, .wrongEngine, what, file: file, line: line)
        }
    }

    /// Left and right RMS of a tenth of a second of `e`.
    private func levels(_ e: AudioEngine) throws -> [Double] {
        Level.rms(try TestSignals.renderFrames(e, seconds: 0.1), channels: 2)
    }

    func testHandlesOfSameSlotsAreDistinctAcrossEngines() throws {
        let a = try rig(), b = try rig()
        defer { a.engine.shutdown(); b.engine.shutdown() }
        XCTAssertEqual(a.clip.id, b.clip.id, "the same slot in both engines: the case that used to cross")
        XCTAssertEqual(a.sound.id, b.sound.id)
        XCTAssertNotEqual(a.clip, b.clip)
        XCTAssertNotEqual(a.sound, b.sound)
        XCTAssertNotEqual(a.emitter, b.emitter)
        XCTAssertNotEqual(a.voice, b.voice)
        XCTAssertEqual(Set([a.clip, b.clip]).count, 2)
        XCTAssertEqual(Set([a.sound, b.sound]).count, 2)
    }

    func testEveryCallRefusesOrIgnoresAnotherEnginesHandle() throws {
        try checkCrossing(shutDownFirst: false)
    }

    func testAHandleOfAShutDownEngineIsStillRefused() throws {
        try checkCrossing(shutDownFirst: true)
    }

    private func checkCrossing(shutDownFirst: Bool) throws {
        let a = try rig(), b = try rig()
        defer { a.engine.shutdown(); b.engine.shutdown() }
        b.engine.stop(b.voice)   // b starts silent: anything a's handles start on b would show
        _ = try levels(b.engine)
        // a's voice moves to the slot and generation b's next voice will have.
        a.engine.stop(a.voice)
        _ = try levels(a.engine)
        let av = try a.engine.play(a.clip, options: .init(loop: true, emitter: a.emitter))
        if shutDownFirst { a.engine.shutdown() }
        let e = b.engine

        // Throwing calls: the typed error, nothing played.
        assertWrongEngine(try e.play(a.clip), "play(clip of another engine)")
        assertWrongEngine(try e.play(a.sound), "play(sound of another engine)")
        assertWrongEngine(try e.play(b.clip, options: .init(emitter: a.emitter)), "play(clip, on another engine's emitter)")
        assertWrongEngine(try e.play(b.sound, options: .init(emitter: a.emitter)), "play(sound, on another engine's emitter)")
        assertWrongEngine(try e.makeSound(SoundDefinition(clips: [a.clip])), "makeSound(clips of another engine)")
        XCTAssertEqual(e.stats.refusals, 0)
        let silent = try levels(e)
        XCTAssertLessThan(silent.max()!, 1e-6, "nothing of b plays: \(silent)")
        XCTAssertEqual(e.activeVoiceCount, 0)

        // Non-throwing calls on b's live voice and emitter, given a's handles in the same slots:
        // b's voice and emitter must be untouched.
        let bv = try e.play(b.clip, options: .init(loop: true, emitter: b.emitter))
        XCTAssertEqual(bv.id, av.id, "b's new voice is in a's voice's slot and generation")
        let before = try levels(e)
        XCTAssertGreaterThan(before[1], 0.1, "b's voice plays on the right")
        XCTAssertLessThan(before[0], 0.01)
        e.stop(av)
        e.setGain(0, of: av)
        e.setPaused(true, of: av)
        e.setPitch(2, of: av)
        e.setPriority(255, of: av)
        e.setPan(-1, of: av)
        e.setPosition(Vector3(-2, 0, 0), of: av)
        e.setSpatialProperties(SpatialProperties(position: Vector3(-2, 0, 0)), of: av)
        e.setEnvironment(EnvironmentProperties(occlusion: 1), of: av)
        e.setPosition(Vector3(-2, 0, 0), of: a.emitter)
        e.setProperties(SpatialProperties(position: Vector3(-2, 0, 0)), of: a.emitter)
        e.setEnvironment(EnvironmentProperties(occlusion: 1), of: a.emitter)
        e.batch { frame in
            frame.setPosition(Vector3(-2, 0, 0), of: a.emitter)
            frame.setPosition(Vector3(-2, 0, 0), velocity: Vector3(1, 0, 0), of: a.emitter)
            frame.setProperties(SpatialProperties(position: Vector3(-2, 0, 0)), of: a.emitter)
            frame.setPosition(Vector3(-2, 0, 0), of: av)
        }
        e.removeEmitter(a.emitter)
        e.unload(a.clip)
        e.removeSound(a.sound)
        XCTAssertFalse(e.isPlaying(av))
        XCTAssertEqual(e.status(of: av), .stopped)
        XCTAssertNil(e.position(of: av))
        XCTAssertNil(e.properties(of: a.emitter))
        XCTAssertNil(e.environment(of: a.emitter))
        XCTAssertEqual(e.instanceCount(of: a.sound), 0)
        let after = try levels(e)
        XCTAssertEqual(after[1], before[1], accuracy: 0.002, "b's voice still plays at its level on the right: \(before) → \(after)")
        XCTAssertLessThan(after[0], 0.01, "b's emitter was not moved left")
        XCTAssertTrue(bv.isPlaying)
        XCTAssertEqual(b.emitter.position, Vector3(2, 0, 0))
        XCTAssertEqual(try e.play(b.sound).status, .real, "b's sound and clip were neither removed nor unloaded")
    }

    func testMusicTracksOfAnotherEngineAreRefused() throws {
        let fixtures = try MusicFixtures()
        let path = try fixtures.sineWAV("a.wav", frequency: 500, seconds: 1)
        let a = try TestSignals.loopbackEngine(), b = try TestSignals.loopbackEngine()
        defer { a.shutdown(); b.shutdown() }
        let ta = try a.loadMusic(path: path), tb = try b.loadMusic(path: path)
        try tb.play()
        assertWrongEngine(try tb.crossfade(to: ta, duration: 0.5), "crossfade(to: a track of another engine)")
        assertWrongEngine(try ta.play(after: tb), "play(after: a track of another engine)")
        XCTAssertFalse(ta.isPlaying)
        XCTAssertTrue(tb.isPlaying, "the refused crossfade did not start fading b's track out")
        XCTAssertEqual(tb.volume, 1)
        a.shutdown()
        assertWrongEngine(try tb.crossfade(to: ta, duration: 0.5), "crossfade(to: a track of a shut-down engine)")
        XCTAssertThrowsError(try ta.play(after: tb)) { XCTAssertEqual($0 as? EarshotError, .wrongEngine) }
        XCTAssertTrue(tb.isPlaying)
    }
}
