import Earshot
import Yams

/// Where the scene is heard from: `listener:` (one), or `listeners:` (split screen: a list of
/// 1…8, each written as `listener:` is, with an optional `weight:` 0…1); not both.
extension SceneParser {
    /// The first listener and the others.
    mutating func sceneListeners(_ top: [String: Node]) -> (SceneListener, [SceneListener]) {
        guard let n = top["listeners"] else {
            return (top["listener"].map { sceneListener($0) } ?? SceneListener(), [])
        }
        if let one = top["listener"] {
            fail(one, "listener", "give either listener: or listeners:, not both")
        }
        guard case .sequence(let items) = n, !items.isEmpty else {
            fail(n, "listeners", "expected a list of 1…\(AudioEngine.maxListeners) listeners, got \(describe(n))")
            return (SceneListener(), [])
        }
        guard within(n, "listeners", AudioEngine.maxListeners, "listeners") else { return (SceneListener(), []) }
        let all = items.enumerated().map { i, item in sceneListener(item, key: "listeners[\(i)]", weighted: true) }
        return (all[0], Array(all.dropFirst()))
    }
}
