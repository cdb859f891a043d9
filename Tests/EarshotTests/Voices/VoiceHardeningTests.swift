@testable import Earshot
import COpenAL
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// Issue 13 (items 5, 7, 8, 9, 11, 12) on loopback engines: what the counters count, that every
/// property change reaches OpenAL, that a batch cannot outlive its call, that a small source
/// grant is a typed error, that handles do not keep engines alive, and that `update` without
/// rendering stays cheap.
final class VoiceHardeningTests: XCTestCase {
    // MARK: 5. Counters

    /// A paused voice, a paused bus and a voice turned below the audibility floor give up their
    /// sources without being steals; only a voice outranked in a full pool is one.
    func testStealsCountOnlyVoicesTakenForOthers() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let paused = try e.play(tone, options: .init(loop: true, pan: -1, bus: .ui))
        let onSFX = try e.play(tone, options: .init(loop: true, pan: 1, bus: .sfx))
        let quiet = try e.play(tone, options: .init(loop: true, pan: 1, bus: .ui))
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual(e.stats.realVoices, 3)

        e.setPaused(true, of: paused)
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        try e.setPaused(true, for: .sfx)
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        quiet.gain = 0   // below the audibility floor
        let out = try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertEqual([paused.status, onSFX.status, quiet.status], [.virtual, .virtual, .virtual])
        XCTAssertLessThan(Level.rms(Array(out.suffix(2_400)), channels: 2).max() ?? 1, 1e-4,
                          "all three are silent: \(Level.rms(Array(out.suffix(2_400)), channels: 2))")
        var s = e.stats
        XCTAssertEqual(s.steals, 0, "pauses and an inaudible voice are not steals")
        XCTAssertEqual(s.pauses, 2, "the paused voice and the voice of the paused bus")
        XCTAssertEqual(s.virtualizations, 1, "the voice below the audibility floor")

