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
    /// The key concerned (`events`, `clips.beep`, `emitters.car`).
    public var key: String
    /// What is wrong, and why it matters.
    public var message: String

    /// `FILE:LINE: KEY: message` (without the line when there is none).
    public var description: String {
        (line.map { "\(file):\($0): " } ?? "\(file): ") + "\(key): \(message)"
    }
}

extension Scene {
    /// The engine's shortest music stop fade (a shorter one would click): what a `stop` event's
    /// `fade:` below it lasts anyway.
    public static let minimumStopFade = 0.02

    /// What in this scene will not do what its author likely meant (see ``SceneWarning``). Empty
    /// for a scene that does what it says.
    public func warnings() -> [SceneWarning] {
        var out: [SceneWarning] = readWarnings + unitSlipWarnings()
        func warn(_ line: Int?, _ key: String, _ message: String) {
            // An entry's warning (clips.x, emitters.y) takes the line of its key.
            out.append(SceneWarning(file: file, line: (line ?? lines[key]).flatMap { $0 > 0 ? $0 : nil }, key: key, message: message))
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
                    if state != .playing { warn(e.line, "events", "music \(id) pause at \(e.time) s has no effect: the track is not playing") }
                    tracks[id] = .paused
                case .stop(let fade):
                    if state == .never || state == .stopped {
                        warn(e.line, "events", "music \(id) stop at \(e.time) s has no effect: the track is not playing")
                    }
                    if fade > 0, fade < Self.minimumStopFade {
                        warn(e.line, "events", "music \(id) stop fade \(fade) s is shorter than the engine's \(Self.minimumStopFade) s: it lasts \(Self.minimumStopFade) s")
                    }
                    tracks[id] = .stopped
                case .fade:
                    if state != .playing && state != .paused {
                        warn(e.line, "events", "music \(id) fade at \(e.time) s has no effect on what is heard: the track is not playing (only its volume changes)")
                    }
                }
            case .stop(let id, _):
                if let start = starts[id], e.time < start {
                    warn(e.line, "events", "stop \(id) at \(e.time) s has no effect: the emitter starts at \(start) s, after it")
                } else if stopped.contains(id) {
                    warn(e.line, "events", "stop \(id) at \(e.time) s has no effect: it was stopped before")
                }
                stopped.insert(id)
            case .hint(let begins):
                if begins == hintOn {
                    warn(e.line, "events", begins ? "a second hint: begin at \(e.time) s (the hint is already raised)"
                                                  : "hint: end at \(e.time) s without a begin before it")
                }
                hintOn = begins
            case .start(let id):
                stopped.remove(id)
            case .play, .interruption, .set, .snapshot, .parameter, .musicSet:
                break
            }
        }

        // Reverb values OpenAL Soft 1.19.1 would abort on: the render moves them into its domain
        // (ReverbDomain, the same call the engine makes), so say what changes.
        for zone in zones {
            for note in ReverbDomain.sanitised(zone.reverb, speedOfSound: speedOfSound).adjustments {
                warn(lines["zones.\(zone.name)"], "zones.\(zone.name).reverb", note)
            }
        }

        // Clips nobody plays.
        var used = Set(emitters.map(\.clip))
        for e in events + followUps.map(\.event) { if case .play(let p) = e.action { used.insert(p.id) } }
        let playedSounds = used
        for s in sounds where playedSounds.contains(s.id) { used.formUnion(s.clips + s.layers.map(\.clip)) }
        for s in sounds where !playedSounds.contains(s.id) {
            warn(nil, "sounds.\(s.id)", "never played (no play event names it)")
        }
        for c in clips where !used.contains(c.id) {
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
                    effect = closest >= Double(a.maxDistance * (1 + BeyondMax.fadeMargin)) ? "beyondMax: silent, it is never heard" : "beyondMax: silent, it is only heard fading"
                } else {
                    switch model {
                    case .linear, .linearClamped: effect = "with the \(model.rawValue) model it is never heard"
                    case .inverseClamped, .exponentClamped: effect = "with the \(model.rawValue) model it stays at its maxDistance level all along"
                    default: effect = "with the \(model.rawValue) model maxDistance does nothing for it"
                    }
                }
                warn(nil, "emitters.\(em.id)", "never comes within maxDistance (\(a.maxDistance) m; closest \(String(format: "%.1f", closest)) m): \(effect)")
            }
        }
        if let w = limiterWarning() { out.append(w) }
        out += musicSetWarnings()
        return out
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
