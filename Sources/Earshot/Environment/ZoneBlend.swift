/// Which reverb zones are heard from where the listener stands, and how: the decision behind
/// every auxiliary send. Pure math, usable without OpenAL.
///
/// **Choice.** A zone is audible when its ``ReverbZone/weight(at:)`` is above 0. With more
/// audible zones than sends, the nearest win (distance to the shape; 0 inside), ties broken by
/// name, so the same scene always makes the same choice.
///
/// **Energy.** Reverb energy is shared between the chosen zones: each gets
/// `gain = zone.gain × √(w / max(1, Σw))` (gain² is energy). Inside one zone with no other near,
/// that is the zone's full gain; halfway through a doorway two zones each get √½; out in the
/// open, far from every zone, the reverb fades with the weights.
///
/// **Pan.** Inside a zone its reverb surrounds the listener (pan length 0). Outside, the
/// reflections and tail come from the zone's nearest point, in the listener's frame (EAX's
/// left-handed axes: +x right, +y up, +z ahead), with a length
/// `1 − (2/π)·atan(r / d)` — 0 at the wall, approaching 1 (a point) far away, where `r` is the
/// zone's ``ReverbZone/apparentRadius`` and `d` the distance.
///
/// ```swift
/// let room = ReverbZone(name: "room", shape: .sphere(center: .zero, radius: 3),
///                       reverb: try ReverbProperties.preset(named: "room"))
/// let sends = ZoneBlend.mix(zones: [room], listener: Listener(position: Vector3(0, 0, 4)), sends: 2)
/// print(sends[0].gain, sends[0].pan)   // heard from the room, 1 m behind the listener's back
/// ```
public enum ZoneBlend {
    /// What one send carries: which zone (an index into the zones given), at what gain, from where.
    public struct Send: Sendable, Equatable {
        /// The zone's index in the array given to ``ZoneBlend/mix(zones:listener:sends:)``.
        public var zone: Int
        /// The reverb's gain on this send (energy-shared, × the zone's gain).
        public var gain: Float
        /// Where the reverb comes from, in the listener's EAX frame; length 0 all around, 1 a point.
        public var pan: Vector3

        public init(zone: Int, gain: Float, pan: Vector3) {
            self.zone = zone
            self.gain = gain
            self.pan = pan
        }
    }

    /// The sends for `zones` heard by `listener`, at most `sends` of them, nearest first.
    public static func mix(zones: [ReverbZone], listener: Listener, sends: Int) -> [Send] {
        var out: [Send] = []
        var scratch: [Candidate] = []
        mix(zones: zones, listener: listener, sends: sends, into: &out, scratch: &scratch)
        return out
    }

    /// An audible zone while choosing: its index, distance and weight.
    struct Candidate {
        var index: Int
        var distance: Float
        var weight: Float
    }

    /// ``mix(zones:listener:sends:)`` into storage the caller keeps, so that a frame allocates
    /// nothing once the arrays have grown to the number of zones.
    static func mix(
        zones: [ReverbZone], listener: Listener, sends: Int, into out: inout [Send], scratch: inout [Candidate]
    ) {
        out.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        guard sends > 0 else { return }
        let p = listener.position
        for i in zones.indices {
            let w = zones[i].weight(at: p)
            if w > 0 { scratch.append(Candidate(index: i, distance: zones[i].distance(from: p), weight: w)) }
        }
        // Insertion sort: a handful of zones, and no closure context to allocate.
        if scratch.count > 1 {
            for i in 1..<scratch.count {
                let c = scratch[i]
                var j = i - 1
                while j >= 0, nearer(c, than: scratch[j], zones) {
                    scratch[j + 1] = scratch[j]
                    j -= 1
                }
                scratch[j + 1] = c
            }
        }
        let n = min(sends, scratch.count)
        var total: Float = 0
        for k in 0..<n { total += scratch[k].weight }
        total = max(1, total)
        let frame = ListenerFrame(listener)
        for k in 0..<n {
            let c = scratch[k]
            let zone = zones[c.index]
            var pan = Vector3.zero
            if c.distance > 0 {
                let toward = frame.local(zone.nearestPoint(to: p) - p).normalized
                let magnitude = 1 - 2 / Float.pi * atanf(zone.apparentRadius / c.distance)
                pan = toward * max(0, min(1, magnitude))
            }
            out.append(Send(zone: c.index, gain: zone.gain * (c.weight / total).squareRoot(), pan: pan))
        }
    }

    /// Nearest first; equally near zones by name, then by index.
    private static func nearer(_ a: Candidate, than b: Candidate, _ zones: [ReverbZone]) -> Bool {
        if a.distance != b.distance { return a.distance < b.distance }
        if zones[a.index].name != zones[b.index].name { return zones[a.index].name < zones[b.index].name }
        return a.index < b.index
    }

    /// The listener's axes, to express world directions in EAX's listener-relative frame.
    struct ListenerFrame {
        let right: Vector3, up: Vector3, ahead: Vector3

        init(_ l: Listener) {
            let ahead = l.at.normalized
            var right = ahead.cross(l.up).normalized
            if right.length == 0 { right = Vector3(1, 0, 0) }   // `up` parallel to `at`: any right
            self.ahead = ahead
            self.right = right
            self.up = right.cross(ahead)
        }

        /// `v` in the listener's frame, left-handed: (right, up, ahead).
        func local(_ v: Vector3) -> Vector3 { Vector3(v.dot(right), v.dot(up), v.dot(ahead)) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
