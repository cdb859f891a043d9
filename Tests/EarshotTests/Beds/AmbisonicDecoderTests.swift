@testable import Earshot
import Foundation
import XCTest

/// The virtual-loudspeaker decoder's own properties, no rendering: the layouts are t-designs
/// for their order, a plane wave's power is the same from every direction, max-rE narrows the
/// image, and FuMa converts to AmbiX exactly.
final class AmbisonicDecoderTests: XCTestCase {
    func testLayoutsAreDesignsAndPowerIsFlat() {
        for order in 1...3 {
            let dirs = AmbisonicDecoderMatrix.layout(order: order)
            // Every harmonic of degree 1…2N sums to ~0 over the layout (a 2N-design).
            let sums = (0..<dirs.count).reduce(into: [Double](repeating: 0, count: 16)) { acc, i in
                let y = SphericalHarmonics.sn3d(order: 3, x: dirs[i].x, y: dirs[i].y, z: dirs[i].z)
                for c in 1..<16 { acc[c] += y[c] }
            }
            let degree = min(3, 2 * order)
            let worst = sums[1..<AmbisonicFormat.channels(order: degree)].map(abs).max() ?? 0
            XCTAssertLessThan(worst, 1e-5, "order \(order): a \(2 * order)-design")
            for kind in AmbisonicDecoderMatrix.Kind.allCases {
                let m = AmbisonicDecoderMatrix(order: order, kind: kind)
                var powers: [Double] = []
                var spread: [Double] = []
                for az in stride(from: 0.0, to: 360, by: 15) {
                    for el in [-60.0, -20, 0, 35, 70] {
                        let b = SphericalHarmonics.sn3d(order: order, azimuth: az, elevation: el).map { Float($0) }
                        var out = [Float](repeating: 0, count: m.speakers.count)
                        b.withUnsafeBufferPointer { bp in out.withUnsafeMutableBufferPointer { m.decode(bp.baseAddress!, $0.baseAddress!, frames: 1) } }
                        let p = out.reduce(0.0) { $0 + Double($1 * $1) }
                        powers.append(10 * log10(p))
                        // rE: the energy vector's length (1 would be a single loudspeaker).
                        var v = Vector3.zero
                        for (g, s) in zip(out, m.speakers) { v = v + s * (g * g) }
                        spread.append(Double(v.length) / p)
                    }
                }
                let range = (powers.max() ?? 0) - (powers.min() ?? 0)
                print("decoder order \(order) \(kind): \(m.speakers.count) loudspeakers, power \(String(format: "%.4f", powers[0])) dB ± \(String(format: "%.4f", range)), rE \(String(format: "%.3f", spread.min() ?? 0))…\(String(format: "%.3f", spread.max() ?? 0))")
                XCTAssertLessThan(range, 0.01, "order \(order) \(kind): the same power from every direction")
                XCTAssertEqual(powers[0], 0, accuracy: 0.01, "a unit plane wave gives the loudspeakers a power of 1")
                if kind == .maxRE { XCTAssertGreaterThan(spread.min() ?? 0, [0, 0.57, 0.77, 0.85][order], "order \(order) max-rE") }
            }
        }
    }

    func testOrdersAndFuMaConversion() throws {
        XCTAssertEqual(try AmbisonicFormat.order(channels: 4), 1)
        XCTAssertEqual(try AmbisonicFormat.order(channels: 9), 2)
        XCTAssertEqual(try AmbisonicFormat.order(channels: 16), 3)
        for n in [0, 1, 2, 3, 5, 8, 10, 15, 17, 25] { XCTAssertThrowsError(try AmbisonicFormat.order(channels: n)) }
        // A FuMa plane wave (textbook FuMa: W = 1/√2, X = cos, Y = sin, R = (3 sin²e − 1)/2 …)
        // converts to the SN3D values.
        let az = 0.7, el = 0.3
        let (x, y, z) = (cos(az) * cos(el), sin(az) * cos(el), sin(el))
        let fuma: [Double] = [1 / 2.squareRoot(), x, y, z, (3 * z * z - 1) / 2, 2 * z * x, 2 * y * z, x * x - y * y, 2 * x * y]
        var out = [Float](repeating: 0, count: 9)
        let input = fuma.map { Float($0) }
        input.withUnsafeBufferPointer { i in out.withUnsafeMutableBufferPointer { AmbisonicFormat.fuma.toAmbiX(i.baseAddress!, $0.baseAddress!, frames: 1, channels: 9) } }
        let sn3d = SphericalHarmonics.sn3d(order: 2, x: x, y: y, z: z)
        for c in 0..<9 { XCTAssertEqual(Double(out[c]), sn3d[c], accuracy: 1e-5, "ACN \(c)") }
    }
}
