@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The engine's own distance gain (a curve) hears a voice in another room at the length of its
/// way, as OpenAL's distance model does. Loopback renders on
/// RoomPropagationTests' two rooms (west and east, a 1 m door at z = 3 in the wall x = 0).
final class RoomWayLengthTests: XCTestCase {
    /// Steep between 10 m (the straight line in RoomPropagationTests) and 11.18 m (the way
    /// through the door): −3 dB against about −10 dB.
    private static func steepCurve() throws -> AttenuationCurve {
        try AttenuationCurve(points: [(1, 0), (10, -3), (12, -15), (40, AttenuationCurve.silent)])
    }

    /// Power over both channels (dB) of a looping tone at RoomPropagationTests' emitter, with
    /// `curve` (nil: none), followed as an emitter or placed on its own.
    private func level(curve: AttenuationCurve?, geometry: AcousticGeometry?, emitter: Bool) throws -> Double {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        e.listener = RoomPropagationTests.listener
        if let geometry { try e.setGeometry(geometry) }
        let tone = try e.loadClip(TestSignals.sine(frequency: 300, amplitude: 0.5), name: "tone")
        var s = SpatialProperties(position: RoomPropagationTests.emitterAt)
        s.curve = curve
        if emitter {
            _ = try e.play(tone, options: .init(loop: true, emitter: try e.makeEmitter(s)))
        } else {
            _ = try e.play(tone, options: .init(loop: true, placement: .spatial(s)))
        }
        _ = try TestSignals.renderFrames(e, seconds: 0.2)   // the heard placement settles
        let out = try TestSignals.renderFrames(e, seconds: 0.1)
        let rms = Level.rms(out, channels: 2)
        return Level.dB(power: rms.map { $0 * $0 }.reduce(0, +))
    }

    /// A curve is the engine's to apply: through the door it is read at the way's length
    /// (11.18 m), as OpenAL's model is, not at the straight line (10 m); with no geometry, at
    /// the straight line as before. Measured against a flat curve with everything else alike.
    func testEngineDistanceCurveIsReadAtTheWaysLength() throws {
        let curve = try Self.steepCurve()
        let flat = try AttenuationCurve(points: [(0, 0), (1e6, 0)])
        let way = Level.dB(Double(curve.gain(atDistance: RoomPropagationTests.pathLength)))
        let line = Level.dB(Double(curve.gain(atDistance: (RoomPropagationTests.emitterAt - RoomPropagationTests.listener.position).length)))
        for emitter in [true, false] {
            let g = RoomPropagationTests.geometry()
            let through = try level(curve: curve, geometry: g, emitter: emitter) - level(curve: flat, geometry: g, emitter: emitter)
            let free = try level(curve: curve, geometry: nil, emitter: emitter) - level(curve: flat, geometry: nil, emitter: emitter)
            print("RoomWayLengthTests: \(emitter ? "emitter" : "voice") curve through the door \(through) dB (way \(way), line \(line)); no geometry \(free) dB")
            XCTAssertEqual(through, way, accuracy: 0.5, "the curve at the way's length")
            XCTAssertEqual(free, line, accuracy: 0.5, "no geometry: the curve at the straight line")
        }
    }
}
