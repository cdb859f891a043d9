@testable import Earshot
import EarshotMeasure
import XCTest

/// Snapshot and ducking calls: bad input gets typed errors, a shut-down engine neither traps nor
/// changes anything, and the clip level envelope stays small and reads what it measured.
final class MixAPITests: XCTestCase {
    private func invalid(_ body: () throws -> Void, _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), message, file: file, line: line) { error in
            guard case .invalidArgument = error as? EarshotError else {
                return XCTFail("\(message): \(error) is not invalidArgument", file: file, line: line)
            }
        }
    }

    func testBadSnapshotsAreRefusedWithTypedErrors() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        invalid({ try e.begin(Snapshot("x", busGains: [Bus("nowhere"): -6])) }, "unknown bus (gain)")
        invalid({ try e.begin(Snapshot("x", busFilters: [Bus("nowhere"): .open])) }, "unknown bus (filter)")
        invalid({ try e.begin(Snapshot("x", busGains: [.sfx: 25])) }, "above +24 dB")
        invalid({ try e.begin(Snapshot("x", busGains: [.sfx: .infinity])) }, "+∞")
        invalid({ try e.begin(Snapshot("x", busGains: [.sfx: .nan])) }, "NaN gain")
        invalid({ try e.begin(Snapshot("x", busFilters: [.sfx: LowPassFilter(gain: 2, gainHF: 1)])) }, "filter gain 2")
        invalid({ try e.begin(Snapshot("x", busFilters: [.sfx: LowPassFilter(gain: 1, gainHF: .nan)])) }, "NaN filter")
        invalid({ try e.begin(Snapshot("")) }, "empty name")
        invalid({ try e.begin(Snapshot("x"), fade: -1) }, "negative fade")
        invalid({ try e.begin(Snapshot("x"), fade: .nan) }, "NaN fade")
        invalid({ try e.begin(Snapshot("x"), fade: .infinity) }, "infinite fade")
        invalid({ try e.begin(Snapshot("x"), intensity: 1.5) }, "intensity above 1")
        invalid({ try e.begin(Snapshot("x"), intensity: -0.1) }, "negative intensity")
        invalid({ try e.begin(Snapshot("x"), intensity: .nan) }, "NaN intensity")
        XCTAssertEqual(e.activeSnapshots, [], "nothing refused was begun")
        XCTAssertEqual(try e.snapshotGain(for: .sfx), 1)

        try e.begin(Snapshot("ok", busGains: [.sfx: -.infinity, .music: 24]))
        invalid({ try e.setIntensity(2, of: Snapshot("ok")) }, "intensity 2")
        invalid({ try e.setIntensity(0.5, of: Snapshot("ok"), fade: -1) }, "negative fade")
        try e.setIntensity(0.5, of: Snapshot("not active"))   // nothing
        e.end(Snapshot("not active"))                          // nothing
        e.end(Snapshot("ok"), fade: .nan)                      // at once
        XCTAssertEqual(e.activeSnapshots, [])
        XCTAssertEqual(try e.snapshotGain(for: .sfx), 1)
        invalid({ _ = try e.snapshotGain(for: Bus("nowhere")) }, "unknown bus")
    }

    func testBadDuckingsAreRefusedWithTypedErrors() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        invalid({ try e.setDucking(Ducking(), of: Bus("nowhere"), by: .voice) }, "unknown target")
        invalid({ try e.setDucking(Ducking(), of: .music, by: Bus("nowhere")) }, "unknown source")
        invalid({ try e.setDucking(Ducking(), of: .music, by: .music) }, "a bus ducking itself")
        invalid({ try e.setDucking(nil, of: .music, by: .music) }, "a bus ducking itself (removal)")
        invalid({ try e.setDucking(Ducking(level: 6), of: .music, by: .voice) }, "positive level")
        invalid({ try e.setDucking(Ducking(level: -.infinity), of: .music, by: .voice) }, "−∞ level")
        invalid({ try e.setDucking(Ducking(level: .nan), of: .music, by: .voice) }, "NaN level")
        invalid({ try e.setDucking(Ducking(attack: 11), of: .music, by: .voice) }, "attack above 10 s")
        invalid({ try e.setDucking(Ducking(release: -1), of: .music, by: .voice) }, "negative release")
        invalid({ try e.setDucking(Ducking(threshold: -130), of: .music, by: .voice) }, "threshold below −120")
        invalid({ try e.setDucking(Ducking(threshold: 1), of: .music, by: .voice) }, "threshold above 0")
        invalid({ try e.setDucking(Ducking(hold: .nan), of: .music, by: .voice) }, "NaN hold")
        XCTAssertNil(try e.ducking(of: .music, by: .voice))
        try e.setDucking(nil, of: .music, by: .voice)   // removing none is fine
        let added = Bus("dialogue2")
        try e.addBus(added)
        try e.setDucking(Ducking(), of: .music, by: added)
        XCTAssertEqual(try e.ducking(of: .music, by: added), Ducking())
        invalid({ _ = try e.sidechainGain(for: Bus("nowhere")) }, "unknown bus")
        invalid({ _ = try e.level(of: Bus("nowhere")) }, "unknown bus")
        invalid({ _ = try e.ducking(of: Bus("nowhere"), by: .voice) }, "unknown bus")
        XCTAssertEqual(try e.level(of: .voice), -.infinity, "nothing plays")
    }

    func testCallsAfterShutdownDoNothingOrThrowEngineShutDown() throws {
        let e = try TestSignals.loopbackEngine()
        let s = Snapshot("s", busGains: [.sfx: -6])
        try e.begin(s, fade: 1)
        try e.setDucking(Ducking(), of: .music, by: .voice)
        e.shutdown()
        XCTAssertThrowsError(try e.begin(s)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try e.setIntensity(0.5, of: s)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try e.setDucking(Ducking(), of: .music, by: .voice)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try e.setDucking(nil, of: .music, by: .voice)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        e.end(s, fade: 1)
        XCTAssertEqual(e.activeSnapshots, [])
        XCTAssertNil(try e.ducking(of: .music, by: .voice))
        XCTAssertEqual(try e.level(of: .voice), -.infinity)
        _ = try e.snapshotGain(for: .sfx)
        _ = try e.sidechainGain(for: .music)
        e.update()
    }

    /// Paused and during an interruption, every call is safe and the state follows.
    func testCallsWhilePausedAndInterrupted() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        try e.pauseAll()
        e.session.beginInterruption()
        try e.begin(Snapshot("s", busGains: [.sfx: -6]))
        try e.setDucking(Ducking(), of: .music, by: .voice)
        _ = try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertEqual(Level.dB(Double(try e.snapshotGain(for: .sfx))), -6, accuracy: 0.01, "a fade of 0 applies even while held")
        e.session.resume()
        e.resumeAll()
        e.end(Snapshot("s"))
        XCTAssertEqual(try e.snapshotGain(for: .sfx), 1)
    }

    func testLevelEnvelopeIsSmallAndReadsTheClip() throws {
        for (rate, channels, float) in [(48_000, 1, false), (44_100, 2, false), (8_000, 1, false), (1_000, 1, false), (48_000, 2, true)] {
            let n = rate * 2
            let amplitude = 0.5
            let samples = (0..<(n * channels)).map { i in amplitude * sin(2 * .pi * 100 * Double(i / channels) / Double(rate)) }
            let pcm = float
                ? PCMAudio(sampleRate: rate, channels: channels, samples: .float32(samples.map { Float($0) }))
                : PCMAudio(sampleRate: rate, channels: channels, samples: .int16(samples.map { Int16(($0 * 32767).rounded()) }))
            let levels = ClipLevels.measure(pcm)
            let share = Double(levels.byteCount) / Double(pcm.byteCount)
            XCTAssertLessThan(share, 0.01, "\(rate) Hz × \(channels): the envelope is \(share * 100) % of the clip")
            XCTAssertEqual(levels.blockFrames, max(rate / 100, 800 / (channels * pcm.samples.bytesPerSample) + 1))
            // The middle block of a 100 Hz sine holds a whole number of cycles for most rates: RMS A/√2.
            let mid = Double(n / 2)
            XCTAssertEqual(Double(levels.power(at: mid)).squareRoot(), amplitude / 2.0.squareRoot(), accuracy: 0.02, "\(rate) Hz × \(channels)")
            XCTAssertEqual(levels.power(at: Double(n)), 0, "past the end")
        }
        XCTAssertEqual(ClipLevels.measure(PCMAudio(sampleRate: 48_000, channels: 1, samples: .float32([.nan, 1]))).power(at: 0), 0,
                       "a NaN sample does not poison the envelope")
    }

    /// A voice whose pitch changes keeps a true playhead estimate (the detector reads the right block).
    func testPitchChangeKeepsThePlayheadEstimate() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        // 0.5 s of tone, then 1.5 s of silence.
        let tone = TestSignals.sine(frequency: 1_000, amplitude: 0.5, seconds: 0.5)
        guard case .int16(let s) = tone.samples else { return XCTFail("16-bit") }
        let clip = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(s + [Int16](repeating: 0, count: 72_000))), name: "t")
        let v = try e.play(clip, options: .init(pan: 0, bus: .voice))
        _ = try TestSignals.renderGameFrames(e, seconds: 0.25)
        XCTAssertGreaterThan(try e.level(of: .voice), -10, "in the tone")
        e.setPitch(0.25, of: v)                     // 0.25 s left of the tone now lasts 1 s
        _ = try TestSignals.renderGameFrames(e, seconds: 0.5)
        XCTAssertGreaterThan(try e.level(of: .voice), -10, "still in the tone at a quarter of the speed")
        _ = try TestSignals.renderGameFrames(e, seconds: 0.6)
        XCTAssertEqual(try e.level(of: .voice), -.infinity, "past it")
    }
}
