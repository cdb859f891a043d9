import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Stereo clips heard through the loopback device: the image kept without a position, folded to
/// mono at one, `spatialMode`, and spread (``PlayOptions/spread``).
final class StereoImageTests: XCTestCase {
    /// 0.25 s of 16-bit stereo at 48 kHz: a 440 Hz tone in the left channel (amplitude `left`)
    /// and a 660 Hz one in the right (`right`).
    private func stereo(left: Double, right: Double) -> PCMAudio {
        TestSignals.stereoTones(left: (440, left), right: (660, right), frames: 12_000)
    }

    /// Per-channel RMS of 0.2 s of `audio` played with `options` (after one update).
    private func levels(_ audio: PCMAudio, _ options: PlayOptions, listener: Listener = Listener()) throws -> [Double] {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        engine.listener = listener
        let clip = try engine.loadClip(audio, name: "stereo")
        _ = try engine.play(clip, options: options)
        engine.update()
        let out = try engine.render(frames: 9_600)
        return Level.rms(Array(out[960...]), channels: 2)   // past the first 10 ms
    }

    /// A stereo clip (loaded as the library, scenes and banks load it) played without a
    /// position keeps its image: a tone only in the left channel is ≥ 60 dB down on the right.
    func testTwoDStereoKeepsItsImage() throws {
        let audio = stereo(left: 0.5, right: 0)
        let l = try levels(audio, PlayOptions())
        XCTAssertGreaterThan(Level.dB(l[0]), -12, "left heard: \(l)")
        XCTAssertGreaterThanOrEqual(Level.dB(l[0]) - Level.dB(l[1]), 60, "right channel silent: \(l)")
        // `spatialMode: .twoD` keeps it even with a position.
        var forced = PlayOptions(position: Vector3(5, 0, 0))
        forced.spatialMode = .twoD
        let f = try levels(audio, forced)
        XCTAssertGreaterThanOrEqual(Level.dB(f[0]) - Level.dB(f[1]), 60, "2d ignores the position: \(f)")
        // `pan` is a balance (StereoBalanceTests measures its law): at +1 the left channel is
        // silenced, not moved to the right — until 0.11 its tone came from the right.
        let panned = try levels(audio, PlayOptions(pan: 1))
        XCTAssertLessThan(Level.dB(panned[1]), Level.dB(l[0]) - 60, "the left channel not moved right: \(panned)")
        XCTAssertLessThan(Level.dB(panned[0]), Level.dB(l[0]) - 60, "the left channel silenced: \(panned)")
    }

    /// Positioned, a stereo clip folds to mono (the mean of its channels) as a clip loaded
    /// folded did; `spatialMode: .threeD` folds it without a position too.
    func testPositionedStereoFoldsToMono() throws {
        let audio = stereo(left: 0.5, right: 0)
        let at = PlayOptions(position: Vector3(3, 0, -2))
        let folded = try levels(audio, at)
        let mono = try levels(audio.downmixedToMono(), at)
        for c in 0..<2 {
            XCTAssertEqual(Level.dB(folded[c]), Level.dB(mono[c]), accuracy: 0.1, "channel \(c): \(folded) vs \(mono)")
        }
        var point = PlayOptions()
        point.spatialMode = .threeD
        let centred = try levels(audio, point)
        XCTAssertEqual(Level.dB(centred[0]), Level.dB(centred[1]), accuracy: 0.1, "3d: a centred point: \(centred)")
        let monoCentred = try levels(audio.downmixedToMono(), PlayOptions())
        XCTAssertEqual(Level.dB(centred[0]), Level.dB(monoCentred[0]), accuracy: 0.1)
    }

    /// Spread 0 is a mono point (at the side, in front, behind); spread 180° facing the
    /// listener is balanced, and at the side it is still louder on that side.
    func testSpread() throws {
        let audio = stereo(left: 0.4, right: 0.4)
        for p in [Vector3(3, 0, -2), Vector3(0, 0, -4), Vector3(-2, 0, 3)] {
            var spread = PlayOptions(position: p)
            spread.spread = 0
            let s = try levels(audio, spread)
            let point = try levels(audio.downmixedToMono(), PlayOptions(position: p))
            for c in 0..<2 {
                XCTAssertEqual(Level.dB(s[c]), Level.dB(point[c]), accuracy: 0.5, "\(p) channel \(c): spread 0 \(s), point \(point)")
            }
        }
        var wide = PlayOptions(position: Vector3(0, 0, -4))
        wide.spread = 180
        let w = try levels(audio, wide)
        XCTAssertEqual(Level.dB(w[0]), Level.dB(w[1]), accuracy: 0.5, "spread 180 facing: \(w)")
        // Its left channel's tone alone: from the left.
        let leftOnly = try levels(stereo(left: 0.4, right: 0), wide)
        XCTAssertGreaterThan(Level.dB(leftOnly[0]) - Level.dB(leftOnly[1]), 20, "left channel to the left: \(leftOnly)")
        // Turned to the side (the listener faces −x: the source is on its right), spread 90°:
        // its channels at 45° and 135°, both to the right. (At 180° they would be ahead and
        // behind: both centred on stereo output.)
        var ninety = wide
        ninety.spread = 90
        let side = try levels(audio, ninety, listener: Listener(at: Vector3(-1, 0, 0)))
        XCTAssertGreaterThan(Level.dB(side[1]) - Level.dB(side[0]), 3, "to the right: \(side)")
        // Distance applies: 8 m is 6 dB below 4 m (inverse distance, reference 1).
        var far = wide
        far.placement = .spatial(SpatialProperties(position: Vector3(0, 0, -8)))
        let f = try levels(audio, far)
        XCTAssertEqual(Level.dB(w[0]) - Level.dB(f[0]), 6.02, accuracy: 0.3, "distance: \(w) vs \(f)")
    }
}
