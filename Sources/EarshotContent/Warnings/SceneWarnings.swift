import Earshot
import Foundation

/// Something in a valid scene that will not do what its author likely meant: an event with no
/// effect, a fade shorter than the engine plays, an emitter that is never heard, a clip never
/// used. `earshot validate` prints them (and `--strict` refuses the scene for them).
///
/// ```swift
/// let scene = try Scene.load(path: "Demos/Scenes/showcase.yaml")
/// for w in scene.warnings() { print(w.description) }
/// ```
public struct SceneWarning: Sendable, Equatable, CustomStringConvertible {
    /// The scene file.
    public var file: String
    /// The line of the event or entry concerned (nil only for a scene built in code).
    public var line: Int?
    /// The column where that event or entry starts on its line (nil with no line).
    public var column: Int?
    /// The key concerned (`events`, `clips.beep`, `emitters.car`).
    public var key: String
    /// What is wrong, and why it matters.
    public var message: String

    public init(file: String, line: Int?, column: Int? = nil, key: String, message: String) {
        self.file = file
        self.line = line
        self.column = line == nil ? nil : (column ?? 1)
        self.key = key
        self.message = message
    }

    /// `FILE:LINE:COLUMN: KEY: message`, as a problem reads (without them for a scene built in code).
    public var description: String {
        (line.map { "\(file):\($0):\(column ?? 1): " } ?? "\(file): ") + "\(key): \(message)"
    }
}

extension Scene {
    /// The engine's shortest music stop fade (a shorter one would click): what a `stop` event's
    /// `fade:` below it lasts anyway.
    public static let minimumStopFade = 0.02

    /// What in this scene will not do what its author likely meant (see ``SceneWarning``). Empty
    /// for a scene that does what it says.
    public func warnings() -> [SceneWarning] {
        var out: [SceneWarning] = self.readWarnings + unitSlipWarnings() + roomWarnings()
        func warn(_ event: SceneEvent?, _ key: String, _ message: String) {
            out.append(warning(at: event, key, message))
        }

        // Events in time order (the scene keeps them sorted), against what plays when.
        enum TrackState { case never, playing, paused, stopped }
        var tracks: [String: TrackState] = [:]
        var stopped = Set<String>()
        var hintOn = false
        let starts = Dictionary(emitters.map { ($0.id, $0.start) }, uniquingKeysWith: { a, _ in a })
        for e in events {
            switch e.action {
            case .music(let id, let action):
                let state = tracks[id] ?? .never
                switch action {
                case .play:
                    tracks[id] = .playing
                case .pause:
                    if state != .playing {
                        warn(e, "events", "music \(id) pause at \(e.time) s has no effect: the track is not playing")
                    }
                    tracks[id] = .paused
                case .stop(let fade):
                    if state == .never || state == .stopped {
                        warn(e, "events", "music \(id) stop at \(e.time) s has no effect: the track is not playing")
                    }
                    if fade > 0, fade < Self.minimumStopFade {
                        warn(
                            e, "events",
                            "music \(id) stop fade \(fade) s is shorter than the engine's \(Self.minimumStopFade) s: it lasts \(Self.minimumStopFade) s"
                        )
                    }
                    tracks[id] = .stopped
                case .fade:
                    if state != .playing && state != .paused {
                        warn(
                            e, "events",
                            "music \(id) fade at \(e.time) s has no effect on what is heard: the track is not playing (only its volume changes)"
                        )
                    }
                }
            case .stop(let id, _):
                if let start = starts[id], e.time < start {
                    warn(
                        e, "events",
                        "stop \(id) at \(e.time) s has no effect: the emitter starts at \(start) s, after it")
                } else if stopped.contains(id) {
                    warn(e, "events", "stop \(id) at \(e.time) s has no effect: it was stopped before")
                }
                stopped.insert(id)
            case .hint(let begins):
                if begins == hintOn {
                    warn(e, "events", begins ? "a second hint: begin at \(e.time) s (the hint is already raised)"
                                                  : "hint: end at \(e.time) s without a begin before it")
                }
                hintOn = begins
            case .start(let id):
                stopped.remove(id)
            case .play, .interruption, .set, .snapshot, .vca, .parameter, .musicSet, .say, .portal, .bed:
                break
            }
        }

        // Reverb values OpenAL Soft 1.19.1 would abort on: the render moves them into its domain
        // (ReverbDomain, the same call the engine makes), so say what changes.
        for zone in self.zones {
            for note in ReverbDomain.sanitised(zone.reverb, speedOfSound: speedOfSound).adjustments {
                warn(nil, "zones.\(zone.name).reverb", note)
            }
        }

        // Clips nobody plays.
        var used = Set(emitters.map(\.clip))
        for e in events + followUps.map(\.event) { if case .play(let p) = e.action { used.insert(p.id) } }
        let playedSounds = used
        for s in self.sounds where playedSounds.contains(s.id) { used.formUnion(s.clips + s.layers.map(\.clip)) }
        // What an included bank defines is there to be used, not the scene's to use up.
        for s in self.sounds where !playedSounds.contains(s.id) && !isIncluded("sounds.\(s.id)") {
            warn(nil, "sounds.\(s.id)", "never played (no play event names it)")
        }
        for c in self.clips where !used.contains(c.id) && !isIncluded("clips.\(c.id)") {
            warn(nil, "clips.\(c.id)", "never used (no emitter or play event names it); it is still loaded and checked")
        }

        // Emitters that never come within their maxDistance: never heard with a linear model,
        // stuck at the maxDistance level with a clamped one.
        // (With the settings it plays with: its own keys over its sound's.)
        let soundAttenuations = self.soundAttenuations
        for em in emitters {
            let a = distanceSettings(of: em, soundAttenuations)
            let model = a.distanceModel ?? distanceModel
            guard model != .none || a.beyondMax == .silent, a.curve == nil,
                  a.maxDistance < .greatestFiniteMagnitude, a.rolloff > 0 || a.beyondMax == .silent else { continue }
            let closest = Double(closestApproach(of: em, until: duration, steps: 1_000))
            if closest >= Double(a.maxDistance) {
                let effect: String
                if a.beyondMax == .silent {
                    effect =
                        closest >= Double(a.maxDistance * (1 + BeyondMax.fadeMargin))
                        ? "beyondMax: silent, it is never heard" : "beyondMax: silent, it is only heard fading"
                } else {
                    switch model {
                    case .linear, .linearClamped: effect = "with the \(model.rawValue) model it is never heard"
                    case .inverseClamped, .exponentClamped:
                        effect = "with the \(model.rawValue) model it stays at its maxDistance level all along"
                    default: effect = "with the \(model.rawValue) model maxDistance does nothing for it"
                    }
                }
                warn(
                    nil, "emitters.\(em.id)",
                    "never comes within maxDistance (\(a.maxDistance) m; closest \(String(format: "%.1f", closest)) m): \(effect)"
                )
            }
        }
        if let w = limiterWarning() { out.append(w) }
        out += musicSetWarnings()
        out += dialogueWarnings()   // SceneWarnings+Dialogue.swift
        return out
    }

