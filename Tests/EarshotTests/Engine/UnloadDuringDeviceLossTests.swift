@testable import Earshot
import XCTest

/// Found by the API operation fuzzer (issue 24): unloading a clip while the device is lost
/// trapped ("OpenAL AL_INVALID_OPERATION after deleting an unloaded clip's buffer").
final class UnloadDuringDeviceLossTests: XCTestCase {
    func testUnloadWhileTheDeviceIsLostIsSafe() throws {
        for updatesAfterLoss in 0...3 {
            let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
            defer { e.shutdown() }
            let clip = try e.loadClip(TestSignals.sine(frequency: 440, amplitude: 0.5, seconds: 0.5), name: "s")
            let other = try e.loadClip(TestSignals.sine(frequency: 660, amplitude: 0.5, seconds: 0.5), name: "o")
            _ = try e.play(clip, options: .init(loop: true, position: Vector3(0, 0, -1)))
            _ = try e.play(other, options: .init(loop: true, pan: 0))
            _ = try TestSignals.renderFrames(e, seconds: 0.1)
            e.simulateDeviceLoss()
            for _ in 0..<updatesAfterLoss { e.update(deltaTime: 1.0 / 60); _ = try e.render(frames: 800) }
            e.unload(clip)
            let out = try TestSignals.renderFrames(e, seconds: 0.3)
            XCTAssertTrue(out.allSatisfy(\.isFinite))
            XCTAssertThrowsError(try e.play(clip), "the handle is stale")
            XCTAssertNoThrow(try e.play(other), "the other clip came back with the device")
        }
    }
}
