/// Several listeners heard through OpenAL's one: each place in the world is heard from its
/// nearest listener — distance, direction and Doppler as that listener has them (FMOD's rule) —
/// mapped into the first listener's frame, which is OpenAL's.
///
/// The rule, for a point at distance `dₖ` from listener `k` of weight `wₖ`:
/// - each listener's share is `aₖ ∝ wₖ · dₖ^−p` (p = ``sharpness``, normalised to sum 1): the
///   nearest takes it all unless another is about as near — at 55 % farther the nearer still
///   takes 90 % —, so the hand-over as a point walks from one listener to another is continuous;
///   a weight of 0 takes nothing (when every weight is 0 the first listener hears everything);
/// - the heard distance is `exp(Σ aₖ ln dₖ)` (the nearest's distance when it takes it all), the
///   heard direction the shares' weighted mean on the sphere (slerp, one listener at a time from
///   the nearest) of the directions `uₖ` each listener sees it at, in its own frame (right, up,
///   back): two listeners seeing it on opposite sides hand it over through the front, turning
///   in step with the shares;
/// - Doppler: the pitch ratio `Σ aₖ rₖ` of each listener's OpenAL ratio
///   `rₖ = (c − vₗ)/(c − vₛ)`, which the heard velocity reproduces against the first
///   listener's velocity in OpenAL's formula;
/// - the cone turns with the direction.
/// With one listener the engine installs no blend and maps nothing.
final class ListenerBlend: ListenerRig {
    /// The exponent of the shares (see above): larger is a sharper hand-over.
    static let sharpness: Float = 5

    struct Pose {
        var position: Vector3
        var velocity: Vector3
        var right: Vector3
        var up: Vector3
        var back: Vector3
        /// ln(weight), −∞ for weight 0.
        var logWeight: Float

        init(_ l: Listener) {
            position = l.position
            velocity = l.velocity
            back = (-l.at).normalized
            right = l.up.cross(back).normalized
            up = back.cross(right)
            logWeight = l.weight > 0 ? logf(l.weight) : -.infinity
        }

        /// `v` (a direction in the world) in this listener's frame.
        @inline(__always) func local(_ v: Vector3) -> Vector3 { Vector3(v.dot(right), v.dot(up), v.dot(back)) }
        /// `v` (a direction in this listener's frame) in the world.
        @inline(__always) func world(_ v: Vector3) -> Vector3 { right * v.x + up * v.y + back * v.z }
    }

    private var poses: [Pose] = []
    /// Per listener, scratch for one mapping (sized once: mapping allocates nothing).
    private var shares: [Float]
    private var distances: [Float]
    let dopplerFactor: Float
    let speedOfSound: Float

    init(dopplerFactor: Float, speedOfSound: Float) {
        self.dopplerFactor = dopplerFactor
        self.speedOfSound = speedOfSound
        poses.reserveCapacity(ListenerTable.maxListeners)
        shares = [Float](repeating: 0, count: ListenerTable.maxListeners)
        distances = [Float](repeating: 0, count: ListenerTable.maxListeners)
    }

    /// The listeners, the first (OpenAL's) first; at most ``ListenerTable/maxListeners``.
    func update<S: Sequence<Listener>>(_ listeners: S) {
        poses.removeAll(keepingCapacity: true)
        for l in listeners where poses.count < ListenerTable.maxListeners { poses.append(Pose(l)) }
    }

    /// Each listener's share of a point at `p` (in ``shares``; ``distances`` filled too).
    private func share(_ p: Vector3) {
        var best = -Float.infinity
        for k in poses.indices {
            let d = (p - poses[k].position).length
            distances[k] = d
            let score = poses[k].logWeight - Self.sharpness * logf(max(d, 1e-4))
            shares[k] = score
            best = max(best, score)
        }
        guard best > -.infinity else {   // every weight 0: the first listener hears it all
            for k in poses.indices { shares[k] = k == 0 ? 1 : 0 }
            return
        }
        var sum: Float = 0
        for k in poses.indices {
            let a = expf(shares[k] - best)   // −∞ (weight 0) → 0
            shares[k] = a
            sum += a
        }
        for k in poses.indices { shares[k] /= sum }
    }

