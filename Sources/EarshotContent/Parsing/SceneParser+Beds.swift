import Earshot
import Foundation
import Yams

/// Ambisonic beds in scenes and banks: the `beds:` section and the bed events.
extension SceneParser {
    static let bedKeys = ["file", "format", "gain", "bus", "lock", "yaw", "start"]

    /// `beds: { ID: { file:, format:, gain:, bus:, lock:, yaw:, start: } }`.
    mutating func beds(_ node: Node?, busNames: Set<String>, duration: Double?) -> [SceneBed] {
        guard let node, within(node, "beds", SceneLimits.maxBeds, "beds") else { return [] }
        var out: [SceneBed] = []
        for (id, _, value) in idMapping(node, "beds") {
            bedIDs.insert(id)
            let key = "beds.\(id)"
            guard let m = mapping(value, key, allowed: Self.bedKeys, required: ["file"]) else { continue }
            let path = m["file"].flatMap { bedFile($0, "\(key).file") }
            let format = m["format"].flatMap { choice($0, "\(key).format", AmbisonicFormat.allCases.map(\.rawValue)) }
            let gain = m["gain"].flatMap { gainDB($0, "\(key).gain", in: -120...12) }
            let bus = m["bus"].map { busName($0, "\(key).bus", busNames) }
            let lock = m["lock"].flatMap { choice($0, "\(key).lock", AmbisonicBed.Lock.allCases.map(\.rawValue)) }
            let yaw = m["yaw"].flatMap { number($0, "\(key).yaw", in: -3_600...3_600, "degrees −3600…3600") }
            let start = m["start"].flatMap { time($0, "\(key).start", duration: duration) }
            guard let path, bus != .some(nil) else { continue }
            var bed = SceneBed(id: id, path: path)
            bed.format = format.flatMap(AmbisonicFormat.init(rawValue:)) ?? .ambix
            bed.volume = gain.map { Float(pow(10, $0 / 20)) } ?? 1
            if let b = bus ?? nil { bed.bus = b }
            bed.lock = lock.flatMap(AmbisonicBed.Lock.init(rawValue:)) ?? .world
            bed.yaw = yaw.map(Float.init) ?? 0
            bed.start = start
            out.append(bed)
        }
        return out
    }

    /// A bed's file: it exists, reads as audio and has 4, 9 or 16 channels.
    mutating func bedFile(_ node: Node, _ key: String) -> String? {
        guard let (given, path) = existingFile(node, key) else { return nil }
        do throws(EarshotError) {
            let info = try ClipDecoder.inspect(path: path)
            _ = try AmbisonicFormat.order(channels: info.channels)
        } catch {
            fail(node, key, "cannot play \(given) as an ambisonic bed: \(error.description)")
            return nil
        }
        return path
    }

    /// `{ bed: ID, action: play|stop, fade: s }` or `{ bed: ID, yaw: degrees, ramp: s }`.
    mutating func bedEvent(_ m: [String: Node], _ node: Node, key: String) -> SceneEvent.Action? {
        guard let idNode = m["bed"], let id = string(idNode, "\(key).bed") else { return nil }
        if !bedIDs.contains(id) { fail(idNode, "\(key).bed", unknown("bed", id, bedIDs)) }
        if let y = m["yaw"] {
            if let a = m["action"] { fail(a, "\(key).action", "give either action: or yaw:, not both") }
            if let f = m["fade"] { fail(f, "\(key).fade", "fade: applies to action: play or stop; a yaw turns over ramp:") }
            let yaw = number(y, "\(key).yaw", in: -3_600...3_600, "degrees −3600…3600")
            let ramp = m["ramp"].flatMap { number($0, "\(key).ramp", in: 0...600, "seconds 0…600") } ?? 0
            return yaw.map { .bed(id: id, .yaw(Float($0), ramp: ramp)) }
        }
        if let r = m["ramp"] { fail(r, "\(key).ramp", "ramp: applies to a yaw: turn") }
        guard let a = m["action"] else {
            fail(node, "\(key).action", "required key is missing (action: play or stop, or yaw:)")
            return nil
        }
        guard let action = choice(a, "\(key).action", ["play", "stop"]) else { return nil }
        let fade = m["fade"].flatMap { number($0, "\(key).fade", in: 0...600, "seconds 0…600") } ?? 0
        return .bed(id: id, action == "play" ? .play(fade: fade) : .stop(fade: fade))
    }
}

extension SceneParser {
    /// A play event at each bed's `start:`, and at 0 for a bed no event plays (the line is the
    /// bed's own). A scene's timeline only: a bank has none.
    mutating func addBedStarts(_ beds: [SceneBed], _ node: Node?, into events: inout [SceneEvent]) {
        guard !isBank else { return }
        var played = Set<String>()
        for e in events { if case .bed(let id, .play) = e.action { played.insert(id) } }
        var lines: [String: Int] = [:]
        if case .mapping(let m)? = node {
            for (k, _) in m { if case .scalar(let s) = k { lines[s.string] = k.mark?.line ?? 0 } }
        }
        for b in beds {
            guard let start = b.start ?? (played.contains(b.id) ? nil : 0) else { continue }
            events.append(SceneEvent(time: start, action: .bed(id: b.id, .play(fade: 0)), line: lines[b.id] ?? 0))
        }
    }
}
