@testable import Earshot
import COpenAL
import EarshotMeasure
import XCTest

/// The voice pool on a loopback engine: who keeps a source, what a steal sounds like, where a
/// virtual voice comes back.
final class VoicePoolTests: XCTestCase {
    func testStealOrderPriorityThenAudibilityThenAge() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 2)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")

        // Priority: the least important (highest number) loses.
        let important = try e.play(tone, options: .init(loop: true, priority: 10))
        let unimportant = try e.play(tone, options: .init(loop: true, priority: 200))
        let middle = try e.play(tone, options: .init(loop: true, priority: 100))
        XCTAssertEqual(middle.status, .virtual, "no free source: it waits for the next update")
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual(important.status, .real)
        XCTAssertEqual(middle.status, .real)
        XCTAssertEqual(unimportant.status, .virtual)
        e.stopAllVoices()
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual(e.activeVoiceCount, 0)

        // Audibility, at equal priority: the quietest loses.
        let loud = try e.play(tone, options: .init(gain: 1, loop: true))
        let quiet = try e.play(tone, options: .init(gain: 0.2, loop: true))
        let medium = try e.play(tone, options: .init(gain: 0.5, loop: true))
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual(loud.status, .real)
        XCTAssertEqual(medium.status, .real)
        XCTAssertEqual(quiet.status, .virtual)
        e.stopAllVoices()
        try TestSignals.renderGameFrames(e, seconds: 0.05)

        // Distance counts in audibility: a far voice loses to a near one.
        let near = try e.play(tone, options: .init(loop: true, position: Vector3(0, 0, -1)))
        let far = try e.play(tone, options: .init(loop: true, position: Vector3(0, 0, -40)))
        let mid = try e.play(tone, options: .init(loop: true, position: Vector3(0, 0, -4)))
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual([near.status, mid.status, far.status], [.real, .real, .virtual])
        e.stopAllVoices()
        try TestSignals.renderGameFrames(e, seconds: 0.05)

        // Age, at equal priority and audibility: the oldest loses, the newer win.
        let oldest = try e.play(tone, options: .init(loop: true))
        let older = try e.play(tone, options: .init(loop: true))
        let newest = try e.play(tone, options: .init(loop: true))
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual([oldest.status, older.status, newest.status], [.virtual, .real, .real])
        XCTAssertEqual(e.stats.steals, 4)
    }

    func testMusicSourcesAreNeverTaken() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        // A source reserved for music, playing the tone as a music track would.
        let music = try XCTUnwrap(e.musicSystem.withMusicLock { _ in e.musicSystem.freeSources.popLast() })
        XCTAssertFalse(e.core.voiceSources.contains(music))
        let buffer = bufferName(of: tone, in: e)
        XCTAssertNotEqual(buffer, 0)
        e.context.withCurrent {
            alSourcei(music, AL_BUFFER, ALint(bitPattern: buffer))
            alSourcei(music, AL_LOOPING, AL_TRUE)
            alSourcePlay(music)
        }
        for i in 0..<200 {
            _ = try e.play(tone, options: .init(loop: true, priority: 0, position: Vector3(Float(i % 9) - 4, 0, -2)))
        }
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        let state = e.context.withCurrent { () -> ALint in
            var s: ALint = 0
            alGetSourcei(music, AL_SOURCE_STATE, &s)
            return s
        }
        XCTAssertEqual(state, AL_PLAYING)
        XCTAssertEqual(e.stats.realVoices, 4)
    }

    private func bufferName(of clip: Clip, in e: AudioEngine) -> ALuint {
        // Play it once to learn its buffer through the pool (test-only peek).
        let v = try? e.play(clip, options: .init(gain: 0))
        defer { v?.stop() }
        return v.flatMap { e.read($0) { $0.buffer } } ?? 0
    }

    func testStealDoesNotClick() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 1)
        defer { e.shutdown() }
        // 443 whole cycles per second (a seamless loop); the steal lands mid-cycle (0.2 s = 88.6 cycles).
        let tone = try e.loadClip(TestSignals.sine(frequency: 443, amplitude: 0.8, seconds: 1), name: "tone")
        let silence = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16([Int16](repeating: 0, count: 4_800))), name: "silence")
        _ = try e.play(tone, options: .init(loop: true))
        let before = try TestSignals.renderGameFrames(e, seconds: 0.2)
        let toneStep = maxStep(before, channel: 0, from: 4_800)
        XCTAssertGreaterThan(toneStep, 0.01)
        _ = try e.play(silence, options: .init(loop: true, priority: 0))
        let around = try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertGreaterThan(abs(before[before.count - 2]), 0.1, "the cut must not fall on a zero crossing")
        XCTAssertLessThanOrEqual(maxStep(before + around, channel: 0, from: 4_800), toneStep * 1.5, "a step at the cut would be a click")
        // And the tone really is gone: the silent voice owns the only source.
        let tail = Array(around.suffix(2_400))
        XCTAssertLessThan(Level.rms(tail, channels: 2)[0], 1e-4)
        XCTAssertEqual(e.stats.steals, 1)
    }

    private func maxStep(_ samples: [Float], channel: Int, from: Int) -> Float {
        var m: Float = 0
        let frames = samples.count / 2
        for f in max(1, from)..<frames {
            m = max(m, abs(samples[f * 2 + channel] - samples[(f - 1) * 2 + channel]))
        }
        return m
    }

    func testVirtualVoiceResumesAtTheEngineClockOffset() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 1)
        defer { e.shutdown() }
        // A 1 s ramp from -0.9 to +0.9: each sample tells its own offset.
        let n = 48_000
        let ramp = (0..<n).map { Int16((-0.9 + 1.8 * Double($0) / Double(n)) * 32767) }
        let rampClip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(ramp)), name: "ramp")
        let silence = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16([Int16](repeating: 0, count: 480))), name: "silence")
        let voice = try e.play(rampClip, options: .init(loop: true, pan: 1))   // hard right: gain 1 on R
        var out = try TestSignals.renderGameFrames(e, seconds: 0.5)
        let thief = try e.play(silence, options: .init(loop: true, priority: 0))
        out += try TestSignals.renderGameFrames(e, seconds: 0.3)
        XCTAssertEqual(voice.status, .virtual)
        thief.stop()
        out += try TestSignals.renderGameFrames(e, seconds: 0.4)
        XCTAssertEqual(voice.status, .real)
        XCTAssertEqual(e.stats.resumes, 1)
        // The steal and the resume are ramps, not steps: a resumed source must not start at full
        // gain mid-signal (OpenAL does not ramp a source's first mix).
        var largest: Float = 0
        for f in 1..<(out.count / 2) where f % n != 0 {   // the ramp's own loop point is a step
            largest = max(largest, abs(out[f * 2 + 1] - out[(f - 1) * 2 + 1]))
        }
        XCTAssertLessThan(largest, 0.02, "a click at the steal or the resume")
        // Before the steal and well after the resume's fade-in, the right channel is the ramp at
        // exactly the engine clock: sample f is ramp[f mod n].
        for f in Array(stride(from: 1_000, to: 23_000, by: 997)) + Array(stride(from: 40_000 + 24_000, to: 57_000, by: 991)) {
            let expected = Float(ramp[f % n]) / 32768
            XCTAssertEqual(out[f * 2 + 1], expected, accuracy: 2e-4, "frame \(f)")
        }
    }

    func testTenThousandPlaysOnTwoHundredFiftySixSources() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 256)
        defer { e.shutdown() }
        XCTAssertEqual(e.stats.voiceSources, 256)
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.2), name: "tone")
        var statuses: [VoiceStatus: Int] = [:]
        for i in 0..<10_000 {
            let angle = Float(i) * 0.37
            let v = try e.play(tone, options: .init(loop: true, position: Vector3(5 * cosf(angle), 0, 5 * sinf(angle))))
            statuses[v.status, default: 0] += 1
        }
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        let stats = e.stats
        XCTAssertEqual(stats.realVoices, 256)
        XCTAssertEqual(stats.virtualVoices, 4096)
        XCTAssertEqual(stats.refusals + stats.evictions, 10_000 - 256 - 4096)
        XCTAssertEqual(statuses[.real], 256)
        XCTAssertEqual(e.context.withCurrent { alGetError() }, AL_NO_ERROR)
    }

    /// The pool ranks differently after a crowded update than after a calm one; either way the
    /// outcome is the same: the best voices hold the sources, and every source is used when there
    /// are voices for it.
    func testCrowdedAndCalmUpdatesAlternate() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.2), name: "tone")
        // Crowded: 10 voices, priorities 10…100; the four most important (10…40) are real.
        let voices = try (1...10).map { try e.play(tone, options: .init(loop: true, priority: UInt8($0 * 10))) }
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual(voices.map(\.status), Array(repeating: .real, count: 4) + Array(repeating: .virtual, count: 6))
        // Calm: stop all but three unimportant ones (80, 90, 100): they all get sources.
        for v in voices[0..<7] { v.stop() }
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual(voices[7...].map(\.status), [.real, .real, .real])
        XCTAssertEqual(e.stats.realVoices, 3)
        // Calm again with a fourth: it takes the free source at once.
        let fourth = try e.play(tone, options: .init(loop: true, priority: 200))
        try TestSignals.renderGameFrames(e, seconds: 0.02)
        XCTAssertEqual(fourth.status, .real)
        // Crowded again by two important voices: the two least important (200, then 100) fade out.
        let vip = try (0..<2).map { _ in try e.play(tone, options: .init(loop: true, priority: 1)) }
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertEqual(vip.map(\.status), [.real, .real])
        XCTAssertEqual([voices[7].status, voices[8].status, voices[9].status, fourth.status], [.real, .real, .virtual, .virtual])
        XCTAssertEqual(e.stats.realVoices, 4)
        XCTAssertEqual(e.context.withCurrent { alGetError() }, AL_NO_ERROR)
    }

    func testStaleHandlesAndMisuse() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.05), name: "tone")
        let v = try e.play(tone)
        try TestSignals.renderGameFrames(e, seconds: 0.1)                 // the one-shot ends
        XCTAssertFalse(v.isPlaying)
        XCTAssertEqual(v.status, .stopped)
        v.gain = 0.5; v.position = Vector3(1, 0, 0); v.pitch = 2; v.stop()   // all no-ops
        XCTAssertNil(v.gain)
        let reuse = try e.play(tone, options: .init(loop: true))   // may take the same slot
        XCTAssertTrue(reuse.isPlaying)
        XCTAssertFalse(v.isPlaying, "the stale handle must not see the new voice")
        v.stop()
        XCTAssertTrue(reuse.isPlaying)

        XCTAssertThrowsError(try e.play(tone, options: .init(gain: .nan))) { XCTAssertEqual(($0 as? EarshotError).map { if case .invalidArgument = $0 { true } else { false } }, true) }
        XCTAssertThrowsError(try e.play(tone, options: .init(gain: -1)))
        XCTAssertThrowsError(try e.play(tone, options: .init(pitch: -1)))
        XCTAssertThrowsError(try e.play(tone, options: .init(position: Vector3(.infinity, 0, 0))))
        XCTAssertThrowsError(try e.play(tone, options: .init(bus: Bus("nope"))))
        reuse.position = Vector3(.nan, 0, 0)     // ignored, never reaches OpenAL
        reuse.gain = .infinity
        XCTAssertEqual(reuse.gain, 1)
        e.unload(tone)
        XCTAssertThrowsError(try e.play(tone)) { XCTAssertEqual($0 as? EarshotError, .clipUnloaded) }
        try TestSignals.renderGameFrames(e, seconds: 0.05)
        XCTAssertFalse(reuse.isPlaying, "unloading stops the clip's voices")
        XCTAssertEqual(e.stats.clips, 0)
        XCTAssertEqual(e.context.withCurrent { alGetError() }, AL_NO_ERROR)
    }

    func testPanIsHardLeftHardRightAndCentred() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 4)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(), name: "tone")
        func level(_ pan: Float) throws -> [Double] {
            let v = try e.play(tone, options: .init(loop: true, pan: pan))
            try TestSignals.renderGameFrames(e, seconds: 0.05)
            let rms = Level.rms(try TestSignals.renderGameFrames(e, seconds: 0.1), channels: 2)
            v.stop()
            try TestSignals.renderGameFrames(e, seconds: 0.05)
            return rms
        }
        let left = try level(-1), right = try level(1), centre = try level(0)
        XCTAssertLessThan(left[1], 1e-4)
        XCTAssertGreaterThan(left[0], 0.3)
        XCTAssertLessThan(right[0], 1e-4)
        XCTAssertGreaterThan(right[1], 0.3)
        XCTAssertEqual(Level.dB(centre[0]), Level.dB(centre[1]), accuracy: 0.1)
    }

    func testAReusedSourceTakesEachVoicesOwnPlacement() throws {
        // One source, voices of different placements one after the other: the per-source cache
        // of sent properties must never leave a previous voice's position or mode behind.
        let e = try TestSignals.loopbackEngine(realVoices: 1)
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(), name: "tone")
        func sides(_ options: PlayOptions, move: Vector3? = nil) throws -> (left: Double, right: Double) {
            let v = try e.play(tone, options: options)
            try TestSignals.renderGameFrames(e, seconds: 0.05)
            if let move { v.position = move; try TestSignals.renderGameFrames(e, seconds: 0.05) }
            let rms = Level.rms(try TestSignals.renderGameFrames(e, seconds: 0.1), channels: 2)
            v.stop()
            try TestSignals.renderGameFrames(e, seconds: 0.05)
            return (Level.dB(rms[0]), Level.dB(rms[1]))
        }
        let right = try sides(.init(loop: true, position: Vector3(3, 0, 0)))
        XCTAssertGreaterThan(right.right - right.left, 20)
        let panLeft = try sides(.init(loop: true, pan: -1))
        XCTAssertGreaterThan(panLeft.left - panLeft.right, 20)
        let movedLeft = try sides(.init(loop: true, position: Vector3(3, 0, 0)), move: Vector3(-3, 0, 0))
        XCTAssertGreaterThan(movedLeft.left - movedLeft.right, 20, "moved from right to left")
        let rightAgain = try sides(.init(loop: true, position: Vector3(3, 0, 0)))
        XCTAssertGreaterThan(rightAgain.right - rightAgain.left, 20, "the source forgot the previous voice's move")
    }
}
