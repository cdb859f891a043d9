import Earshot
import EarshotScenes
import Foundation

/// `earshot info`: a scene's music sets — their states (what each plays, its tempo), transition
/// rules, stingers and bridges.
extension SceneInfo {
    static func describe(_ t: Tempo?) -> String {
        guard let t else { return "no tempo" }
        return "\(format(t.bpm)) bpm, \(t.beatsPerBar) beats a bar"
            + (t.firstBeat > 0 ? " from \(format(t.firstBeat)) s" : "")
    }

    static func describe(_ s: MusicState) -> String {
        let file = { (seg: MusicSegment) in (seg.path as NSString).lastPathComponent }
        switch s.content {
        case .track(let seg):
            return "\(s.name): track \(file(seg)), \(describe(seg.tempo))" + cueText(seg)
        case .segments(let list):
            return
                "\(s.name): segments \(list.map(file).joined(separator: " → ")) (the last loops), \(describe(list.first?.tempo))"
        case .layers(let layers):
            let stems = layers.map {
                "\($0.name) \(file($0.segment))" + ($0.gain != 1 ? " gain \(format(Double($0.gain)))" : "")
            }
            return "\(s.name): layers \(stems.joined(separator: ", ")), \(describe(layers.first?.segment.tempo))"
        }
    }

    static func cueText(_ seg: MusicSegment) -> String {
        var parts: [String] = []
        if !seg.cues.isEmpty {
            parts.append(
                "cues "
                    + seg.cues.sorted { $0.value < $1.value }.map { "\($0.key) \(format($0.value)) s" }.joined(
                        separator: ", "))
        }
        if let e = seg.entry { parts.append("entry \(e)") }
        if let x = seg.exit { parts.append("exit \(x)") }
        if let l = seg.loop { parts.append("loop \(point(l.start))…\(l.end.map(point) ?? "end")") }
        return parts.isEmpty ? "" : "; " + parts.joined(separator: "; ")
    }

    static func point(_ p: MusicLoop.Point) -> String {
        switch p {
        case .seconds(let t): return "\(format(t)) s"
        case .cue(let name): return name
        }
    }

    static func describe(_ t: MusicTransition) -> String {
        var s = "\(t.from) → \(t.to) at \(t.at.rawValue)"
        let curve = t.curve == .linear ? "linear" : "equalPower"
        if t.fade > 0 || t.fadeIn > 0 {
            s +=
                t.fade == t.fadeIn
                ? ", fade \(format(t.fade)) s \(curve)"
                : ", fade out \(format(t.fade)) s, in \(format(t.fadeIn)) s \(curve)"
        }
        if let st = t.stinger { s += ", stinger \(st)" }
        if let v = t.via { s += ", via \(v)" }
        return s
    }

    static func printMusicSets(_ sets: [SceneMusicSet]) {
        say("music sets: \(sets.count)")
        for set in sets {
            let d = set.definition
            say("  \(set.id) (bus \(d.bus.name)):")
            for s in d.states { say("    state \(describe(s))") }
            for t in d.transitions { say("    transition \(describe(t))") }
            if !d.stingers.isEmpty { say("    stingers: \(d.stingers.keys.sorted().joined(separator: ", "))") }
            if !d.bridges.isEmpty { say("    bridges: \(d.bridges.keys.sorted().joined(separator: ", "))") }
        }
    }

    static func musicSetsJSON(_ sets: [SceneMusicSet]) -> [[String: Any]] {
        sets.map { set -> [String: Any] in
            let d = set.definition
            return [
                "id": set.id, "bus": d.bus.name,
                "states": d.states.map { s -> [String: Any] in
                    var o: [String: Any] = ["name": s.name, "files": s.segments.map(\.path)]
                    switch s.content {
                    case .track: o["kind"] = "track"
                    case .segments: o["kind"] = "segments"
                    case .layers(let ls): o["kind"] = "layers"; o["layers"] = ls.map(\.name)
                    }
                    if let t = s.segments.first?.tempo {
                        o["tempo"] = ["bpm": t.bpm, "beatsPerBar": t.beatsPerBar, "offset": t.firstBeat]
                    }
                    return o
                },
                "transitions": d.transitions.map { t -> [String: Any] in
                    var o: [String: Any] = [
                        "from": t.from, "to": t.to, "at": t.at.rawValue, "fade": t.fade, "fadeIn": t.fadeIn,
                        "curve": t.curve == .linear ? "linear" : "equalPower",
                    ]
                    if let s = t.stinger { o["stinger"] = s }
                    if let v = t.via { o["via"] = v }
                    return o
                },
                "stingers": d.stingers.keys.sorted(), "bridges": d.bridges.keys.sorted(),
            ]
        }
    }
}
