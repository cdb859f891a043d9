import Earshot
import EarshotMeasure
import XCTest

/// Attenuation curves, distance precedence and `beyondMax` as values (no engine): their checks,
/// their interpolation, and the field-by-field rule of `SpatialProperties.withDistance(from:)`.
/// Rendered levels are measured in EarshotBanksTests' BankDistanceTests.
final class AttenuationCurveTests: XCTestCase {
    func testCurvesInterpolateInDBAndTowardsSilenceInAmplitude() throws {
        let c = try AttenuationCurve(points: [(1, 0), (10, -12), (30, AttenuationCurve.silent)])
        XCTAssertEqual(c.gain(atDistance: 0.5), 1)
        XCTAssertEqual(Level.dB(Double(c.gain(atDistance: 5.5))), -6, accuracy: 1e-4)      // halfway in dB
        XCTAssertEqual(c.gain(atDistance: 20), powf(10, -12 / 20) / 2, accuracy: 1e-6)  // halfway in amplitude
        XCTAssertEqual(c.gain(atDistance: 30), 0)
        XCTAssertEqual(c.gain(atDistance: 1e6), 0)
        // Interned: equal points, equal handles; the points read back as given.
        XCTAssertEqual(c, try AttenuationCurve(points: [(1, 0), (10, -12), (30, AttenuationCurve.silent)]))
        XCTAssertEqual(c.points.map(\.distance), [1, 10, 30])
        XCTAssertEqual(c.points[1].dB, -12, accuracy: 1e-5)
        XCTAssertEqual(c.points[2].dB, AttenuationCurve.silent)
    }

    func testBadCurvesAreTypedErrors() {
        let bad: [[(distance: Double, dB: Double)]] = [
            [], [(1, 0), (1, -6)], [(2, 0), (1, -6)], [(-1, 0)], [(.nan, 0)], [(1, 13)], [(1, -121)], [(1, .nan)], [(1, .infinity)],
            Array(repeating: (1, 0), count: 65),
        ]
        for points in bad {
            XCTAssertThrowsError(try AttenuationCurve(points: points), "\(points)") { error in
                guard case .invalidArgument = error as? EarshotError else { return XCTFail("\(error)") }
            }
        }
    }

    func testBeyondMaxSilentFadesOverTenPercent() {
        XCTAssertEqual(BeyondMax.silentFactor(distance: 20, maxDistance: 20), 1)
        XCTAssertEqual(BeyondMax.silentFactor(distance: 21, maxDistance: 20), 0.5, accuracy: 1e-6)
        XCTAssertEqual(BeyondMax.silentFactor(distance: 22, maxDistance: 20), 0)
        let s = SpatialProperties(maxDistance: 20, rolloff: 0.1, beyondMax: .silent)
        XCTAssertEqual(s.distanceGain(distance: 50, model: .inverseClamped), 0)
        XCTAssertEqual(s.distanceGain(distance: 10, model: .inverseClamped), 1 / 1.9, accuracy: 1e-6)
    }

    func testExplicitFieldsOverrideTheBaseFieldByField() throws {
        let sound = SpatialProperties(referenceDistance: 2, maxDistance: 50, rolloff: 0.5, beyondMax: .silent)
        // Made without distance arguments: nothing explicit, everything from the sound.
        let plain = SpatialProperties(position: Vector3(1, 2, 3))
        XCTAssertEqual(plain.explicitDistance, [])
        let a = plain.withDistance(from: sound)
        XCTAssertEqual(a.position, Vector3(1, 2, 3))
        XCTAssertEqual([a.referenceDistance, a.maxDistance, a.rolloff], [2, 50, 0.5])
        XCTAssertEqual(a.beyondMax, .silent)
        // Setting a field marks it: only the rolloff wins.
        var emitter = plain
        emitter.rolloff = 3
        XCTAssertEqual(emitter.explicitDistance, [.rolloff])
        let b = emitter.withDistance(from: sound)
        XCTAssertEqual([b.referenceDistance, b.maxDistance, b.rolloff], [2, 50, 3])
        // A model other than the engine's, or a curve, is the engine's to compute.
        XCTAssertFalse(sound.distanceComputedByEngine(model: .inverseClamped))
        XCTAssertTrue(SpatialProperties(distanceModel: .linear).distanceComputedByEngine(model: .inverseClamped))
        XCTAssertFalse(SpatialProperties(distanceModel: .linear).distanceComputedByEngine(model: .linear))
        XCTAssertTrue(SpatialProperties(curve: try AttenuationCurve(points: [(0, 0)])).distanceComputedByEngine(model: .none))
    }
}
