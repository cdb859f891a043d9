import Earshot
import Foundation
import Yams

/// Distance settings: the keys a file's top level (its sounds' and emitters' defaults), a sound
/// and an emitter share — `referenceDistance`, `maxDistance`, `rolloff`, `model`, `beyondMax`
/// and `curve`. Each file reads them over its own top level, so an included bank's sounds keep
/// their bank's defaults.
extension SceneParser {
    /// The distance keys, flat on a sound, an emitter or the top level.
    static let attenuationKeys = ["referenceDistance", "maxDistance", "rolloff", "model", "beyondMax", "curve"]

    /// The distance keys of mapping `m` (the top level, a sound's or an emitter's, under `key`)
    /// over `base`; the result must keep maxDistance > referenceDistance > 0. Its `explicit`
    /// fields are the keys `m` gives.
    mutating func readAttenuation(
        _ m: [String: Node], _ key: String, over base: SceneAttenuation, at node: Node
    ) -> SceneAttenuation {
        func k(_ name: String) -> String { key.isEmpty ? name : "\(key).\(name)" }
        var a = base
        a.explicit = []
        if let v = m["referenceDistance"].flatMap({ number($0, k("referenceDistance"), in: 1e-6...1e9, "metres > 0") })
        {
            a.referenceDistance = Float(v)
            a.explicit.insert(.referenceDistance)
        }
        if let v = m["maxDistance"].flatMap({ number($0, k("maxDistance"), in: 1e-6...1e12, "metres > 0") }) {
            a.maxDistance = Float(v)
            a.explicit.insert(.maxDistance)
        }
        if let v = m["rolloff"].flatMap({ number($0, k("rolloff"), in: 0...100, "0 (no attenuation) … 100") }) {
            a.rolloff = Float(v)
            a.explicit.insert(.rolloff)
        }
        if let n = m["model"], let s = choice(n, k("model"), DistanceModel.allCases.map(\.rawValue)) {
            a.model = DistanceModel(rawValue: s)
            a.explicit.insert(.distanceModel)
        }
        if let n = m["beyondMax"], let s = choice(n, k("beyondMax"), BeyondMax.allCases.map(\.rawValue)) {
            a.beyondMax = BeyondMax(rawValue: s) ?? .hold
            a.explicit.insert(.beyondMax)
        }
        if let n = m["curve"] {
            if isNull(n) {
                a.curve = nil   // `curve: null` takes a default curve away again
                a.explicit.insert(.curve)
            } else if let c = attenuationCurve(n, k("curve")) {
                a.curve = c
                a.explicit.insert(.curve)
            }
        }
        if a.maxDistance <= a.referenceDistance, m["referenceDistance"] != nil || m["maxDistance"] != nil {
            fail(m["maxDistance"] ?? m["referenceDistance"] ?? node, k("maxDistance"),
                 "maxDistance (\(a.maxDistance)) must be greater than referenceDistance (\(a.referenceDistance))")
        }
        if a.beyondMax == .silent, a.maxDistance >= .greatestFiniteMagnitude, m["beyondMax"] != nil {
            fail(
                m["beyondMax"], k("beyondMax"),
                "beyondMax: silent needs a maxDistance (here or in the file's defaults) to be silent past")
        }
        return a
    }

    /// `curve: [[distance, dB], …]`: 1…64 points, distances in metres increasing, levels in dB
    /// (−120…+12) or `silent`.
    mutating func attenuationCurve(_ node: Node, _ key: String) -> AttenuationCurve? {
        guard case .sequence(let items) = node, (1...AttenuationCurve.maxPoints).contains(items.count) else {
            fail(
                node, key,
                "expected a list of 1…\(AttenuationCurve.maxPoints) [distance, dB] points (dB a number or silent), got \(describe(node))"
            )
            return nil
        }
        var points: [(distance: Double, dB: Double)] = []
        for (i, item) in items.enumerated() {
            let pk = "\(key)[\(i)]"
            guard let pair = tuple(item, pk, count: 2,
                                   { "expected [distance, dB] (metres, then dB or silent), got \($0)" }) else {
                return nil
            }
            guard let d = number(pair[0], "\(pk)[0]", in: 0...1e9, "metres 0…1e9") else { return nil }
            let db: Double
            if case .scalar(let s) = pair[1], s.string == "silent" {
                db = AttenuationCurve.silent
            } else if let v = number(pair[1], "\(pk)[1]", in: -120...12, "dB −120…+12, or silent") {
                db = v
            } else {
                return nil
            }
            if let last = points.last, d <= last.distance {
                fail(pair[0], "\(pk)[0]", "distances must increase (\(d) m after \(last.distance) m)")
                return nil
            }
            points.append((d, db))
        }
        do {
            return try AttenuationCurve(points: points)
        } catch {
            fail(node, key, error.description)
            return nil
        }
    }
}
