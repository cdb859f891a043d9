@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Timeline sounds measured on the loopback output (issue 41): each part's onset at its delay
/// to the frame whatever the render size, a sustain loop held until `release()` and its tail
/// starting on the loop's last frame with no gap, one handle for the whole.
final class TimelineSoundTests: XCTestCase {
    /// A mono clip of `frames` samples of `value(n)` (−1…1), 48 kHz.
    private func clip(_ e: AudioEngine, _ name: String, frames: Int, _ value: (Int) -> Double) throws -> Clip {
        let samples = (0..<frames).map { Int16((value($0) * 32767).rounded()) }
        return try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: name)
    }

    /// A block of `frames` frames at `level`.
    private func block(_ e: AudioEngine, _ name: String, frames: Int = 240, level: Double = 0.5) throws -> Clip {
        try clip(e, name, frames: frames) { _ in level }
    }

    /// The left channel of interleaved stereo.
    private func left(_ x: [Float]) -> [Float] { stride(from: 0, to: x.count, by: 2).map { x[$0] } }

    /// Frames where the signal rises from silence (each onset after at least `gap` silent frames).
    private func onsets(_ x: [Float], gap: Int = 200) -> [Int] {
        var out: [Int] = []
        var silent = gap
        for (n, v) in x.enumerated() {
            if abs(v) > 0.01 {
                if silent >= gap { out.append(n) }
                silent = 0
            } else {
                silent += 1
            }
        }
        return out
    }

    /// Renders `frames` in blocks of `size` with an update before each.
    private func render(_ e: AudioEngine, frames: Int, size: Int) throws -> [Float] {
        var out: [Float] = []
        var left = frames
        while left > 0 {
            e.update()
            let n = min(size, left)
            out += try e.render(frames: n)
            left -= n
        }
        return out
    }

    /// Three parts at 0, 12.5 ms and 300 ms — each its own block — start on their frames
    /// (600 and 14,400 frames after the first) with renders of 333, 800 and 4,096 frames.
    func testThreePartOnsetsAtTheirDelaysToTheFrame() throws {
        for size in [333, 800, 4096] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let parts = try (0..<3).map { try block(e, "part\($0)") }
            let shot = try e.makeSound(SoundDefinition(layers: [
                SoundLayer(clip: parts[0]),
                SoundLayer(clip: parts[1], timing: .init(delay: 0.0125)),
                SoundLayer(clip: parts[2], timing: .init(delay: 0.3)),
            ], loop: false))
            XCTAssertTrue(shot.definition.isTimeline)
            var out = try render(e, frames: 1_001, size: size)
            let at = out.count / 2
            let voice = try e.play(shot)
            out += try render(e, frames: 24_000, size: size)
            XCTAssertEqual(onsets(left(out)), [at, at + 600, at + 14_400], "render size \(size)")
            XCTAssertFalse(voice.isPlaying, "every part ended")
        }
    }

    /// One handle for the whole: the first part is over long before the last starts, and the
    /// handle plays until that one ends; `finished` returns then; a stop reaches every part,
    /// pending ones too.
    func testOneHandleForTheWhole() async throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try block(e, "a"), b = try block(e, "b", frames: 4_800)
        let door = try e.makeSound(SoundDefinition(layers: [
            SoundLayer(clip: a), SoundLayer(clip: b, timing: .init(delay: 0.25, pitchVariation: 100)),
        ], loop: false))
        let voice = try e.play(door)
        try render(e, frames: 4_800, size: 800)   // 0.1 s: the first part is over, the second pending
        XCTAssertTrue(voice.isPlaying)
        XCTAssertEqual(voice.status, .pending)
        let waiter = Task { await voice.finished }
        try render(e, frames: 9_600, size: 800)   // 0.3 s: the second plays
        XCTAssertEqual(voice.status, .real)
        try render(e, frames: 9_600, size: 800)
        XCTAssertFalse(voice.isPlaying)
        let reason = await waiter.value
        XCTAssertEqual(reason, .finished)
        let again = try e.play(door)
        try render(e, frames: 800, size: 800)
        again.stop()
        XCTAssertEqual(again.status, .stopped)
        let out = try render(e, frames: 19_200, size: 800)
        XCTAssertLessThan(Level.rms(left(out), 2_400..<19_200), 1e-6, "the pending part never starts")
        XCTAssertEqual(e.activeVoiceCount, 0)
    }

    /// Start → sustain loop → tail: the loop holds until `release()`; the tail starts on the
    /// frame the loop's pass ends (its last frame tells: 4,800 frames after its first), and the
    /// junction has no step above the waveform's own.
    func testSustainHoldsUntilReleaseThenTheTailStartsAtTheLoopsEnd() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let wave: (Int) -> Double = { 0.5 * cos(2 * .pi * Double($0) / 100) }   // 480 Hz, whole cycles
        let start = try clip(e, "start", frames: 4_800, wave)
        let loop = try clip(e, "loop", frames: 2_400, wave)
        let tail = try clip(e, "tail", frames: 4_800, wave)
        let motor = try e.makeSound(SoundDefinition(layers: [
            SoundLayer(clip: start),
            SoundLayer(clip: loop, timing: .init(delay: 0.1, sustain: true)),
            SoundLayer(clip: tail, timing: .init(tail: true)),
        ], loop: false))
        var out = try render(e, frames: 800, size: 800)
        let at = out.count / 2
        let voice = try e.play(motor)
        out += try render(e, frames: 48_000 + 333, size: 777)   // 1 s and a bit: held
        let released = out.count / 2
        voice.release()
        out += try render(e, frames: 24_000, size: 777)
        let x = left(out)
        // Held: the level of the whole second before the release is the waveform's.
        let held = Level.rms(x, (at + 4_800)..<released)
        XCTAssertEqual(Level.dB(held / Level.rms(x, at..<(at + 4_800))), 0, accuracy: 0.1, "the loop holds")
        // The tail's last frame, and so its first.
        guard let last = x.lastIndex(where: { abs($0) > 0.01 }) else { return XCTFail("silent") }
        let tailStart = last + 1 - 4_800
        let loopStart = at + 4_800
        let passes = (released - loopStart) / 2_400 + 1
        XCTAssertEqual(tailStart, loopStart + passes * 2_400, "the tail starts on the frame the loop's pass ends")
        // No gap: every step across the junction is within the waveform's own.
        var own: Float = 0
        for n in (at + 1)..<(at + 4_800) { own = max(own, abs(x[n] - x[n - 1])) }
        var junction: Float = 0
        for n in (tailStart - 200)..<(tailStart + 200) { junction = max(junction, abs(x[n] - x[n - 1])) }
        XCTAssertLessThanOrEqual(junction, own * 1.001, "no gap or click where the tail takes over")
        XCTAssertGreaterThan(Level.rms(x, (tailStart - 100)..<(tailStart + 100)), Double(own))
        XCTAssertFalse(voice.isPlaying, "the whole ended with its tail")
    }

    /// The sound's limit counts the whole: a second play past `count: 1` steals the first —
    /// every part of it — and `refuse` refuses; each layer picks among its own clips; a
    /// sustain point on a one-shot layer and a tail without a sustain are refused.
    func testLimitStealsTheWholeAndTheDefinitionIsChecked() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try block(e, "a", frames: 48_000), b = try block(e, "b", frames: 48_000)
        var d = SoundDefinition(layers: [
            SoundLayer(clip: a), SoundLayer(clip: b, timing: .init(delay: 0.05, alternatives: [a], selection: .sequence)),
        ], loop: false)
        d.limit = .init(count: 1, steal: .oldest)
        let s = try e.makeSound(d)
        let first = try e.play(s)
        try render(e, frames: 4_800, size: 800)
        XCTAssertEqual(e.activeVoiceCount, 2)
        let second = try e.play(s)
        try render(e, frames: 4_800, size: 800)
        XCTAssertFalse(first.isPlaying)
        XCTAssertTrue(second.isPlaying)
        XCTAssertEqual(e.activeVoiceCount, 2, "the first play's two parts were stolen with it")
        d.limit = .init(count: 1, steal: .refuse)
        let r = try e.makeSound(d)
        _ = try e.play(r)
        XCTAssertEqual(try e.play(r).status, .refused)
        let oneShotSustain = SoundDefinition(layers: [SoundLayer(clip: a), SoundLayer(clip: b, timing: .init(loop: false, sustain: true))])
        XCTAssertThrowsError(try e.makeSound(oneShotSustain)) { XCTAssertTrue("\($0)".contains("one-shot"), "\($0)") }
        let tailOnly = SoundDefinition(layers: [SoundLayer(clip: a), SoundLayer(clip: b, timing: .init(tail: true))])
        XCTAssertThrowsError(try e.makeSound(tailOnly)) { XCTAssertTrue("\($0)".contains("sustain"), "\($0)") }
    }

    /// The monitor names each part after the timeline sound and says which layer it is; a
    /// switch's voice is named after the case that played.
    func testTheMonitorShowsTheSoundAndLayerOfEachPartAndTheCase() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try block(e, "a.wav", frames: 48_000), b = try block(e, "b.wav", frames: 48_000)
        var d = SoundDefinition(layers: [SoundLayer(clip: a), SoundLayer(clip: b, timing: .init(delay: 0.01))], loop: false)
        d.name = "door"
        let door = try e.makeSound(d)
        try e.defineParameter(ParameterDefinition(name: "surface", labels: ["gravel", "wood"]))
        let wood = try e.makeSound(SoundDefinition(clips: [a], name: "stepWood"))
        let step = try e.makeSound(SoundDefinition(switch: SoundSwitch(parameter: "surface", cases: ["wood": wood]), name: "step"))
        try e.setParameter("surface", "wood")
        try e.play(door)
        try e.play(step)
        try render(e, frames: 1_600, size: 800)
        var capture = MonitorCapture()
        e.withAL { capture.fill(from: e.core) }
        let parts = capture.voices.filter { capture.sounds[$0.soundKey]?.name == "door" }.map(\.layer).sorted()
        XCTAssertEqual(parts, [0, 1], "both parts, under the sound's name, with their layer")
        XCTAssertEqual(capture.voices.filter { capture.sounds[$0.soundKey]?.name == "stepWood" }.count, 1, "the case played")
    }
}