        // A full pool: five loud voices on four sources — one real voice is stolen.
        e.setPaused(false, of: paused)
        try e.setPaused(false, for: .sfx)
        quiet.gain = 1
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertEqual(e.stats.realVoices, 3)
        var loud: [Voice] = []
        for _ in 0..<2 { loud.append(try e.play(tone, options: .init(gain: 1, loop: true, priority: 10, pan: 0, bus: .ui))) }
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        s = e.stats
        XCTAssertEqual(s.realVoices, 4)
        XCTAssertEqual(s.steals, 1, "one of the three was taken for the fifth voice")
        XCTAssertEqual(s.pauses, 2)
        XCTAssertEqual(s.virtualizations, 1)
        // Refusals stay apart: a full virtual pool refuses a low-standing request.
        let tiny = try TestSignals.loopbackEngine(realVoices: 1, virtualVoices: 1)
        defer { tiny.shutdown() }
        let t = try tiny.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        _ = try tiny.play(t, options: .init(loop: true, priority: 0))
        _ = try tiny.play(t, options: .init(loop: true, priority: 0))
        let refused = try tiny.play(t, options: .init(loop: true, priority: 255))
        try TestSignals.renderGameFrames(tiny, seconds: 0.05)
        XCTAssertEqual(refused.status, .refused)
        XCTAssertEqual(tiny.stats.refusals, 1)
        XCTAssertEqual(tiny.stats.pauses, 0)
    }

    // MARK: 7. Every property change reaches OpenAL

    /// A deterministic generator (SplitMix64), so that a failing sequence can be replayed.
    private struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }
    }

    /// What the AL source of a real voice holds now (read under the engine's lock).
    private func alState(_ e: AudioEngine, _ voice: Voice) -> SpatialProperties? {
        e.withAL { () -> SpatialProperties? in
            guard let i = e.core.pool.slot(voice.id), e.core.pool.slots[i].phase == .real else { return nil }
            let s = e.core.pool.slots[i].source
            func v(_ p: ALenum) -> Vector3 {
                var x: ALfloat = 0, y: ALfloat = 0, z: ALfloat = 0
                alGetSource3f(s, p, &x, &y, &z)
                return Vector3(x, y, z)
            }
            func f(_ p: ALenum) -> Float {
                var x: ALfloat = 0
                alGetSourcef(s, p, &x)
                return x
            }
            var rel: ALint = 0
            alGetSourcei(s, AL_SOURCE_RELATIVE, &rel)
            return SpatialProperties(position: v(AL_POSITION), velocity: v(AL_VELOCITY), direction: v(AL_DIRECTION),
                                     coneInnerAngle: f(AL_CONE_INNER_ANGLE), coneOuterAngle: f(AL_CONE_OUTER_ANGLE),
                                     coneOuterGain: f(AL_CONE_OUTER_GAIN), referenceDistance: f(AL_REFERENCE_DISTANCE),
                                     maxDistance: f(AL_MAX_DISTANCE), rolloff: f(AL_ROLLOFF_FACTOR), isRelative: rel != 0)
        }
    }

    /// Random sequences of position, velocity, direction and cone changes through every setter
    /// and `batch`, drawn from a few values so that moves back (A → B → A) are frequent: after
    /// every update, each real voice's AL source holds exactly its properties.
    func testEveryPropertySequenceReachesOpenAL() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 16)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let positions = [Vector3(2, 0, 0), Vector3(-2, 0, 0), Vector3(0, 0, -3)]
        let vectors = [Vector3.zero, Vector3(1, 0, 0), Vector3(0, 0, -1)]
        let cones: [(Float, Float, Float)] = [(360, 360, 0), (90, 180, 0.5), (60, 270, 0.25)]
        func randomProperties(_ r: inout Rng) -> SpatialProperties {
            let c = r.pick(cones)
            return SpatialProperties(position: r.pick(positions), velocity: r.pick(vectors), direction: r.pick(vectors),
                                     coneInnerAngle: c.0, coneOuterAngle: c.1, coneOuterGain: c.2,
                                     referenceDistance: r.pick([1, 2]), rolloff: r.pick([0.5, 1]))
        }
        var rng = Rng(state: 13)
        let emitters = try (0..<3).map { _ in try e.makeEmitter(randomProperties(&rng)) }
        var voices: [(Voice, Emitter?)] = []
        for em in emitters {
            voices.append((try e.play(tone, options: .init(loop: true, emitter: em)), em))
            voices.append((try e.play(tone, options: .init(loop: true, emitter: em)), em))
        }
        for _ in 0..<3 {
            voices.append((try e.play(tone, options: .init(loop: true, position: rng.pick(positions))), nil))
        }
        try TestSignals.renderGameFrames(e, seconds: 0.02)
        var mismatches: [String] = []
        for step in 0..<600 {
            let (voice, emitter) = rng.pick(voices)
            let em = emitter ?? rng.pick(emitters)
            switch rng.int(7) {
            case 0: e.setProperties(randomProperties(&rng), of: em)
            case 1: em.position = rng.pick(positions)
            case 2: em.velocity = rng.pick(vectors)
            case 3: e.batch { $0.setPosition(rng.pick(positions), of: em) }
            case 4: voice.position = rng.pick(positions)
            case 5: e.setSpatialProperties(randomProperties(&rng), of: voice)
            default: e.batch { $0.setPosition(rng.pick(positions), of: voice) }
            }
            // Sometimes several changes land in one frame; sometimes a frame is also rendered.
            if rng.int(3) == 0 { continue }
            e.update()
            if rng.int(2) == 0 { _ = try e.render(frames: 256) }
            for (v, owner) in voices {
                guard var actual = alState(e, v) else { continue }
                let expected = owner.flatMap { e.properties(of: $0) } ?? e.read(v) { $0.spatial }
                // Which settings were given explicitly is the engine's bookkeeping, not OpenAL's.
                actual.explicitDistance = expected?.explicitDistance ?? []
                if actual != expected, mismatches.count < 5 {
                    mismatches.append("step \(step): AL has \(actual), expected \(String(describing: expected))")
                }
            }
        }
        XCTAssertEqual(mismatches, [], "property changes lost on their way to OpenAL")
    }

    /// The case from the issue, heard: an emitter moved right → left → right through
    /// `setProperties` sounds on the right again.
    func testEmitterMovedBackThroughSetPropertiesIsHeardThere() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let right = SpatialProperties(position: Vector3(3, 0, 0))
        let car = try e.makeEmitter(right)
        _ = try e.play(tone, options: .init(loop: true, emitter: car))
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        car.position = Vector3(-3, 0, 0)            // the per-frame move (position only)
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        e.setProperties(right, of: car)              // and back, with the full setter
        let out = try TestSignals.renderGameFrames(e, seconds: 0.2)
        let rms = Level.rms(Array(out.suffix(4_800 * 2)), channels: 2)
        XCTAssertGreaterThan(Level.dB(rms[1]) - Level.dB(rms[0]), 6, "heard on the right again: \(rms)")
    }

    // MARK: 8. A batch cannot outlive its call

    func testBatchIsInvalidAfterItsCallReturns() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let em = try e.makeEmitter(SpatialProperties(position: Vector3(3, 0, 0)))
        _ = try e.play(tone, options: .init(loop: true, emitter: em))
        var kept: AudioEngine.Batch?
        let inside = e.batch { frame -> Bool in
            frame.setPosition(Vector3(-3, 0, 0), of: em)
            kept = frame
            return frame.isValid
        }
        XCTAssertTrue(inside)
        XCTAssertEqual(kept?.isValid, false, "a kept batch is invalid once batch { } returned: its use traps")
        // A later batch does not make the old one valid again.
        e.batch { frame in
            XCTAssertTrue(frame.isValid)
            XCTAssertEqual(kept?.isValid, false)
        }
        let out = try TestSignals.renderGameFrames(e, seconds: 0.1)
        let rms = Level.rms(Array(out.suffix(2_400 * 2)), channels: 2)
        XCTAssertGreaterThan(rms[0], rms[1] * 2, "the move made inside the batch was heard")
    }

    // MARK: 11. Handles do not keep engines alive

    func testStaleHandlesDoNotKeepEnginesAlive() throws {
        var kept: [(Voice, Emitter)] = []
        weak var firstEngine: AudioEngine?
        let samples = TestSignals.sine(seconds: 20)
        let rssBefore = ReliabilityTests.residentBytes()
        for i in 0..<100 {
            try { () throws in
                let e = try TestSignals.loopbackEngine(realVoices: 8)
                if i == 0 { firstEngine = e }
                // A clip of 2 MB each: 100 engines kept alive would hold 200 MB of samples.
                let clip = try e.loadClip(samples, name: "tone")
                let em = try e.makeEmitter(SpatialProperties(position: Vector3(1, 0, 0)))
                let v = try e.play(clip, options: .init(loop: true, emitter: em))
                _ = try e.render(frames: 480)
                kept.append((v, em))
                if i % 2 == 0 { e.shutdown() }   // half shut down, half just released
            }()
        }
        XCTAssertNil(firstEngine, "a voice or emitter handle kept its engine alive")
        let growth = ReliabilityTests.residentBytes() - rssBefore
        XCTAssertLessThan(growth, 60 << 20, "RSS grew by \(growth >> 20) MiB for 100 discarded engines")
        for (v, em) in kept.prefix(4) {
            XCTAssertEqual(v.status, .stopped)
            XCTAssertFalse(v.isPlaying)
            XCTAssertNil(v.gain)
            v.gain = 0.5                  // a no-op, no trap
            v.stop()
            XCTAssertNil(em.properties)
            em.position = Vector3(1, 1, 1)
        }
    }

    /// Shut down (but still referenced) engines: handles are stale, every call a no-op.
    func testHandlesAfterShutdownAreStale() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let em = try e.makeEmitter()
        let v = try e.play(tone, options: .init(loop: true, emitter: em))
        _ = try e.render(frames: 480)
        e.shutdown()
        XCTAssertEqual(v.status, .stopped)
        XCTAssertNil(v.position)
        v.position = Vector3(1, 0, 0)
        XCTAssertNil(em.properties)
        XCTAssertThrowsError(try e.render(frames: 480))
    }

    // MARK: 9. Too few sources for the music sources

    /// OpenAL Soft capped at 2 sources (`sources = 2` in an `alsoft.conf` named by
    /// `ALSOFT_CONF`, read once per process: hence a child process) while the configuration
    /// reserves 4 for music. `earshot stress` renders through the loopback device with
    /// `musicSources` at its default 4: a typed error naming both numbers, exit 1, no signal.
    func testTooFewGrantedSourcesIsATypedError() throws {
        let conf = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-sources-\(getpid()).conf")
        try "[general]\nsources = 2\n".write(to: conf, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: conf) }
        let r = try CLIRunner.run("earshot", ["stress", "--voices", "4", "--seconds", "0.1", "--no-baseline"],
                                  environment: ["ALSOFT_CONF": conf.path], timeout: 60)
        XCTAssertEqual(r.status, 1, "stderr: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("granted 2 OpenAL sources"), r.stderr)
        XCTAssertTrue(r.stderr.contains("4 music sources"), r.stderr)
    }

    // MARK: 12. update() without rendering, measured

    /// `earshot stress --update-only` (loopback, `update` every frame, no render: the render
    /// clock stands still, as the game loop saw it) runs and reports the frame cost per
    /// voice. The figures themselves belong to the benchmark, not to this test.
    func testStressUpdateOnlyReportsFrameCostPerVoice() throws {
        let r = try CLIRunner.run("earshot", ["stress", "--voices", "64", "--seconds", "0.25", "--update-only", "--json"], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(json["realVoices"] as? Int, 64)
        XCTAssertNil(json["baseline"], "no baseline in update-only mode")
        let perVoice = try XCTUnwrap(json["updateNanosPerVoice"] as? [String: Double])
        XCTAssertGreaterThan(perVoice["p50"] ?? 0, 0)
    }
}
