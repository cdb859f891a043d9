import Earshot
import Foundation
import Yams

/// A bank's schema: the scene language without the timeline. A bank holds `clips:`, `sounds:`,
/// `buses:`, `snapshots:`, `zones:`, `music:`, `parameters:` and a `dialogue:` line table (and `include:`s other banks), with the scene's
/// attenuation keys for its sounds' positioned plays; what a game plays from it is up to the game
/// (EarshotBanks' `SoundBank`).
extension SceneParser {
    /// The top-level keys of a bank.
    static let bankKeys = ["name", "include", "clips", "sounds", "buses", "snapshots", "zones", "music", "parameters",
                           "vcas", "rooms", "portals", "beds", "dialogue"] + attenuationKeys

    /// The top-level mapping with the keys of a scene or, for a bank, of a bank: a scene key a
    /// bank has no use for (the timeline, the render settings) is refused with a reason.
    mutating func topMapping(_ root: Node) -> [String: Node]? {
        guard isBank else { return mapping(root, "", allowed: Self.topKeys, required: ["duration"]) }
        if case .mapping = root {
            for (k, _) in merged(root) {
                guard case .scalar(let s) = k, Self.topKeys.contains(s.string), !Self.bankKeys.contains(s.string) else {
                    continue
                }
                fail(
                    k, s.string,
                    "a bank has no \(s.string): (it is a scene's; a bank holds only \(Self.bankKeys.joined(separator: ", ")))"
                )
            }
        }
        // What a bank has no use for is not read further: a timeline's repeats would otherwise
        // be built (up to a million events) only to be refused.
        return mapping(root, "", allowed: Self.topKeys)?.filter { Self.bankKeys.contains($0.key) }
    }
}
