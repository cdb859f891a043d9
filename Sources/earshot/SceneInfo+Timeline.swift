import Earshot
import EarshotScenes

/// `earshot info`: a timeline layer's place (delay, clips, variation, loop, sustain, tail) and
/// a switch's cases, as text and as JSON.
extension SceneInfo {
    /// `delay 0.2 s`, `clips step/coin shuffle`, `pitch ±50 cents`, `sustain`, `tail`, …
    static func describe(_ t: SceneLayerTiming) -> [String] {
        var parts: [String] = []
        if t.delay > 0 { parts.append("delay \(format(t.delay)) s") }
        if !t.alternatives.isEmpty { parts.append("or \(t.alternatives.joined(separator: "/")) (\(t.select.rawValue))") }
        if t.pitchCents > 0 { parts.append("pitch ±\(format(t.pitchCents)) cents") }
        if t.gainDB > 0 { parts.append("gain ±\(format(t.gainDB)) dB") }
        if let loop = t.loop { parts.append(loop ? "loop" : "one-shot") }
        if t.sustain { parts.append("sustain") }
        if t.tail { parts.append("tail") }
        return parts
    }

    /// `switch on surface: gravel → stepGravel, wood → stepWood, default stepMetal, follow 0.1 s`.
    static func describe(_ sw: SceneSwitch) -> String {
        var parts = sw.cases.map { "\($0.label) → \($0.sound)" }
        if let d = sw.defaultSound { parts.append("default \(d)") }
        if sw.follow { parts.append("follow \(format(sw.fade)) s") }
        return "switch on \(sw.parameter): " + parts.joined(separator: ", ")
    }

    static func json(_ t: SceneLayerTiming) -> [String: Any] {
        var o: [String: Any] = ["delay": t.delay, "clips": t.alternatives, "select": t.select.rawValue,
                                "pitchCents": t.pitchCents, "gainDB": t.gainDB, "sustain": t.sustain, "tail": t.tail]
        if let loop = t.loop { o["loop"] = loop }
        return o
    }

    static func json(_ sw: SceneSwitch) -> [String: Any] {
        var o: [String: Any] = ["parameter": sw.parameter, "cases": Dictionary(sw.cases.map { ($0.label, $0.sound) },
                                                                                uniquingKeysWith: { a, _ in a }),
                                "follow": sw.follow, "fade": sw.fade]
        if let d = sw.defaultSound { o["default"] = d }
        return o
    }
}
