import Earshot
import Foundation

/// Where something is over scene time: fixed, on a circle, or along waypoints.
///
/// Paths run on scene time (not time since an emitter started). A circle lies by default in the
/// horizontal x–z plane, starts at `center + (radius, 0, 0)` at time 0 and reaches
/// `center + (0, 0, −radius)` a quarter period later — counter-clockwise seen from above, so with
/// the default listener an orbit goes right, front, left, behind. `phase` (degrees) moves the
/// start along the circle, `clockwise` reverses the turn, and `plane` puts it upright: see
/// ``CirclePlane`` for each plane's axes. Waypoints are `[t, x, y, z]`, linear in between; before
/// the first the position is the first, after the last it is the last.
///
/// ```swift
/// let orbit = ScenePath.circle(center: .zero, radius: 5, period: 4)
/// orbit.position(at: 1)      // (0, 0, -5): in front of the listener
/// ```
public enum ScenePath: Sendable, Equatable {
    /// One point, at all times.
    case fixed(Vector3)
    /// A circle: horizontal by default, starting at angle `phase` (degrees), turning
    /// counter-clockwise unless `clockwise` (seen from the side its plane's axes face).
    case circle(center: Vector3, radius: Float, period: Double, phase: Double = 0, clockwise: Bool = false,
                plane: CirclePlane = .xz)

    /// The plane a circle lies in, as two axes: angle 0 is along the first, 90° along the second.
    public enum CirclePlane: String, Sendable, Equatable, CaseIterable {
        /// Horizontal: +x, then −z (in front of the default listener). Counter-clockwise seen from above.
        case xz
        /// Upright, facing the default listener: +x, then +y.
        case xy
        /// Upright, through the listener from front to back: −z (in front), then +y.
        case yz

        /// The two axes: angle 0 along `u`, 90° along `v`.
        public var axes: (u: Vector3, v: Vector3) {
            switch self {
            case .xz: return (Vector3(1, 0, 0), Vector3(0, 0, -1))
            case .xy: return (Vector3(1, 0, 0), Vector3(0, 1, 0))
            case .yz: return (Vector3(0, 0, -1), Vector3(0, 1, 0))
            }
        }
    }
    /// Points at given times, linear in between (times strictly increasing).
    case waypoints([Waypoint])

    /// A point of a waypoint path.
    public struct Waypoint: Sendable, Equatable {
        public var time: Double
        public var position: Vector3
    }

    /// Whether the position changes over time.
    public var moves: Bool {
        switch self {
        case .fixed: return false
        case .circle: return true
        case .waypoints(let w): return w.count > 1
        }
    }

    /// The velocity at scene time `t`, in metres per second, for the Doppler effect: exact for a
    /// circle (tangent, `2π·radius/period`), the segment's constant velocity between two
    /// waypoints (at a waypoint, the segment that starts there), zero when fixed or before the
    /// first and after the last waypoint.
    ///
    /// ```swift
    /// let pass = ScenePath.waypoints([.init(time: 0, position: Vector3(-200, 0, -5)),
    ///                                 .init(time: 10, position: Vector3(200, 0, -5))])
    /// pass.velocity(at: 3)       // (40, 0, 0)
    /// ```
    public func velocity(at t: Double) -> Vector3 {
        switch self {
        case .fixed:
            return .zero
        case .circle(_, let radius, let period, let phase, let clockwise, let plane):
            let omega = (clockwise ? -1 : 1) * 2 * Double.pi / period
            let angle = phase * Double.pi / 180 + omega * t
            let (u, v) = plane.axes
            let r = Double(radius) * omega
            return u * Float(-r * sin(angle)) + v * Float(r * cos(angle))
        case .waypoints(let points):
            guard let first = points.first, let last = points.last, t >= first.time, t < last.time else { return .zero }
            let (lo, hi) = Self.segment(points.count, at: t) { points[$0].time }
            let a = points[lo], b = points[hi]
            return (b.position - a.position) * Float(1 / (b.time - a.time))
        }
    }

    /// The two neighbouring keys (by index) around `t` among `count` keys whose times (`time(i)`)
    /// increase strictly: a binary search, for `t` between the first and the last key.
    static func segment(_ count: Int, at t: Double, time: (Int) -> Double) -> (lo: Int, hi: Int) {
        var lo = 0, hi = count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if time(mid) <= t { lo = mid } else { hi = mid }
        }
        return (lo, hi)
    }

    /// The position at scene time `t` (seconds).
    public func position(at t: Double) -> Vector3 {
        switch self {
        case .fixed(let p):
            return p
        case .circle(let center, let radius, let period, let phase, let clockwise, let plane):
            let angle = phase * Double.pi / 180 + (clockwise ? -1 : 1) * 2 * Double.pi * (t / period)
            let r = Double(radius)
            let (u, v) = plane.axes
            return center + u * Float(r * cos(angle)) + v * Float(r * sin(angle))
        case .waypoints(let points):
            guard let first = points.first, let last = points.last else { return .zero }
            if t <= first.time { return first.position }
            if t >= last.time { return last.position }
            let (lo, hi) = Self.segment(points.count, at: t) { points[$0].time }
            let a = points[lo], b = points[hi]
            let f = Float((t - a.time) / (b.time - a.time))
            return a.position + (b.position - a.position) * f
        }
    }
}
