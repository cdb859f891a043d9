@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// What the handle and part level tests share: whole-cycle tones, the left channel's tone level,
/// a play at a gain, a stop that leaves the engine empty.
protocol HandleLevelChecking {}

extension HandleLevelChecking {
    func left(_ x: [Float]) -> [Float] { stride(from: 0, to: x.count, by: 2).map { x[$0] } }

    /// A mono tone of `frames` at `hz` (whole cycles: it loops without a step).
    func tone(_ e: AudioEngine, _ hz: Double, _ name: String, frames: Int = 48_000) throws -> Clip {
        let samples = (0..<frames).map { Int16((0.3 * sin(2 * .pi * hz * Double($0) / 48_000) * 32767).rounded()) }
        return try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16(samples)), name: name)
    }

    /// The level of the tone at `hz` in `x[range]`, in dB.
    func dB(_ x: [Float], _ range: Range<Int>, _ hz: Double) -> Double {
        Level.dB(ToneMeasure.amplitude(x[range], hz))
    }

    func play(_ e: AudioEngine, _ s: Sound, gain: Float) throws -> Voice {
        var o = SoundPlayOptions()
        o.gain = gain
        return try e.play(s, options: o)
    }

    func drain(_ e: AudioEngine, _ v: Voice, file: StaticString = #filePath, line: UInt = #line) throws {
        v.stop()
        try TestSignals.renderFrames(e, seconds: 0.1)
        XCTAssertEqual(e.activeVoiceCount, 0, file: file, line: line)
    }
}