    func heard(_ world: SpatialProperties) -> SpatialProperties {
        guard !world.isRelative, let first = poses.first else { return world }
        let p = world.position
        share(p)
        var logDistance: Float = 0, cone = Vector3.zero
        var dominant = 0
        for k in poses.indices where shares[k] > 0 {
            if shares[k] > shares[dominant] { dominant = k }
            logDistance += shares[k] * logf(max(distances[k], 1e-6))
            cone = cone + poses[k].local(world.direction) * shares[k]
        }
        var out = world
        let distance = distances[dominant] == 0 ? 0 : expf(logDistance)
        var direction = view(dominant, p)
        var taken = shares[dominant]
        for k in poses.indices where k != dominant && shares[k] > 0 {
            taken += shares[k]
            direction = Self.slerp(direction, view(k, p), shares[k] / taken)
        }
        let heardLocal = direction.normalized * distance
        out.position = first.position + first.world(heardLocal)
        if world.direction != .zero { out.direction = first.world(cone) }
        out.velocity = heardVelocity(world.velocity, at: p, heardLocal: heardLocal, distance: distance, first: first)
        // Past Float's range (a point 1e20 m away: its squared distance overflows) the mapping
        // is not finite: such a point is heard as the first listener hears it, never sent as NaN.
        guard out.position.isFinite, out.velocity.isFinite, out.direction.isFinite else { return world }
        return out
    }

    /// Where listener `k` hears a point at `p`: the unit direction in its frame (ahead for a
    /// point at the listener).
    private func view(_ k: Int, _ p: Vector3) -> Vector3 {
        let d = distances[k]
        return d > 0 ? poses[k].local((p - poses[k].position) * (1 / d)) : Vector3(0, 0, -1)
    }

    /// The unit vector a fraction `t` of the way from `u` to `v` (unit vectors) along the great
    /// circle; opposite vectors turn through the front (−z), or above for a front and a back.
    static func slerp(_ u: Vector3, _ v: Vector3, _ t: Float) -> Vector3 {
        let cosine = max(-1, min(1, u.dot(v)))
        let angle = acosf(cosine)
        guard angle > 1e-4 else { return v }
        var axis = v - u * cosine   // v's part perpendicular to u
        if axis.length < 1e-4 {   // opposite: through the front, or above
            let front = Vector3(0, 0, -1)
            axis = front - u * u.dot(front)
            if axis.length < 1e-4 { axis = Vector3(0, 1, 0) - u * u.y }
        }
        let w = axis.normalized
        return u * cosf(angle * t) + w * sinf(angle * t)
    }

    /// The velocity that gives, in OpenAL's Doppler formula against the first listener, the
    /// shares' blend of each listener's pitch ratio for a source at `p` moving at `v`.
    private func heardVelocity(_ v: Vector3, at p: Vector3, heardLocal: Vector3, distance: Float,
                               first: Pose) -> Vector3 {
        let factor = dopplerFactor, c = speedOfSound
        guard factor > 0, c > 0, distance > 0 else { return .zero }
        var ratio: Float = 0
        for k in poses.indices where shares[k] > 0 {
            let d = distances[k]
            guard d > 0 else { ratio += shares[k]; continue }
            let toListener = (poses[k].position - p) * (1 / d)
            let vs = min(v.dot(toListener) * factor, c * 0.999)
            let vl = min(poses[k].velocity.dot(toListener) * factor, c)
            ratio += shares[k] * (c - vl) / (c - vs)
        }
        // OpenAL: ratio = (c − vₗ)/(c − vₛ) with vₗ the first listener's speed towards the heard
        // position's direction; the heard source speed that gives the blend's ratio.
        let toFirst = first.world(-heardLocal * (1 / distance))
        let vl = first.velocity.dot(toFirst) * factor
        let vs = c - (c - vl) / max(ratio, 1e-3)
        return toFirst * (vs / factor)
    }
}

#if canImport(Glibc)
import Glibc
#endif
