#if canImport(Glibc)
import Glibc
#endif

/// A room's box in the form the lookups use: centre, half size and the turn about +y as a
/// cosine and sine (local → world: x' = c·x + s·z, z' = −s·x + c·z).
struct RoomBox: Sendable, Equatable {
    var center: Vector3
    var half: Vector3
    var cos: Float
    var sin: Float
    /// The world-space bounding box (for quick rejects).
    var lo: Vector3
    var hi: Vector3
    var volume: Float

    init(_ room: Room) {
        center = room.center
        half = room.size * 0.5
        let r = room.rotation * Float.pi / 180
        cos = cosf(r)
        sin = sinf(r)
        let ex = abs(cos) * half.x + abs(sin) * half.z, ez = abs(sin) * half.x + abs(cos) * half.z
        lo = center - Vector3(ex, half.y, ez)
        hi = center + Vector3(ex, half.y, ez)
        volume = room.size.x * room.size.y * room.size.z
    }

    /// A world point in the box's frame (relative to its centre).
    @inline(__always)
    func local(_ p: Vector3) -> Vector3 {
        let d = p - center
        return Vector3(cos * d.x - sin * d.z, d.y, sin * d.x + cos * d.z)
    }

    /// A box-frame point (relative to the centre) back in the world.
    @inline(__always)
    func world(_ q: Vector3) -> Vector3 {
        center + Vector3(cos * q.x + sin * q.z, q.y, -sin * q.x + cos * q.z)
    }

    @inline(__always)
    func contains(_ p: Vector3) -> Bool {
        guard p.x >= lo.x, p.x <= hi.x, p.y >= lo.y, p.y <= hi.y, p.z >= lo.z, p.z <= hi.z else { return false }
        let q = local(p)
        return abs(q.x) <= half.x && abs(q.y) <= half.y && abs(q.z) <= half.z
    }

    /// How far `p` is from the box's surface (inside or out), metres.
    func surfaceDistance(_ p: Vector3) -> Float {
        let q = local(p)
        let d = Vector3(abs(q.x) - half.x, abs(q.y) - half.y, abs(q.z) - half.z)
        let outside = Vector3(max(d.x, 0), max(d.y, 0), max(d.z, 0)).length
        return outside > 0 ? outside : -max(d.x, d.y, d.z)
    }

    /// The box's eight corners in the world.
    var corners: [Vector3] {
        var out: [Vector3] = []
        for sx in [Float(-1), 1] { for sy in [Float(-1), 1] { for sz in [Float(-1), 1] {
            out.append(world(Vector3(sx * half.x, sy * half.y, sz * half.z)))
        } } }
        return out
    }

    /// Whether `other` lies wholly inside this box (within 1 mm).
    func contains(_ other: RoomBox) -> Bool {
        other.corners.allSatisfy { c in
            let q = local(c)
            return abs(q.x) <= half.x + 0.001 && abs(q.y) <= half.y + 0.001 && abs(q.z) <= half.z + 0.001
        }
    }

    /// Whether the two boxes share volume (touching faces do not count): separating axes in the
    /// horizontal plane (both boxes turn only about +y) and the vertical interval.
    func overlaps(_ o: RoomBox) -> Bool {
        let eps: Float = 0.001
        guard lo.y < o.hi.y - eps, o.lo.y < hi.y - eps else { return false }
        let axes = [(cos, -sin), (sin, cos), (o.cos, -o.sin), (o.sin, o.cos)]   // each box's local x and z in world (x, z)
        for (ax, az) in axes {
            func extent(_ b: RoomBox) -> (Float, Float) {
                let c = b.center.x * ax + b.center.z * az
                let r = b.half.x * abs(b.cos * ax - b.sin * az) + b.half.z * abs(b.sin * ax + b.cos * az)
                return (c - r, c + r)
            }
            let a = extent(self), b = extent(o)
            if a.1 <= b.0 + eps || b.1 <= a.0 + eps { return false }
        }
        return true
    }

    /// Where the segment `a → b` crosses the box's surface, as fractions of its length in 0…1
    /// (none, one or two).
    @inline(__always)
    func crossings(_ a: Vector3, _ b: Vector3) -> (Float?, Float?) {
        let p = local(a), q = local(b)
        let d = q - p
        var t0: Float = -.infinity, t1: Float = .infinity
        guard Self.slab(p.x, d.x, half.x, &t0, &t1), Self.slab(p.y, d.y, half.y, &t0, &t1),
            Self.slab(p.z, d.z, half.z, &t0, &t1) else { return (nil, nil) }
        return (t0 > 0 && t0 < 1 ? t0 : nil, t1 > 0 && t1 < 1 ? t1 : nil)
    }

    /// One axis of the slab test: narrows `t0…t1` to where the line is between ±h; false when it never is.
    @inline(__always)
    private static func slab(_ o: Float, _ v: Float, _ h: Float, _ t0: inout Float, _ t1: inout Float) -> Bool {
        if abs(v) < 1e-9 { return abs(o) <= h }
        var u0 = (-h - o) / v, u1 = (h - o) / v
        if u0 > u1 { swap(&u0, &u1) }
        t0 = max(t0, u0)
        t1 = min(t1, u1)
        return t0 <= t1
    }
}
