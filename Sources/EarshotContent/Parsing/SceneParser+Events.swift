import Earshot
import Foundation
import Yams

/// The events of a scene's `events:` list: each one's word, keys and ranges (the kinds are in
/// `SceneEventKind.swift`; `every:` repeats in `SceneParser.swift`).
extension SceneParser {
    /// The event at `node`; `after` is set when it runs after a named voice instead of at a time,
    /// `name` when it is a play with a `name:`.
    mutating func event(_ node: Node, index: Int, names: SceneNames, musicIDs: Set<String>, emitterIDs: Set<String>,
                        duration: Double?, after: inout SceneAfter?, name playName: inout String?) -> SceneEvent? {
        let clipIDs = names.clips
        let key = "events[\(index)]"
        guard let raw = mappingEntries(node, key, expected: "an event ({ at: …, music|play|hint|interruption|stop|start|set: … })") else {
            return nil
        }
        var present: [SceneEventKind] = []
        for (k, _) in raw {
            if case .scalar(let ks) = k, let kind = SceneEventKind(rawValue: ks.string) { present.append(kind) }
        }
        guard present.count == 1, let kind = present.first else {
            let words = SceneEventKind.allCases.map(\.rawValue)
            let typo = raw.lazy.compactMap { (k, _) -> String? in
                guard case .scalar(let ks) = k, ks.string != "at" else { return nil }
                let hint = Self.didYouMean(ks.string, among: words)
                return hint.isEmpty ? nil : "unknown event word '\(ks.string)'" + hint
            }.first
            if present.isEmpty, let typo {
                fail(node, key, typo)
            } else if present.isEmpty {
                fail(node, key, "an event needs one of: \(words.joined(separator: ", "))")
            } else {
                fail(
                    node, key,
                    "an event does one thing; this one has \(present.map(\.rawValue).joined(separator: " and "))")
            }
            return nil
        }
        guard let m = mapping(node, key, allowed: kind.allowedKeys, required: kind.requiredKeys) else { return nil }
        // When: `at:` a time or a marker of a named voice (`{ marker: line1.hit }`), or `after:`
        // a named voice ends (plus `delay:` for both of those).
        var relative = m["after"] != nil
        if let a = m["at"], case .mapping = a { relative = true }
        if m["at"] != nil, let a = m["after"] { fail(a, "\(key).after", "give either at: or after:, not both") }
        if m["at"] == nil, m["after"] == nil {
            fail(
                node, "\(key).at",
                "required key is missing (at: seconds or { marker: NAME.MARKER }, or after: the name of a play)")
        }
        if let d = m["delay"], !relative {
            fail(d, "\(key).delay", "delay: applies to after: and at: { marker: } only (use at: for a time)")
        }
        if relative, let e = m["every"] ?? m["count"] ?? m["until"] ?? m["jitter"] {
            fail(
                e, key,
                "every:, count:, until: and jitter: repeat a play at: a time, not one after: a voice or on its marker")
        }
        after = nil
        playName = nil
        pendingBar = nil
        let delay =
            relative ? m["delay"].flatMap { number($0, "\(key).delay", in: 0...3_600, "seconds 0…3600") } ?? 0 : 0
        if let a = m["after"], let name = string(a, "\(key).after") {
            after = SceneAfter(voice: name, delay: delay)
        } else if let a = m["at"], case .mapping = a, isBarAt(a) {
            pendingBar = barAt(a, "\(key).at", delay: delay)   // placed once the music's start is known
            if pendingBar == nil { return nil }
        } else if let a = m["at"], case .mapping = a {
            after = relativeAt(a, "\(key).at", delay: delay)
            if after == nil { return nil }
        }
        let at = after != nil || pendingBar != nil ? 0 : m["at"].flatMap { time($0, "\(key).at", duration: duration) }
        let line = node.mark?.line ?? 0
        var action: SceneEvent.Action?
        switch kind {
        case .music:
            guard let idNode = m["music"], let id = string(idNode, "\(key).music") else { return nil }
            if !musicIDs.contains(id) { fail(idNode, "\(key).music", unknown("music track", id, musicIDs)) }
            if musicSetNames[id] != nil {
                action = musicSetEvent(m, node, id: id, key: key)
                break
            }
            for k in ["state", "stinger", "boundary", "duck", "layer"] where m[k] != nil {
                fail(m[k], "\(key).\(k)", "\(k) applies to a music set (a music entry with states:); \(id) is a track")
            }
            if m["action"] == nil { fail(node, "\(key).action", "required key is missing") }
            guard let actionNode = m["action"],
                let a = choice(actionNode, "\(key).action", ["play", "pause", "stop", "fade"])
            else { return nil }
            for (k, valid) in [
                ("volume", ["play", "fade"]), ("duration", ["fade"]), ("fade", ["stop"]), ("rate", ["play"]),
                ("tape", ["play"]),
            ]
            where m[k] != nil && !valid.contains(a) {
                fail(m[k], "\(key).\(k)", "\(k) applies to action \(valid.joined(separator: " or ")) only")
            }
            let volume = m["volume"].flatMap { factor($0, "\(key).volume", in: 0...Double(MusicTrack.maxVolume)) }
            switch a {
            case "play":
                let rate = m["rate"].flatMap { number($0, "\(key).rate", in: 0.5...2, "rate 0.5…2") }
                let tape = m["tape"].flatMap { bool($0, "\(key).tape") }
                action = .music(id: id, .play(volume: volume.map(Float.init), rate: rate.map(Float.init), tape: tape))
            case "pause": action = .music(id: id, .pause)
            case "stop":
                let fade = m["fade"].flatMap { number($0, "\(key).fade", in: 0...60, "seconds 0…60") } ?? 0
                action = .music(id: id, .stop(fade: fade))
            default:
                if m["volume"] == nil {
                    fail(node, "\(key).volume", "required key is missing (fade needs volume: and duration:)")
                }
                if m["duration"] == nil {
                    fail(node, "\(key).duration", "required key is missing (fade needs volume: and duration:)")
                }
                let d = m["duration"].flatMap { number($0, "\(key).duration", in: 0...600, "seconds 0…600") }
                if let volume, let d { action = .music(id: id, .fade(volume: Float(volume), duration: d)) }
            }
        case .play:
            guard let idNode = m["play"], let clip = string(idNode, "\(key).play") else { return nil }
            let isSound = names.sounds.contains(clip)
            if !clipIDs.contains(clip), !isSound {
                fail(idNode, "\(key).play", unknown("clip or sound", clip, clipIDs.union(names.sounds)))
            }
            if m["position"] != nil, let p = m["pan"] { fail(p, "\(key).pan", "give either position or pan, not both") }
            let position = m["position"].flatMap { vector($0, "\(key).position") }
            let pan = m["pan"].flatMap { number($0, "\(key).pan", in: -1...1, "-1 (left) … 1 (right)") } ?? 0
            let gain = m["gain"].flatMap { factor($0, "\(key).gain", in: 0...16) } ?? 1
            let pitch = m["pitch"].flatMap { number($0, "\(key).pitch", in: 0.1...4, "playback rate 0.1…4") } ?? 1
            let priority = m["priority"].flatMap { integer($0, "\(key).priority", in: 0...255) }
            let bus = m["bus"].flatMap { busName($0, "\(key).bus", names.buses) }
            let offset =
                m["offset"].flatMap { number($0, "\(key).offset", in: 0...86_400, "seconds into the clip, 0…86400") }
                ?? 0
            let loops = m["loops"].flatMap { integer($0, "\(key).loops", in: 0...PlayOptions.maxLoopCount) } ?? 0
            checkTiming(
                of: clip, offset: offset, loops: loops, offsetNode: m["offset"], loopsNode: m["loops"], event: idNode,
                key)
            let name = m["name"].flatMap { string($0, "\(key).name") }
            if m["name"] != nil, let e = m["every"] ?? m["count"] ?? m["until"] {
                fail(e, key, "a named play cannot repeat: its repeats would share one name")
            }
            if (m["position"] == nil || position != nil) && (m["bus"] == nil || bus != nil) {
                playName = name
                action = .play(
                    ScenePlay(
                        id: clip, position: position, pan: Float(pan), gain: Float(gain), pitch: Float(pitch),
                        priority: priority.map(UInt8.init), bus: bus, offset: offset, loops: loops,
                        spread: m["spread"].flatMap { spread($0, "\(key).spread") }))
            }
        case .say:
            action = sayEvent(m, key: key, emitterIDs: emitterIDs)   // SceneParser+Dialogue.swift
        case .snapshot:
            guard let idNode = m["snapshot"], let id = string(idNode, "\(key).snapshot") else { return nil }
            if !names.snapshots.contains(id) {
                fail(idNode, "\(key).snapshot", unknown("snapshot", id, names.snapshots))
            }
            guard let a = m["action"].flatMap({ choice($0, "\(key).action", ["begin", "end"]) }) else { return nil }
            if a == "end", let i = m["intensity"] {
                fail(i, "\(key).intensity", "intensity applies to action: begin only")
            }
            let fade = m["fade"].flatMap { number($0, "\(key).fade", in: 0...600, "seconds 0…600") } ?? 0
            let intensity = m["intensity"].flatMap { number($0, "\(key).intensity", in: 0...1, "0…1") } ?? 1
            action = .snapshot(id: id, begins: a == "begin", fade: fade, intensity: Float(intensity))
        case .bed:
            action = bedEvent(m, node, key: key)
        case .vca:
            action = vcaEvent(m, node, key: key)   // SceneParser+VCAs.swift
        case .hint:
            guard let n = m["hint"], let v = choice(n, "\(key).hint", ["begin", "end"]) else { return nil }
            action = .hint(begins: v == "begin")
        case .interruption:
            guard let n = m["interruption"], let v = choice(n, "\(key).interruption", ["began", "ended"]) else {
                return nil
            }
            if v == "began", let r = m["shouldResume"] {
                fail(r, "\(key).shouldResume", "shouldResume applies to interruption: ended only")
            }
            let resume = m["shouldResume"].flatMap { bool($0, "\(key).shouldResume") } ?? false
            action = .interruption(began: v == "began", shouldResume: resume)
        case .start:
            guard let idNode = m["start"], let id = string(idNode, "\(key).start") else { return nil }
            if !emitterIDs.contains(id) { fail(idNode, "\(key).start", unknown("emitter", id, emitterIDs)) }
            action = .start(emitter: id)
        case .set:
            if let s = m["set"], case .mapping = s {   // a game parameter (SceneParser+Parameters.swift)
                for k in ["gain", "pitch", "pan", "rate", "occlusion", "curve"] where m[k] != nil {
                    fail(
                        m[k], "\(key).\(k)",
                        "\(k) does not apply to a parameter's set: (it takes parameter, value, ramp, of)")
                }
                action = parameterSet(s, key, eventOf: m["of"], eventRamp: m["ramp"], emitterIDs: emitterIDs).map {
                    .parameter($0)
                }
                break
            }
            if let o = m["of"] { fail(o, "\(key).of", "of: applies to a parameter's set: { parameter, value } only") }
            guard let idNode = m["set"], let id = string(idNode, "\(key).set") else { return nil }
            let buses = names.buses.sorted()
            var targets: [SceneSetTarget] = []
            if emitterIDs.contains(id) { targets.append(.emitter(id)) }
            if musicSetNames[id] != nil {
                fail(
                    idNode, "\(key).set",
                    "\(id) is a music set: set a stem's gain with { music: \(id), layer: NAME, volume: V, fade: S }")
                return nil
            }
            if musicIDs.contains(id) { targets.append(.music(id)) }
            if buses.contains(id) { targets.append(.bus(id)) }
            guard targets.count == 1, let target = targets.first else {
                if targets.isEmpty {
                    fail(idNode, "\(key).set", "no emitter, music track or bus named \"\(id)\""
                         + Self.didYouMean(id, among: emitterIDs.sorted() + musicIDs.sorted() + buses)
                         + " (buses: \(buses.joined(separator: ", ")))")
                } else {
                    fail(
                        idNode, "\(key).set",
                        "\"\(id)\" names both \(targets.map { "\($0)".components(separatedBy: "(").first ?? "" }.joined(separator: " and ")); rename one"
                    )
                }
                return nil
            }
            var changes: [SceneChange] = []
            for property in SceneChange.Property.allCases {
                guard let n = m[property.rawValue] else { continue }
                guard target.properties.contains(property) else {
                    fail(
                        n, "\(key).\(property.rawValue)",
                        "\(property.rawValue) does not apply here (this target takes \(target.properties.map(\.rawValue).joined(separator: ", ")))"
                    )
                    continue
                }
                // A track's gain is its volume, 0…maxVolume (+12 dB); the others as the property
                // says. A gain may be written in dB (`-6 dB`).
                let r: ClosedRange<Double> = {
                    if case .music = target, property == .gain {
                        return 0...Double(MusicTrack.maxVolume)
                    } else {
                        return property.range
                    }
                }()
                let value =
                    property == .gain
                    ? factor(n, "\(key).gain", in: r)
                    : number(
                        n, "\(key).\(property.rawValue)", in: r,
                        "\(Self.format(r.lowerBound))…\(Self.format(r.upperBound))")
                if let v = value {
                    changes.append(SceneChange(property: property, value: Float(v)))
                }
            }
            if changes.isEmpty, !SceneChange.Property.allCases.contains(where: { m[$0.rawValue] != nil }) {
                fail(
                    node, key,
                    "a set event needs at least one of: \(target.properties.map(\.rawValue).joined(separator: ", "))")
            }
            let ramp = m["ramp"].flatMap { number($0, "\(key).ramp", in: 0...3_600, "seconds 0…3600") } ?? 0
            let curve = m["curve"].flatMap { choice($0, "\(key).curve", SceneRampCurve.allCases.map(\.rawValue)) }
                .flatMap(SceneRampCurve.init(rawValue:))
            if m["curve"] != nil, m["ramp"] == nil { fail(m["curve"], "\(key).curve", "a curve needs ramp: seconds") }
            if !changes.isEmpty { action = .set(target: target, changes: changes, ramp: ramp, curve: curve) }
        case .portal:
            action = portalEvent(m, node, key: key, portals: portalIDs)
        case .stop:
            guard let idNode = m["stop"], let id = string(idNode, "\(key).stop") else { return nil }
            if !emitterIDs.contains(id) { fail(idNode, "\(key).stop", unknown("emitter", id, emitterIDs)) }
            let fade = m["fade"].flatMap { number($0, "\(key).fade", in: 0...60, "seconds 0…60") } ?? 0
            action = .stop(emitter: id, fade: fade)
        }
        guard let at, let action else { return nil }
        return SceneEvent(time: at, action: action, line: line, column: node.mark?.column ?? 0)
    }
}
