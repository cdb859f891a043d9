import Earshot
import Foundation
import Yams

/// An event on a bar line of the scene's music: `{ at: { bar: 9 }, play: crash }`, with an
/// optional `delay:` after it.
public struct SceneBarAt: Sendable, Equatable {
    /// The bar, counted from 1.
    public var bar: Int
    /// Seconds after the bar line (0…3600).
    public var delay: Double
}

/// Events placed on bars (`at: { bar: N }`): bar N of the music the scene starts first — the
/// earliest event that plays a track with a tempo (`bpm:`) or a music set — counted on that
/// music's tempo from its start, as if its bars ran on without a break (a loop whose length is
/// not whole bars restarts the file's count; a state change at a bar line of the same tempo keeps
/// it). The time is worked out once the events are read, so the event is an ordinary timed one.
extension SceneParser {
    /// The most bars an event may name.
    static let maxBar = 1_000_000

    /// Whether the `at:` mapping `node` names a bar.
    func isBarAt(_ node: Node) -> Bool {
        guard case .mapping(let m) = node else { return false }
        return m.contains { k, _ in if case .scalar(let s) = k { return s.string == "bar" } else { return false } }
    }

    /// The `at: { bar: N }` mapping `node` of event `key`.
    mutating func barAt(_ node: Node, _ key: String, delay: Double) -> SceneBarAt? {
        guard let m = mapping(node, key, allowed: ["bar"], required: ["bar"]), let n = m["bar"],
              let bar = integer(n, "\(key).bar", in: 1...Self.maxBar) else { return nil }
        return SceneBarAt(bar: bar, delay: delay)
    }

    /// Gives each bar event its time, from the first music with a tempo the scene starts.
    mutating func placeBars(
        _ bars: [(event: Int, bar: SceneBarAt, node: Node, index: Int)], in events: inout [SceneEvent],
        music: [SceneMusic], sets: [SceneMusicSet], duration: Double?
    ) {
        let tracks = Dictionary(music.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let setsByID = Dictionary(sets.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        // (start, tempo, seconds of the file skipped at the start, rate)
        var grid: (start: Double, tempo: Tempo, skip: Double, rate: Double)?
        for e in events where grid == nil || e.time < grid!.start {
            switch e.action {
            case .music(let id, .play(_, let rate, _)):
                guard let m = tracks[id], let t = m.tempo else { continue }
                grid = (e.time, t, 0, Double(rate ?? m.rate))
            case .musicSet(let id, let a):
                let named: String?
                switch a {
                case .state(let s): named = s
                case .play(let s): named = s
                default: continue
                }
                guard let def = setsByID[id]?.definition,
                      let state = named.flatMap({ n in def.states.first { $0.name == n } }) ?? def.states.first,
                      let lead = state.segments.first, let t = lead.tempo else { continue }
                grid = (e.time, t, lead.entry.flatMap { lead.cues[$0] } ?? 0, 1)
            default:
                continue
            }
        }
        for b in bars {
            let key = "events[\(b.index)].at.bar"
            guard let g = grid else {
                fail(
                    child(child(b.node, "at"), "bar"), key,
                    "no music with a tempo starts in this scene: give a music entry bpm: and play it (or start a music set whose state has bpm:)"
                )
                continue
            }
            let barSeconds: Double = 60 / g.tempo.bpm * Double(g.tempo.beatsPerBar)
            let intoFile: Double = g.tempo.firstBeat + Double(b.bar.bar - 1) * barSeconds - g.skip
            let t: Double = g.start + intoFile / max(g.rate, 0.5) + b.bar.delay
            if t < g.start {
                fail(
                    child(child(b.node, "at"), "bar"), key,
                    "bar \(b.bar.bar) lies before the music starts (its state's entry cue is later)")
            } else if let duration, t > duration {
                fail(
                    child(child(b.node, "at"), "bar"), key,
                    "bar \(b.bar.bar) falls at \(Self.format(t)) s, after the scene's end (\(Self.format(duration)) s)")
            } else {
                events[b.event].time = t
            }
        }
    }
}
