@testable import Earshot
import XCTest

/// The live estimate and the balance of a 2D stereo voice (a channel pair, StereoBalanceTests):
/// it reads what the balance leaves of the voice, as the output meter does.
extension BusLoudnessTests {
    /// The reference tone (−23 dBFS in both channels) at pan 0 and at pan +1 (its left channel
    /// silent): the bus estimate reads the law's −3.01 dB (half the power) to 0.3 dB, and so
    /// does libebur128 on the output.
    func testABalancedStereoVoiceReadsWhatTheBalanceLeaves() throws {
        func readings(pan: Float) throws -> (estimate: Double, measured: Double) {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            try e.setLoudnessMetering(true)
            let clip = try e.loadClip(Self.tone(decibels: -23, seconds: 0.5), name: "tone")
            _ = try e.play(clip, options: PlayOptions(loop: true, pan: pan, bus: .sfx))
            _ = try TestSignals.renderGameFrames(e, seconds: 0.5)
            XCTAssertEqual(e.stats.pairedVoices, 1, "a channel pair")
            return (try e.loudness(of: .sfx).momentary, try e.masterLoudness().momentary)
        }
        let centre = try readings(pan: 0), right = try readings(pan: 1)
        print("BusLoudnessTests: pan 0 \(centre), pan +1 \(right) LUFS")
        XCTAssertEqual(centre.estimate, -23, accuracy: 0.5)
        XCTAssertEqual(right.estimate - centre.estimate, -3.01, accuracy: 0.3, "the estimate follows the balance")
        XCTAssertEqual(right.measured - centre.measured, -3.01, accuracy: 0.3, "as the output does")
    }
}
