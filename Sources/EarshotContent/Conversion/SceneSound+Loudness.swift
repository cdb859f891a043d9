import Earshot
import Foundation

/// A sound's `loudness:`: the gain that brings its clips to the target, applied on top of its
/// own level (`gain:`) and before its curves.
extension SceneSound {
    /// The loudness of the sound's clips as one number (LUFS; nil: silent or none measured): a
    /// sound picking among clips is heard as the power mean of them (each its `ClipLoudness`);
    /// a layered sound as its layers together, each at its layer gain. Each clip is measured as
    /// it plays: its file's loudness plus `clipDecibels[id]` (its own `loudness:` and `gain:`,
    /// ``SceneClip/playDecibels(_:)``), so the sound's target is what is heard.
    public func clipLoudness(clipPaths: [String: String], clipDecibels: [String: Double] = [:]) throws(EarshotError) -> Double? {
        var power = 0.0, count = 0
        if layers.isEmpty {
            for id in clips {
                guard let path = clipPaths[id], let l = try ClipLoudness.measure(path: path).lufs else { continue }
                power += pow(10, (l + (clipDecibels[id] ?? 0)) / 10)
                count += 1
            }
            return count > 0 ? 10 * log10(power / Double(count)) : nil
        }
        for layer in layers {
            guard let path = clipPaths[layer.clip], let l = try ClipLoudness.measure(path: path).lufs else { continue }
            power += pow(10, (l + (clipDecibels[layer.clip] ?? 0) + layer.gainDB) / 10)
            count += 1
        }
        return count > 0 ? 10 * log10(power) : nil
    }

    /// The linear factor `loudness:` multiplies the sound's gain by (1 without it, or for silent
    /// clips), with its clips measured as they play (`clipDecibels`, as in ``clipLoudness(clipPaths:clipDecibels:)``).
    /// Throws what measuring a clip throws.
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/mix.yaml")
    /// let paths = Dictionary(scene.clips.map { ($0.id, $0.path) }, uniquingKeysWith: { a, _ in a })
    /// let factors = try scene.sounds.map { try $0.loudnessFactor(clipPaths: paths) }   // 1 where no loudness: is set
    /// ```
    public func loudnessFactor(clipPaths: [String: String], clipDecibels: [String: Double] = [:]) throws(EarshotError) -> Float {
        guard let target = loudness, let measured = try clipLoudness(clipPaths: clipPaths, clipDecibels: clipDecibels) else { return 1 }
        return Float(pow(10, (target - measured) / 20))
    }
}
