@testable import Earshot
import XCTest

/// The live master meter of a loopback engine (issue 40): what it reads equals a meter fed the
/// same rendered samples; off it reads nothing; after shutdown it refuses.
final class OutputLoudnessMeterTests: XCTestCase {
    func testLiveMeterReadsTheRenderedOutput() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        XCTAssertNil(e.outputLoudness(), "off by default")
        try e.setLoudnessMetering(true)
        XCTAssertTrue(e.isLoudnessMeteringEnabled)
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.5, seconds: 2), name: "tone")
        _ = try e.play(clip)
        let out = try TestSignals.renderGameFrames(e, seconds: 1.2)
        let live = try XCTUnwrap(e.outputLoudness())
        let reference = try LoudnessMeter(channels: 2, sampleRate: 48_000, truePeak: false)
        try reference.add(out)
        XCTAssertEqual(live.momentary ?? 0, reference.momentary ?? 1, accuracy: 0.01)
        XCTAssertEqual(live.maxMomentary ?? 0, reference.maxMomentary ?? 1, accuracy: 0.01)
        // The bounded (histogram) integrated loudness is within its 0.05 LU bins.
        XCTAssertEqual(live.integrated ?? 0, reference.integrated ?? 1, accuracy: 0.06)
        XCTAssertEqual(live.seconds, 1.2, accuracy: 0.001)
        XCTAssertGreaterThan(live.momentary ?? -99, -20, "a −6 dBFS tone is loud")
        try e.setLoudnessMetering(false)
        XCTAssertNil(e.outputLoudness())
        e.shutdown()
        XCTAssertThrowsError(try e.setLoudnessMetering(true)) { error in
            XCTAssertEqual(error as? EarshotError, .engineShutDown)
        }
    }
}
