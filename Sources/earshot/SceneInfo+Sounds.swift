import Earshot
import EarshotScenes
import Foundation

/// `earshot info`: a sound as text and as JSON — its clips, or for a layered sound its layers
/// (each layer's clip, gain, pitch and curves) — the same for a scene's sounds and a bank's.
extension SceneInfo {
    static func describe(_ s: SceneSound) -> String {
        var parts: [String]
        if let sw = s.switchOn {
            parts = [describe(sw)]   // SceneInfo+Timeline.swift
        } else if s.layers.isEmpty {
            parts = [
                "\(s.clips.count) clip\(s.clips.count == 1 ? "" : "s") [\(s.clips.joined(separator: ", "))]",
                s.select.rawValue,
            ]
        } else {
            parts = [
                "\(s.layers.count) layer\(s.layers.count == 1 ? "" : "s") [\(s.layers.map(describe).joined(separator: ", "))]"
            ]
        }
        if let w = s.weights { parts.append("weights \(w.map { format($0) }.joined(separator: "/"))") }
        if s.avoidRepeat > 0 { parts.append("avoidRepeat \(s.avoidRepeat)") }
        if s.pitchCents > 0 { parts.append("pitch ±\(format(s.pitchCents)) cents") }
        if s.gainDB > 0 { parts.append("gain ±\(format(s.gainDB)) dB") }
        if !s.curves.isEmpty { parts.append(describe(s.curves)) }
        if let l = s.limit {
            parts.append("limit \(l.count) (\(l.steal.rawValue))" + (l.perEmitter.map { ", \($0) per emitter" } ?? ""))
        }
        if s.cooldown > 0 { parts.append("cooldown \(format(s.cooldown)) s") }
        parts.append("bus \(s.bus)")
        parts.append("priority \(s.priority)")
        if s.loop { parts.append("loop") }
        return parts.joined(separator: ", ")
    }

    /// `hum (gain -3 dB, pitch ×2, gain by rpm (800 → 0, 5000 → -24))`: the layer's clip, then
    /// what it changes.
    static func describe(_ l: SceneLayer) -> String {
        var parts: [String] = []
        if l.gainDB != 0 { parts.append("gain \(format(l.gainDB)) dB") }
        if l.pitch != 1 { parts.append("pitch ×\(format(l.pitch))") }
        if !l.curves.isEmpty { parts.append(describe(l.curves)) }
        if let t = l.timing { parts += describe(t) }   // SceneInfo+Timeline.swift
        return l.clip + (parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))")
    }

    /// `gain by rpm (800 → 0, 5000 → -24, sCurve)`, one per curve.
    static func describe(_ curves: [ParameterCurve]) -> String {
        curves.map { c in
            let points = c.points.map { "\(format($0.x)) → \(format($0.y))" }
            return
                "\(c.property.rawValue) by \(c.parameter) (\((points + (c.shape == .linear ? [] : [c.shape.rawValue])).joined(separator: ", ")))"
        }.joined(separator: ", ")
    }

    static func json(_ curves: [ParameterCurve]) -> [[String: Any]] {
        curves.map { ["parameter": $0.parameter, "property": $0.property.rawValue, "shape": $0.shape.rawValue,
                      "points": $0.points.map { [$0.x, $0.y] }] }
    }

    /// A sound as JSON: a layered sound lists its layers, and as `clips` the clip of each layer.
    static func json(_ s: SceneSound) -> [String: Any] {
        var o: [String: Any] = ["id": s.id, "clips": s.layers.isEmpty ? s.clips : s.layers.map(\.clip),
                                "select": s.select.rawValue, "avoidRepeat": s.avoidRepeat, "gain": s.levelDB,
                                "pitchCents": s.pitchCents, "gainDB": s.gainDB, "cooldown": s.cooldown,
                                "bus": s.bus, "priority": Int(s.priority), "loop": s.loop, "curves": json(s.curves)]
        if !s.layers.isEmpty {
            o["layers"] = s.layers.map {
                var l: [String: Any] = ["clip": $0.clip, "gainDB": $0.gainDB, "pitch": $0.pitch, "curves": json($0.curves)]
                if let t = $0.timing { l["timing"] = json(t) }
                return l
            }
        }
        if let sw = s.switchOn { o["switch"] = json(sw) }
        if let w = s.weights { o["weights"] = w }
        if let l = s.limit {
            var lo: [String: Any] = ["count": l.count, "steal": l.steal.rawValue]
            if let p = l.perEmitter { lo["perEmitter"] = p }
            o["limit"] = lo
        }
        return o
    }

    /// A music track: `theme.ogg, loops -1, volume 0.8, bus music`.
    static func describe(_ m: SceneMusic) -> String {
        var parts = [(m.path as NSString).lastPathComponent]
        if m.loops != 0 { parts.append(m.loops < 0 ? "loops until stopped" : "loops \(m.loops)") }
        if m.volume != 1 { parts.append("volume \(format(Double(m.volume)))") }
        if m.rate != 1 { parts.append("rate \(format(Double(m.rate)))\(m.tape ? " (tape)" : "")") }
        if let t = m.tempo { parts.append(describe(t)) }
        parts.append("bus \(m.bus)")
        return parts.joined(separator: ", ")
    }

    static func json(_ m: SceneMusic) -> [String: Any] {
        var o: [String: Any] = [
            "id": m.id, "file": m.path, "loops": m.loops, "volume": Double(m.volume), "rate": Double(m.rate),
            "tape": m.tape, "bus": m.bus,
        ]
        if let t = m.tempo { o["tempo"] = ["bpm": t.bpm, "beatsPerBar": t.beatsPerBar, "offset": t.firstBeat] }
        return o
    }

    /// The `music:` lines: the count of entries, each track on a line, then the sets.
    static func printMusic(_ tracks: [SceneMusic], _ sets: [SceneMusicSet]) {
        say(
            "music:     \(tracks.count + sets.count)"
                + (tracks.isEmpty && sets.isEmpty
                    ? "" : " (\((tracks.map(\.id) + sets.map(\.id)).joined(separator: ", ")))"))
        for m in tracks { say("  \(m.id): track \(describe(m))") }
        if !sets.isEmpty { printMusicSets(sets) }
    }
}
