import Earshot
import Foundation

/// Likely unit slips: values that are valid but almost certainly not what their
/// author meant — a cooldown in milliseconds written as seconds, a curve point its parameter can
/// never reach, a fade longer than the whole scene.
extension Scene {
    /// The longest cooldown read without a warning, seconds: a longer one (`cooldown: 50`) is
    /// most likely milliseconds written as seconds.
    public static let longestLikelyCooldown = 10.0

    /// The unit-slip warnings of this scene or bank (part of ``warnings()``).
    public func unitSlipWarnings() -> [SceneWarning] {
        var out: [SceneWarning] = []
        func warn(_ event: SceneEvent?, _ key: String, _ message: String) {
            out.append(warning(at: event, key, message))
        }
        for s in self.sounds where s.cooldown > Self.longestLikelyCooldown {
            warn(
                nil, "sounds.\(s.id)",
                "cooldown: \(SceneParser.dB(s.cooldown)) is \(SceneParser.dB(s.cooldown)) seconds between two plays; "
                    + "cooldowns are seconds — for \(SceneParser.dB(s.cooldown)) ms write cooldown: \(SceneParser.dB(s.cooldown / 1000))"
            )
        }
        let ranges = Dictionary(self.parameters.map { ($0.id, $0.range) }, uniquingKeysWith: { a, _ in a })
        func check(_ curves: [ParameterCurve], _ key: String) {
            for c in curves {
                guard let r = ranges[c.parameter] else { continue }
                for p in c.points where !r.contains(p.x) {
                    warn(
                        nil, key,
                        "a \(c.property.rawValue) curve point at \(c.parameter) = \(SceneParser.dB(p.x)) is outside the parameter's range "
                            + "\(SceneParser.dB(r.lowerBound))…\(SceneParser.dB(r.upperBound)): it is never reached (a unit slip?)"
                    )
                }
            }
        }
        for s in self.sounds {
            check(s.curves, "sounds.\(s.id)")
            for l in s.layers { check(l.curves, "sounds.\(s.id)") }
        }
        for b in self.buses { check(b.curves, "buses.\(b.name)") }
        for set in self.musicSets {
            for state in set.definition.states {
                if case .layers(let layers) = state.content { for l in layers { check(l.curves, "music.\(set.id)") } }
            }
        }
        if duration > 0 {
            for e in events {
                var fade: Double?
                switch e.action {
                case .music(_, .fade(_, let d)): fade = d
                case .music(_, .stop(let d)): fade = d
                case .stop(_, let d): fade = d
                case .set(_, _, let ramp, _): fade = ramp
                case .snapshot(_, _, let d, _): fade = d
                case .vca(_, _, let d): fade = d
                default: break
                }
                if let fade, fade > duration {
                    warn(
                        e, "events",
                        "\(e.label) at \(SceneParser.dB(e.time)) s fades over \(SceneParser.dB(fade)) s, longer than the whole scene (\(SceneParser.dB(duration)) s): "
                            + "fades are seconds (a unit slip?)")
                }
            }
        }
        return out
    }

    /// The distance settings emitter `em` plays with: its own keys over its sound's (a clip has
    /// none of its own: the emitter's, which hold the scene's defaults where it gives no key).
    /// `byID`: ``soundAttenuations``.
    func distanceSettings(of em: SceneEmitter, _ byID: [String: SceneAttenuation]) -> SpatialProperties {
        let own = em.attenuation.spatial(position: .zero)
        guard let sound = byID[em.clip] else { return own }
        return own.withDistance(from: sound.spatial(position: .zero))
    }

    /// Each sound's distance settings by id.
    var soundAttenuations: [String: SceneAttenuation] {
        Dictionary(self.sounds.map { ($0.id, $0.attenuation) }, uniquingKeysWith: { a, _ in a })
    }
}
