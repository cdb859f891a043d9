#if canImport(Glibc)
import Glibc
#endif

/// The decode of a second- or third-order bed onto virtual loudspeakers: one row per
/// loudspeaker, one column per AmbiX (ACN/SN3D) channel.
///
/// **Layouts** (``layout(order:)``): first order (when not played by OpenAL's B-format
/// path) on the 6 vertices of an octahedron, second order on the 12 vertices of an icosahedron (a
/// spherical 5-design), third order on 24 points of a spherical 7-design (found numerically and
/// checked by `AmbisonicDecoderTests`). A t-design with t ≥ 2N makes the decode exact for order
/// N: the energy of a plane wave is the same from every direction. Each loudspeaker is a mono
/// OpenAL source one unit from the head, so HRTF or stereo panning applies to it as to any
/// source.
///
/// **Decoders**: ``Kind/basic`` (mode matching: the loudspeakers re-create the field's
/// harmonics exactly at the centre; the pseudo-inverse of the layout's harmonics) and
/// ``Kind/maxRE`` (the default: the same, with each order weighted by the max-rE gains
/// Pₗ(r), r the largest root of P_{N+1}, which concentrates energy toward the source —
/// narrower images, louder on the source's side). Both scaled so that a plane wave of amplitude
/// 1 gives the loudspeakers a total power of 1, as a mono point source of that wave.
///
/// **Cost**: (N+1)² × loudspeakers multiply-adds per frame (order 1: 24, order 2: 108, order 3:
/// 384) on the streaming thread, plus OpenAL mixing 6, 12 or 24 sources (see `make bench`, mode `beds`).
///
/// ```swift
/// let decoder = AmbisonicDecoderMatrix(order: 3, kind: .maxRE)
/// print(decoder.speakers.count)   // 24
/// ```
public struct AmbisonicDecoderMatrix: Sendable, Equatable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case basic
        case maxRE = "max-re"
    }

    public let order: Int
    public let kind: Kind
    /// The loudspeakers' directions, OpenAL frame (−z ahead), one unit from the head.
    public let speakers: [Vector3]
    /// Row-major: `gains[s * channels + c]` is ACN channel c's gain into loudspeaker s.
    public let gains: [Float]
    /// (order + 1)².
    public var channels: Int { AmbisonicFormat.channels(order: order) }

    /// Orders 1…3 (first order plays through OpenAL's own B-format decoder where that is right:
    /// ``AmbisonicBed/FirstOrderPath``).
    public init(order: Int, kind: Kind = .maxRE) {
        precondition((1...AmbisonicFormat.maxOrder).contains(order), "virtual loudspeakers decode orders 1…3")  // trap: callers check
        self.order = order
        self.kind = kind
        let dirs = Self.layout(order: order)
        let k = AmbisonicFormat.channels(order: order)
        // Y: k × L, the layout's harmonics; D = Yᵀ (Y Yᵀ)⁻¹ (mode matching).
        let y = dirs.map { SphericalHarmonics.sn3d(order: order, x: $0.x, y: $0.y, z: $0.z) }
        var gram = [Double](repeating: 0, count: k * k)
        for a in 0..<k { for b in 0..<k { gram[a * k + b] = y.reduce(0) { $0 + $1[a] * $1[b] } } }
        let inverse = Self.invert(gram, k)
        let weights = Self.weights(order: order, kind: kind)
        var d = [Double](repeating: 0, count: dirs.count * k)
        for s in 0..<dirs.count {
            for c in 0..<k {
                var sum = 0.0
                for a in 0..<k { sum += y[s][a] * inverse[a * k + c] }
                d[s * k + c] = sum * weights[c]
            }
        }
        // Power of a plane wave, averaged over the layout's own directions (a t-design with
        // t ≥ 2N integrates the degree-2N power exactly): scaled to 1.
        var power = 0.0
        for dir in dirs {
            let b = SphericalHarmonics.sn3d(order: order, x: dir.x, y: dir.y, z: dir.z)
            for s in 0..<dirs.count {
                var g = 0.0
                for c in 0..<k { g += d[s * k + c] * b[c] }
                power += g * g
            }
        }
        let scale = 1 / (power / Double(dirs.count)).squareRoot()
        gains = d.map { Float($0 * scale) }
        speakers = dirs.map { SphericalHarmonics.openAL($0.x, $0.y, $0.z) }
    }

    /// Decodes `frames` AmbiX frames from `input` into `frames` × loudspeakers in `output`.
    public func decode(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>, frames: Int) {
        let k = channels, l = speakers.count
        gains.withUnsafeBufferPointer { g in
            guard let base = g.baseAddress else { return }
            // While loops over raw pointers: the decode runs on every streamed frame.
            var f = 0
            while f < frames {
                let i = input + f * k, o = output + f * l
                var s = 0, row = base
                while s < l {
                    var sum: Float = 0, c = 0
                    while c < k { sum += row[c] * i[c]; c += 1 }
                    o[s] = sum
                    s += 1
                    row += k
                }
                f += 1
            }
        }
    }

    /// Per-channel weights: 1 for basic; Pₗ(r_E) for max-rE.
    static func weights(order: Int, kind: Kind) -> [Double] {
        let r = kind == .basic ? 1 : largestLegendreRoot(order + 1)
        return (0...order).flatMap { l in [Double](repeating: kind == .basic ? 1 : legendre(l, r), count: 2 * l + 1) }
    }

    static func legendre(_ n: Int, _ x: Double) -> Double {
        var (p0, p1) = (1.0, x)
        if n == 0 { return p0 }
        for k in 1..<n { (p0, p1) = (p1, (Double(2 * k + 1) * x * p1 - Double(k) * p0) / Double(k + 1)) }
        return p1
    }

    /// The largest root of Pₙ (Newton from cos(π / (2n + 1)), which lies above it).
    static func largestLegendreRoot(_ n: Int) -> Double {
        var x = cos(Double.pi / (2 * Double(n) + 1))
        for _ in 0..<50 {
            let p = legendre(n, x), q = legendre(n - 1, x)
            let derivative = Double(n) * (x * p - q) / (x * x - 1)
            x -= p / derivative
        }
        return x
    }

    /// Gauss–Jordan inverse of an n × n positive-definite matrix (the layout's Gram matrix).
    static func invert(_ m: [Double], _ n: Int) -> [Double] {
        var a = m, inv = [Double](repeating: 0, count: n * n)
        for i in 0..<n { inv[i * n + i] = 1 }
        for col in 0..<n {
            var pivot = col
            for r in col..<n where abs(a[r * n + col]) > abs(a[pivot * n + col]) { pivot = r }
            if pivot != col {
                for c in 0..<n { a.swapAt(col * n + c, pivot * n + c); inv.swapAt(col * n + c, pivot * n + c) }
            }
            let p = a[col * n + col]
            precondition(abs(p) > 1e-9, "a layout too sparse for its order")  // trap: layouts are fixed
            for c in 0..<n { a[col * n + c] /= p; inv[col * n + c] /= p }
            for r in 0..<n where r != col {
                let f = a[r * n + col]
                if f == 0 { continue }
                for c in 0..<n { a[r * n + c] -= f * a[col * n + c]; inv[r * n + c] -= f * inv[col * n + c] }
            }
        }
        return inv
    }
}
