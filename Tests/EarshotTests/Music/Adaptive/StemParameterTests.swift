@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// A stem's gain follows a game parameter (MusicLayer.curves, issue 29 with issue 28's
/// parameters): an `intensity` that brings the drums in, measured on the loopback output.
final class StemParameterTests: XCTestCase {
    func testADrumStemFollowsIntensityThroughItsCurve() throws {
        let files = try MusicFixtures()
        let drums = try files.sineWAV("drums.wav", frequency: 1_000, amplitude: 0.4, seconds: 2)
        let bass = try files.sineWAV("bass.wav", frequency: 200, amplitude: 0.4, seconds: 2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        try engine.defineParameter(ParameterDefinition(name: "intensity", range: 0...1, defaultValue: 0, seek: 0))
        let curve = ParameterCurve(parameter: "intensity", property: .gain, points: [.init(0, -40), .init(1, 0)])
        let set = try engine.makeMusicSet(MusicSetDefinition(name: "fight", states: [
            .init(name: "combat", content: .layers([.init(name: "drums", segment: .init(path: drums), curves: [curve]),
                                                    .init(name: "bass", segment: .init(path: bass))])),
        ]))
        try set.play(state: "combat")
        /// The 1 kHz stem's and the 200 Hz stem's amplitudes over the last 0.1 s of `seconds` more.
        func levels(after seconds: Double) throws -> (drums: Double, bass: Double) {
            let left = MusicRender.left(try TestSignals.renderGameFrames(engine, seconds: seconds))
            let window = (left.count - 4_800)..<left.count
            return (AdaptiveMusicTests.amplitude(left, 1_000, window), AdaptiveMusicTests.amplitude(left, 200, window))
        }
        let quiet = try levels(after: 0.3)
        try engine.setParameter("intensity", 1)
        let full = try levels(after: 0.3)
        try engine.setParameter("intensity", 0.5)
        let half = try levels(after: 0.3)
        let db = { (a: Double, b: Double) in Level.dB(a, over: b) }
        print("StemParameter: drums at intensity 0 / 0.5 / 1: \(db(quiet.drums, full.drums)) / \(db(half.drums, full.drums)) dB; bass \(db(quiet.bass, full.bass)) dB")
        XCTAssertEqual(db(full.drums, full.bass), 0, accuracy: 0.1, "intensity 1: the curve's 0 dB (the stems' files are equally loud)")
        XCTAssertEqual(db(quiet.drums, full.drums), -40, accuracy: 0.5)
        XCTAssertEqual(db(half.drums, full.drums), -20, accuracy: 0.5, "linear in dB between the points")
        XCTAssertEqual(db(quiet.bass, full.bass), 0, accuracy: 0.1, "the other stem does not follow")
        // The curve multiplies what the game sets: a stem gain of 0.5 at intensity 0.5 is −26 dB.
        try set.setLayerGain(0.5, layer: "drums")
        let both = try levels(after: 0.3)
        XCTAssertEqual(db(both.drums, full.drums), -26.02, accuracy: 0.5)
    }

    func testAStemCurveOnAnotherPropertyIsRefused() throws {
        let files = try MusicFixtures()
        let drums = try files.sineWAV("drums.wav", seconds: 0.5)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let pitch = ParameterCurve(parameter: "intensity", property: .pitch, points: [.init(0, 1), .init(1, 2)])
        XCTAssertThrowsError(try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
            .init(name: "s", content: .layers([.init(name: "drums", segment: .init(path: drums), curves: [pitch])])),
        ]))) { error in
            XCTAssertTrue("\(error)".contains("drive its gain only"), "\(error)")
        }
    }
}
