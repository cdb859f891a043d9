#if canImport(Glibc)
import Glibc
#endif

/// Small numeric helpers the rooms share.
enum RoomMath {
    @inline(__always)
    static func amplitude(dB: Float) -> Float { dB <= -200 ? 0 : pow10(dB / 20) }

    @inline(__always)
    static func dB(_ amplitude: Float) -> Float { amplitude <= 1e-10 ? -200 : 20 * log10f(amplitude) }

    @inline(__always)
    static func pow10(_ x: Float) -> Float { expf(x * 2.302_585_1) }

    /// The angle between two directions, degrees (0 when either is shorter than 1 cm).
    @inline(__always)
    static func angle(_ a: Vector3, _ b: Vector3) -> Float {
        let la = a.length, lb = b.length
        guard la > 0.01, lb > 0.01 else { return 0 }
        let c = max(-1, min(1, a.dot(b) / (la * lb)))
        return acosf(c) * (180 / Float.pi)
    }
}
