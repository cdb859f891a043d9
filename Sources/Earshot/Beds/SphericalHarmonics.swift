#if canImport(Glibc)
import Glibc
#endif

/// Real spherical harmonics in ACN order with SN3D normalisation (AmbiX), orders 0…3 — what
/// encodes a plane wave and what the loudspeaker decoder is built from.
///
/// Directions are in the ambisonic frame: +x ahead, +y left, +z up. ``direction(ofOpenAL:)``
/// and ``openAL(_:)`` convert from and to OpenAL's (+x right, +y up, −z ahead).
///
/// ```swift
/// let left = SphericalHarmonics.sn3d(order: 1, x: 0, y: 1, z: 0)   // [1, 1, 0, 0]
/// ```
public enum SphericalHarmonics {
    /// The (order + 1)² SN3D values for the unit direction (x, y, z), ACN order.
    public static func sn3d(order: Int, x: Double, y: Double, z: Double) -> [Double] {
        precondition((0...AmbisonicFormat.maxOrder).contains(order), "order \(order) outside 0…3")  // trap: callers check
        var out: [Double] = [1]
        if order >= 1 { out += [y, z, x] }
        if order >= 2 {
            let s3 = Double(3).squareRoot()
            out += [s3 * x * y, s3 * y * z, (3 * z * z - 1) / 2, s3 * x * z, s3 / 2 * (x * x - y * y)]
        }
        if order >= 3 {
            let a = (5.0 / 8).squareRoot(), b = Double(15).squareRoot(), c = (3.0 / 8).squareRoot()
            out += [a * y * (3 * x * x - y * y), b * x * y * z, c * y * (5 * z * z - 1), z * (5 * z * z - 3) / 2,
                    c * x * (5 * z * z - 1), b / 2 * z * (x * x - y * y), a * x * (x * x - 3 * y * y)]
        }
        return out
    }

    /// The SN3D values of a horizontal plane wave from `azimuth` degrees (0 ahead, 90 left).
    public static func sn3d(order: Int, azimuth: Double, elevation: Double = 0) -> [Double] {
        let a = azimuth * .pi / 180, e = elevation * .pi / 180
        return sn3d(order: order, x: cos(a) * cos(e), y: sin(a) * cos(e), z: sin(e))
    }

    /// An OpenAL-frame vector in the ambisonic frame.
    static func direction(ofOpenAL v: Vector3) -> (x: Double, y: Double, z: Double) {
        (Double(-v.z), Double(-v.x), Double(v.y))
    }

    /// An ambisonic-frame direction in OpenAL's frame.
    static func openAL(_ x: Double, _ y: Double, _ z: Double) -> Vector3 {
        Vector3(Float(-y), Float(z), Float(-x))
    }
}
