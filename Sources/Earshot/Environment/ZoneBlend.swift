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
        guard sends > 0 else { return [] }
        let p = listener.position
        var audible: [(index: Int, distance: Float, weight: Float)] = []
        for (i, zone) in zones.enumerated() {
            let w = zone.weight(at: p)
            if w > 0 { audible.append((i, zone.distance(from: p), w)) }
        }
        audible.sort { a, b in
            a.distance != b.distance ? a.distance < b.distance
                : zones[a.index].name != zones[b.index].name ? zones[a.index].name < zones[b.index].name : a.index < b.index
        }
        let chosen = audible.prefix(sends)
        let total = max(1, chosen.reduce(0) { $0 + $1.weight })
        let frame = ListenerFrame(listener)
        return chosen.map { c in
            let zone = zones[c.index]
            var pan = Vector3.zero
            if c.distance > 0 {
                let toward = frame.local(zone.nearestPoint(to: p) - p).normalized
                let magnitude = 1 - 2 / Float.pi * atanf(zone.apparentRadius / c.distance)
                pan = toward * max(0, min(1, magnitude))
            }
            return Send(zone: c.index, gain: zone.gain * (c.weight / total).squareRoot(), pan: pan)
        }
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
