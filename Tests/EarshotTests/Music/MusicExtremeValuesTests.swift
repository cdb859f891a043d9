import Earshot
import XCTest

/// Times in seconds far outside a track convert to frames without trapping (issue 24, class 1:
/// `Int(1e300 × rate)` trapped).
final class MusicExtremeValuesTests: XCTestCase {
    func testHugeTimesAreClampedOrRefused() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: "Assets/Music/theme.ogg")
        track.currentTime = 1e300
        XCTAssertEqual(track.currentFrame, track.frameCount)
        track.currentTime = -1e300
        XCTAssertEqual(track.currentFrame, 0)
        for region in [0...1e300, -1e300...(-1e299), 1e300...1e301, -1e300...1e300] {
            XCTAssertThrowsError(try track.setLoopRegion(seconds: region)) { error in
                guard case .invalidArgument? = error as? EarshotError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertNoThrow(try track.setLoopRegion(seconds: 0...0.5))
    }
}