    /// Whether the entry `key` (`sounds.step`) comes from an included bank, not the scene itself.
    func isIncluded(_ key: String) -> Bool {
        guard let origin = self.origins[key] else { return false }
        return self.lines[key] == nil || !origin.hasPrefix(file + ":")
    }

    /// A warning about `event` (its line and column), or else about the entry `key`
    /// (`zones.hall.reverb` takes the line and column of `zones.hall`); one with neither points at
    /// the file's first line.
    func warning(at event: SceneEvent?, _ key: String, _ message: String) -> SceneWarning {
        if let event, event.line > 0 {
            return SceneWarning(file: file, line: event.line, column: max(event.column, 1), key: key, message: message)
        }
        var entry = key
        while self.lines[entry] == nil, self.origins[entry] == nil, let dot = entry.lastIndex(of: ".") {
            entry = String(entry[..<dot])
        }
        if let line = self.lines[entry], line > 0 {
            return SceneWarning(
                file: file, line: line, column: max(self.columns[entry] ?? 1, 1), key: key, message: message)
        }
        // An included bank's entry: its file and line (`FILE:LINE`), at the line's start.
        if let o = self.origins[entry], let colon = o.lastIndex(of: ":"), let line = Int(o[o.index(after: colon)...]),
            line > 0
        {
            return SceneWarning(file: String(o[..<colon]), line: line, column: 1, key: key, message: message)
        }
        return SceneWarning(
            file: file, line: self.origins.isEmpty && self.lines.isEmpty ? nil : 1, column: 1, key: key,
            message: message)
    }

    /// The least distance between `em` and the listener from its start until `end`, sampled at
    /// `steps` + 1 even instants.
    func closestApproach(of em: SceneEmitter, until end: Double, steps: Int) -> Float {
        var closest = Float.infinity
        for i in 0...steps {
            let t = em.start + (end - em.start) * Double(i) / Double(steps)
            closest = min(closest, (em.path.position(at: t) - listener.path.position(at: t)).length)
        }
        return closest
    }
}
