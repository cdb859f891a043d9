import Earshot
import Foundation

/// Ambisonic beds for the scene fuzzer (issue 39): `beds:` entries from every key in valid
/// combinations and at and past their ranges' edges (a file with no ambisonic channel count, a
/// missing one, unknown formats and locks, yaws beyond ±3600, starts past the end), and bed
/// events (play/stop with fades, yaw ramps, and the refused mixtures).
extension SceneValueFuzzer {
    /// The `beds:` section (or "") and the ids it defines.
    func beds(_ g: inout SplitMix64, outside: Bool) -> (yaml: String, ids: [String]) {
        guard bedChance > 0, Self.chance(&g, bedChance) else { return ("", []) }
        func n(_ r: ClosedRange<Double>) -> String { Self.number(&g, r, outside: outside && Self.chance(&g, 0.15)) }
        let files = outside ? ["Ambience/forest-foa.ogg", "Sounds/wind-stereo.caf", "Sounds/nowhere.wav"] : ["Ambience/forest-foa.ogg"]
        var y = "beds:\n"
        var ids: [String] = []
        for i in 0..<(1 + Int(g.next() % 2)) {
            var m = "file: \(assets)/\(Self.pick(&g, files))"
            if Self.chance(&g, 0.5) { m += ", format: \(Self.pick(&g, outside ? ["ambix", "fuma", "acn"] : ["ambix", "fuma"]))" }
            if Self.chance(&g, 0.5) { m += ", gain: \(n(-120...12)) dB" }
            if Self.chance(&g, 0.3) { m += ", bus: \(Self.pick(&g, outside ? ["ambience", "music", "nowhere"] : ["ambience", "music", "sfx"]))" }
            if Self.chance(&g, 0.5) { m += ", lock: \(Self.pick(&g, outside ? ["world", "head", "torso"] : ["world", "head"]))" }
            if Self.chance(&g, 0.5) { m += ", yaw: \(n(-3_600...3_600))" }
            if Self.chance(&g, 0.4) { m += ", start: \(n(0...0.3))" }
            y += "  b\(i): { \(m) }\n"
            ids.append("b\(i)")
        }
        return (y, ids)
    }

    /// One bed event's keys (without `at:`).
    func bedEvent(_ g: inout SplitMix64, ids: [String], outside: Bool) -> String {
        func n(_ r: ClosedRange<Double>) -> String { Self.number(&g, r, outside: outside && Self.chance(&g, 0.15)) }
        let id = outside && Self.chance(&g, 0.1) ? "nobed" : Self.pick(&g, ids)
        switch g.next() % 4 {
        case 0: return "bed: \(id), yaw: \(n(-3_600...3_600)), ramp: \(n(0...600))"
        case 1 where outside: return "bed: \(id), action: \(Self.pick(&g, ["play", "pause"])), yaw: \(n(-90...90))"
        default: return "bed: \(id), action: \(Self.pick(&g, ["play", "stop"])), fade: \(n(0...600))"
        }
    }
}
