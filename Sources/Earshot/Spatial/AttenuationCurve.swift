#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A custom distance rolloff: the level in dB at chosen distances, as FMOD's and Wwise's custom
/// rolloff curves. It replaces the distance model for the sounds or emitters that use it.
///
/// Between two points the level moves linearly in dB; from a point towards silence
/// (``silent``, −∞ dB) it moves linearly in amplitude, so a curve fades out smoothly to nothing.
/// Before the first point the level is the first point's, after the last the last's: a curve that
/// ends silent is silent beyond its last point, and the voices there go virtual (no mixing cost).
///
/// A curve is interned: equal points give equal handles, so a curve costs one table entry however
/// many sounds, emitters and voices use it. The engine computes a curve's gain itself, once per
/// ``AudioEngine/update(deltaTime:)`` for each voice that moved (OpenAL is given rolloff 0 for
/// those voices and applies only the cone).
///
/// ```swift
/// let torch = try AttenuationCurve(points: [(1, 0), (4, -6), (12, -24), (20, AttenuationCurve.silent)])
/// torch.gain(atDistance: 2.5)      // −3 dB ≈ 0.708
/// var fire = SpatialProperties(position: Vector3(0, 0, -3))
/// fire.curve = torch
/// ```
public struct AttenuationCurve: Sendable, Hashable, CustomStringConvertible {
    /// Its row in the process-wide table (1-based; stored in ``SpatialProperties`` as a plain
    /// number, so that a voice's state holds no reference).
    @usableFromInline let id: UInt32

    @inlinable init(id: UInt32) { self.id = id }

    /// A point's level meaning silence (−∞ dB).
    public static let silent = -Double.infinity
    /// The most points one curve may have.
    public static let maxPoints = 64
    /// The most distinct curves a process may hold (equal curves share one entry).
    public static let maxCurves = 4096

    /// A curve through `points` (distance in metres, level in dB): 1…``maxPoints`` points with
    /// distances finite, ≥ 0 and strictly increasing, levels from −120 to +12 dB or ``silent``.
    /// Throws ``EarshotError/invalidArgument(_:)`` naming the first bad point, or when the
    /// process already holds ``maxCurves`` different curves.
    public init(points: [(distance: Double, dB: Double)]) throws(EarshotError) {
        guard (1...Self.maxPoints).contains(points.count) else {
            throw .invalidArgument("an attenuation curve needs 1…\(Self.maxPoints) points (got \(points.count))")
        }
        var previous = -1.0
        for (i, p) in points.enumerated() {
            guard p.distance.isFinite, p.distance >= 0, p.distance <= 1e9 else {
                throw .invalidArgument("curve point \(i): distance \(p.distance) m (must be finite, 0…1e9)")
            }
            guard p.distance > previous else {
                throw .invalidArgument(
                    "curve point \(i): distance \(p.distance) m is not after the point before (\(previous) m)")
            }
            guard p.dB == Self.silent || (p.dB.isFinite && (-120...12).contains(p.dB)) else {
                throw .invalidArgument("curve point \(i): level \(p.dB) dB (must be −120…+12 dB, or silent)")
            }
            previous = p.distance
        }
        let stored = points.map { Point(distance: Float($0.distance), amplitude: Self.amplitude($0.dB)) }
        guard let id = CurveTable.shared.intern(stored) else {
            throw .invalidArgument("more than \(Self.maxCurves) different attenuation curves in this process")
        }
        self.id = id
    }

    /// The points, as given (levels in dB; silence as ``silent``).
    public var points: [(distance: Double, dB: Double)] {
        CurveTable.shared.points(id).map {
            (Double($0.distance), $0.amplitude > 0 ? 20 * log10(Double($0.amplitude)) : Self.silent)
        }
    }

    /// The linear gain at `distance` metres (0 for silence).
    public func gain(atDistance distance: Float) -> Float {
        CurveTable.shared.gain(id, distance: distance)
    }

    public var description: String {
        "AttenuationCurve("
            + points.map { "\($0.distance) m: \($0.dB == Self.silent ? "silent" : "\($0.dB) dB")" }.joined(
                separator: ", ") + ")"
    }

    static func amplitude(_ dB: Double) -> Float { dB == silent ? 0 : Float(pow(10, dB / 20)) }

    /// One point, with its level as an amplitude (0 for silence).
    struct Point: Equatable, Hashable {
        var distance: Float
        var amplitude: Float

