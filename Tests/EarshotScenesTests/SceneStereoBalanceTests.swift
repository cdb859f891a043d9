import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// A scene's `play:` of a stereo clip with `pan:` and no position: `pan` is a balance (issue 39),
/// as in the library (StereoBalanceTests). The clip is a sox file: 440 Hz on the left, 1 kHz on
/// the right.
final class SceneStereoBalanceTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// The 440 Hz amplitude in each channel and the 1 kHz one in the right over 0.1…0.4 s (whole
    /// cycles of both) of a scene playing the clip at `pan`.
    private func tones(pan: Double) throws -> (left440: Double, right440: Double, right1k: Double) {
        let clip = tmp.appendingPathComponent("tones.wav").path
        if !FileManager.default.fileExists(atPath: clip) { try SoxTone.writeStereo(to: clip, left: 440, right: 1_000) }
        let audio = try SceneFixtures.render(yaml: "duration: 0.5\nclips:\n  st: \(clip)\nevents:\n  - { at: 0, play: st, pan: \(pan) }\n",
                                             in: tmp)
        let a = audio.frame(0.1), b = audio.frame(0.4)
        func channel(_ c: Int) -> ArraySlice<Float> { stride(from: a * 2 + c, to: b * 2, by: 2).map { audio.samples[$0] }[...] }
        return (ToneMeasure.amplitude(channel(0), 440), ToneMeasure.amplitude(channel(1), 440), ToneMeasure.amplitude(channel(1), 1_000))
    }

    func testPanOnAStereoPlayIsABalance() throws {
        let centre = try tones(pan: 0)
        XCTAssertGreaterThanOrEqual(Level.dB(centre.left440) - Level.dB(centre.right440), 60, "the image: \(centre)")
        let half = try tones(pan: 0.5)
        XCTAssertEqual(Level.dB(half.right1k), Level.dB(centre.right1k), accuracy: 0.1, "right unchanged: \(half) vs \(centre)")
        XCTAssertEqual(Level.dB(half.left440) - Level.dB(centre.left440), Level.dB(0.5), accuracy: 0.2, "left at 1 − |pan|")
        XCTAssertGreaterThanOrEqual(Level.dB(half.left440) - Level.dB(half.right440), 60, "440 Hz stays on the left: \(half)")
        let left = try tones(pan: -1)
        XCTAssertLessThan(Level.dB(left.right1k), Level.dB(centre.right1k) - 60, "pan −1: the right silent: \(left)")
        XCTAssertEqual(Level.dB(left.left440), Level.dB(centre.left440), accuracy: 0.1)
    }
}
