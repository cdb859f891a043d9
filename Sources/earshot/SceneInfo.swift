import Earshot
import EarshotScenes
import Foundation

/// `earshot info SCENE`: what a scene holds — clips, sounds with their selection, variation,
/// limit and cooldown, snapshots, buses with their ducking, music, emitters, events.
struct SceneInfo {
    let scene: Scene

    static func isScene(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        return ext == "yaml" || ext == "yml"
    }

    init(path: String) {
        switch Scene.check(path: path) {
        case .success(let s): scene = s
        case .failure(let problems): SceneDescription.fail(problems, path: path)   // each problem once, all of them
        }
    }

    /// The JSON of what a scene and a bank share: clips, music (tracks and sets) and sounds.
    static func definitionsJSON(_ d: SceneDefinitions) -> [String: Any] {
        [
            "clips": d.clips.map(\.id), "music": d.music.map(\.id) + d.musicSets.map(\.id),
            "musicTracks": d.music.map(json),
            "musicSets": musicSetsJSON(d.musicSets), "sounds": d.sounds.map(json),
        ]
    }

    static func describe(_ s: SceneSnapshot) -> String {
        let gains = s.gains.map { "\($0.bus) \(format($0.db)) dB" }
        let filters = s.filters.map {
            "\($0.bus) filter gain \(format(Double($0.filter.gain))) gainHF \(format(Double($0.filter.gainHF)))"
        }
        return (gains + filters).joined(separator: ", ")
    }

    static func describe(_ b: SceneBus) -> String {
        var parts: [String] = []
        if let p = b.parent { parts.append("under \(p)") }
        if let g = b.gainDB { parts.append("gain \(format(g)) dB") }
        for d in b.ducks {
            parts.append(
                "ducks \(d.target) by \(format(-d.level)) dB above \(format(d.threshold)) dBFS (attack \(format(d.attack)) s, hold \(format(d.hold)) s, release \(format(d.release)) s)"
            )
        }
        return parts.isEmpty ? "-" : parts.joined(separator: "; ")
    }

    static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(format: "%g", v)
    }

    /// Each clip's markers (its file's, as the engine reads them when it loads the clip): what
    /// `{ at: { marker: NAME.MARKER } }` events may name. Clips without markers are left out.
    var clipMarkers: [(id: String, markers: [(name: String, seconds: Double)])] {
        scene.clips.compactMap { c in
            guard let info = try? ClipDecoder.inspect(path: c.path), !info.markers.isEmpty else { return nil }
            return (c.id, info.markers.map { ($0.name, $0.time(sampleRate: info.sampleRate)) })
        }
    }

    /// The follow-ups that wait for a voice's end and those at its markers.
    var followUpCounts: (ends: Int, markers: Int) {
        let markers = scene.followUps.filter { $0.after.marker != nil }.count
        return (scene.followUps.count - markers, markers)
    }

    func print(json: Bool) throws {
        let markers = clipMarkers
        let follow = followUpCounts
        if json {
            let object = Self.definitionsJSON(scene.definitions).merging([
                "file": scene.file, "name": scene.name, "duration": scene.duration, "seed": scene.seed,
                "emitters": scene.emitters.map(\.id),
                "events": scene.events.count, "eventsAfterVoices": follow.ends, "eventsAtMarkers": follow.markers,
                "clipMarkers": Dictionary(
                    markers.map { c in
                        (c.id, c.markers.map { ["name": $0.name, "seconds": $0.seconds] as [String: Any] })
                    },
                    uniquingKeysWith: { a, _ in a }),
                "snapshots": scene.snapshots.map { s -> [String: Any] in
                    [
                        "id": s.id,
                        "gains": Dictionary(s.gains.map { ($0.bus, $0.db) }, uniquingKeysWith: { $1 }),
                        "filters": Dictionary(
                            s.filters.map {
                                ($0.bus, ["gain": Double($0.filter.gain), "gainHF": Double($0.filter.gainHF)])
                            },
                            uniquingKeysWith: { $1 }),
                    ]
                },
                "buses": scene.buses.map { b -> [String: Any] in
                    var o: [String: Any] = ["name": b.name, "ducks": b.ducks.map {
                        ["target": $0.target, "level": $0.level, "attack": $0.attack, "release": $0.release,
                         "threshold": $0.threshold, "hold": $0.hold]
                    }]
                    if let g = b.gainDB { o["gain"] = g }
                    return o
                },
            ]) { _, own in own }
            try sayJSON(object: object, pretty: true)
            return
        }
        say("scene:     \(scene.file)")
        say("name:      \(scene.name)")
        say("duration:  \(Self.format(scene.duration)) s")
        say("seed:      \(scene.seed)")
        say(
            "clips:     \(scene.clips.count)\(scene.clips.isEmpty ? "" : " (\(scene.clips.map(\.id).joined(separator: ", ")))")"
        )
        for c in markers {
            say(
                "  \(c.id) markers: "
                    + c.markers.map { "\($0.name) at \(Self.format(($0.seconds * 1_000).rounded() / 1_000)) s" }.joined(
                        separator: ", "))
        }
        say("sounds:    \(scene.sounds.count)")
        for s in scene.sounds { say("  \(s.id): \(Self.describe(s))") }
        say("snapshots: \(scene.snapshots.count)")
        for s in scene.snapshots { say("  \(s.id): \(Self.describe(s))") }
        say("buses:     \(scene.buses.count)")
        for b in scene.buses { say("  \(b.name): \(Self.describe(b))") }
        Self.printMusic(scene.music, scene.musicSets)
        say("emitters:  \(scene.emitters.count)")
        var events = "events:    \(scene.events.count)"
        if !scene.followUps.isEmpty {
            events += " at times"
            if follow.ends > 0 { events += ", \(follow.ends) after named voices" }
            if follow.markers > 0 { events += ", \(follow.markers) at their markers" }
        }
        say(events)
    }
}
