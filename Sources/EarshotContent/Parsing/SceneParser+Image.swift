import Earshot
import Yams

/// Stereo clips' image: `spatial: 2d | 3d` and `spread:` on sounds (scenes and banks),
/// `spread:` on emitters and play events (<doc:StereoAndSpread> in Earshot's documentation).
extension SceneParser {
    static let imageKeys = ["spatial", "spread"]

    /// A sound's `spatial:` and `spread:`.
    mutating func soundImage(_ m: [String: Node], _ key: String, into s: inout SceneSound) {
        if let n = m["spatial"],
           let v = choice(n, "\(key).spatial", SpatialMode.allCases.map(\.rawValue).filter { $0 != "auto" })
        {
            s.spatialMode = SpatialMode(rawValue: v) ?? .auto
        }
        s.spread = m["spread"].flatMap { spread($0, "\(key).spread") }
        if s.spatialMode == .twoD, let n = m["spread"] {
            fail(n, "\(key).spread", "spread places a stereo clip around a position; a 2d sound has none")
        }
    }

    /// `spread:` degrees, 0…360.
    mutating func spread(_ node: Node, _ key: String) -> Float? {
        number(node, key, in: 0...360, "degrees 0…360").map(Float.init)
    }
}
