@testable import Earshot
import COpenAL
import EarshotMeasure
import XCTest

/// `engine.device` and `engine.context` are the engine's: a game that closes or destroys them
/// cannot pull them from under it (issue 18). A device and context used alone still close and
/// destroy (EFXRenderTests and the raw-OpenAL baseline of `earshot stress` do).
final class EngineOwnershipTests: XCTestCase {
    func testClosingTheEnginesDeviceOrContextDoesNothingAndTheEnginePlaysOn() throws {
        let e = try TestSignals.loopbackEngine()
        let clip = try e.loadClip(TestSignals.sine(frequency: 1_000, seconds: 1), name: "tone")
        _ = try e.play(clip, options: .init(loop: true))
        e.device.close()
        e.context.destroy()
        let out = try TestSignals.renderFrames(e, seconds: 0.1)
        XCTAssertGreaterThan(Level.rms(out, channels: 2)[0], 0.1, "the engine still renders")
        XCTAssertTrue(e.device.isConnected)
        XCTAssertEqual(e.context.withCurrent { alGetError() }, AL_NO_ERROR)
        e.shutdown()
        XCTAssertTrue(e.isShutDown)
    }
}
