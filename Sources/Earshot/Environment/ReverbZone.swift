#if canImport(Glibc)
import Glibc
#endif

/// A region of the world with its own reverb: a small room, a hangar, a cave.
///
/// A zone has a shape in world coordinates (a sphere or an axis-aligned box), reverb parameters
/// (a preset of `efx-presets.h` or explicit values) and a fade distance: inside the shape the
/// zone is fully audible (weight 1); outside, its weight falls smoothly (a smoothstep, no kink
/// and so no audible corner) to 0 at `fade` metres from the shape. ``ZoneBlend`` turns the
/// zones and the listener into what each auxiliary send carries. Pure math: no OpenAL needed.
///
/// ```swift
/// let hangar = ReverbZone(name: "hangar", shape: .box(center: Vector3(0, 5, -40), size: Vector3(60, 10, 40)),
///                         reverb: try ReverbProperties.preset(named: "hangar"), fade: 4)
/// print(hangar.weight(at: Vector3(0, 1.7, 0)))     // 0: 20 m from its wall, beyond its 4 m fade
/// ```
public struct ReverbZone: Sendable, Equatable {
    /// Where a zone is.
    public enum Shape: Sendable, Equatable {
        /// A ball around `center`.
        case sphere(center: Vector3, radius: Float)
        /// An axis-aligned box: `size` is its full extent along x, y and z.
        case box(center: Vector3, size: Vector3)
    }

    /// The zone's name: it orders zones that are equally near, so choices are deterministic.
    public var name: String
    public var shape: Shape
    public var reverb: ReverbProperties
    /// Metres outside the shape over which the zone fades out (0: heard only inside).
    public var fade: Float
    /// A gain on the whole zone's reverb, 0…1.
    public var gain: Float

    public init(name: String, shape: Shape, reverb: ReverbProperties, fade: Float = 2, gain: Float = 1) {
        self.name = name
        self.shape = shape
        self.reverb = reverb
        self.fade = fade
        self.gain = gain
    }

    /// The zone unchanged when its shape, fade, gain and reverb are usable; otherwise
    /// ``EarshotError/invalidArgument(_:)`` naming what is wrong.
    public func validated() throws(EarshotError) -> ReverbZone {
        switch shape {
        case .sphere(let c, let r):
            guard c.isFinite, r.isFinite, r > 0 else {
                throw .invalidArgument("zone \(name): sphere radius \(r) must be finite and > 0")
            }
        case .box(let c, let s):
            guard c.isFinite, s.isFinite, s.x > 0, s.y > 0, s.z > 0 else {
                throw .invalidArgument("zone \(name): box size \(s) must be finite and > 0 on every axis")
            }
        }
        guard fade.isFinite, fade >= 0 else {
            throw .invalidArgument("zone \(name): fade \(fade) must be finite and ≥ 0")
        }
        guard gain.isFinite, (0...1).contains(gain) else {
            throw .invalidArgument("zone \(name): gain \(gain) is outside 0…1")
        }
        _ = try reverb.validated()
        return self
    }

    /// The point of the shape nearest to `p` (`p` itself when it is inside).
    public func nearestPoint(to p: Vector3) -> Vector3 {
        switch shape {
        case .sphere(let c, let r):
            let d = p - c
            let l = d.length
            return l <= r ? p : c + d * (r / l)
        case .box(let c, let s):
            let h = s * 0.5
            return Vector3(min(max(p.x, c.x - h.x), c.x + h.x),
                           min(max(p.y, c.y - h.y), c.y + h.y),
                           min(max(p.z, c.z - h.z), c.z + h.z))
        }
    }

    /// Metres from `p` to the shape (0 inside).
    public func distance(from p: Vector3) -> Float { (nearestPoint(to: p) - p).length }

    /// How much of the zone is heard at `p`: 1 inside, falling by a smoothstep to 0 at ``fade``
    /// metres outside.
    public func weight(at p: Vector3) -> Float {
        let d = distance(from: p)
        if d <= 0 { return 1 }
        guard fade > 0, d < fade else { return 0 }
        let t = d / fade
        return 1 - t * t * (3 - 2 * t)
    }

    /// The radius of the opening a listener outside "sees": the sphere's radius, or for a box
    /// the radius of a sphere of the same volume. Sets how fast the reverb narrows to a point
    /// with distance (see ``ZoneBlend``).
    public var apparentRadius: Float {
        switch shape {
        case .sphere(_, let r): return r
        case .box(_, let s): return cbrtf(s.x * s.y * s.z * 3 / (4 * .pi))
        }
    }
}