        /// The gain at `d` on the curve `points` (sorted, at least one).
        static func gain(_ points: UnsafeBufferPointer<Point>, at d: Float) -> Float {
            guard let first = points.first, let last = points.last else { return 1 }
            if !(d > first.distance) { return first.amplitude }
            if d >= last.distance { return last.amplitude }
            var i = 1
            while points[i].distance < d { i += 1 }
            let a = points[i - 1], b = points[i]
            let f = (d - a.distance) / (b.distance - a.distance)
            if a.amplitude > 0, b.amplitude > 0 {
                // Linear in dB: a geometric interpolation of the amplitudes.
                return a.amplitude * powf(b.amplitude / a.amplitude, f)
            }
            return a.amplitude + (b.amplitude - a.amplitude) * f
        }
    }
}

/// The process-wide table of attenuation curves: append-only, interned. Interning takes a leaf
/// lock (see <doc:Threading>: under the AL lock or none, and no lock is taken inside it); a
/// lookup takes none, since the engine evaluates a curve per voice that moves, every update.
///
/// A row is written once, under the lock, before its id is published (a releasing store of
/// `published`); a reader loads `published` (acquiring) and reads only rows below it, which
/// never change again. Rows are never freed: at most ``AttenuationCurve/maxCurves`` ×
/// ``AttenuationCurve/maxPoints`` points (2 MiB) for the life of the process.
final class CurveTable: @unchecked Sendable {
    // @unchecked Sendable: `rows` is written only under `ids`'s lock (a `Locked`) and read below
    // `published` (release/acquire, the rule above); `ids` is only touched inside its lock.
    static let shared = CurveTable()

    private let rows: UnsafeMutablePointer<UnsafeBufferPointer<AttenuationCurve.Point>>
    private let published = Atomic<Int>(0)
    private let ids = Locked([[AttenuationCurve.Point]: UInt32]())

    private init() {
        rows = .allocate(capacity: AttenuationCurve.maxCurves)
        rows.initialize(repeating: UnsafeBufferPointer(start: nil, count: 0), count: AttenuationCurve.maxCurves)
    }

    func intern(_ points: [AttenuationCurve.Point]) -> UInt32? {
        ids.withLock { ids in
            if let id = ids[points] { return id }
            let n = published.load(ordering: .relaxed)   // only ever stored under this lock
            guard n < AttenuationCurve.maxCurves else { return nil }
            let row = UnsafeMutableBufferPointer<AttenuationCurve.Point>.allocate(capacity: points.count)
            _ = row.initialize(from: points)
            rows[n] = UnsafeBufferPointer(row)
            published.store(n + 1, ordering: .releasing)
            let id = UInt32(n + 1)
            ids[points] = id
            return id
        }
    }

    /// The row of `id`, empty for an id not (yet) in the table.
    @inline(__always)
    private func row(_ id: UInt32) -> UnsafeBufferPointer<AttenuationCurve.Point> {
        guard id >= 1, Int(id) <= published.load(ordering: .acquiring) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return rows[Int(id) - 1]
    }

    func points(_ id: UInt32) -> [AttenuationCurve.Point] {
        Array(row(id))
    }

    func gain(_ id: UInt32, distance: Float) -> Float {
        let points = row(id)
        return points.isEmpty ? 1 : AttenuationCurve.Point.gain(points, at: distance)
    }
}

/// What a positioned voice does beyond its ``SpatialProperties/maxDistance``.
public enum BeyondMax: String, Sendable, CaseIterable, Codable {
    /// OpenAL's behaviour: the clamped models hold the level they have at `maxDistance`, the
    /// others keep attenuating by their formula (the default).
    case hold
    /// Silent past `maxDistance`: the level fades out linearly in amplitude from `maxDistance`
    /// to `maxDistance` × (1 + ``fadeMargin``) (no click), and beyond it the voice is silent and
    /// goes virtual (no source, no mixing cost) until it comes back within range.
    case silent

    /// The fade margin past `maxDistance`, as a fraction of it: 0.1 (10 %).
    public static let fadeMargin: Float = 0.1

    /// The factor `silent` applies at `distance` for `maxDistance` (1 within it, 0 past the margin).
    @inlinable @inline(__always)
    public static func silentFactor(distance: Float, maxDistance: Float) -> Float {
        guard distance > maxDistance else { return 1 }
        let margin = maxDistance * fadeMargin
        guard margin > 0 else { return 0 }
        return max(0, 1 - (distance - maxDistance) / margin)
    }
}
