import Earshot

/// The plot's parameter lanes: one lane per game parameter of the scene (`parameters:`), the
/// value over time as its `set:` events move it — the global value, and each voice or emitter
/// given its own (`of:`), paced by the ramp or the parameter's seek. Drawn from the scene's events
/// (playback time: a pause that holds a seek is not shown). At most ``maxParameterLanes`` lanes of
/// ``maxParameterSeries`` series each, one value per pixel column: bounded whatever the scene;
/// what is left out is said — "+N more parameters" under the last lane, "+N more" in a lane
/// with more targets. A section's lanes show the values the scene has then (its sets before
/// the section count).
extension LevelPlot {
    /// The most parameter lanes drawn.
    public static let maxParameterLanes = 8
    /// The most series (the global value and `of:` targets) in one lane.
    public static let maxParameterSeries = 4
    static let parameterLaneHeight = 150.0

    /// The height the parameter lanes of `scene` take.
    static func parameterLanesHeight(_ scene: Scene?) -> Double {
        Double(min(scene?.parameters.count ?? 0, maxParameterLanes)) * parameterLaneHeight
    }

    /// The lanes, from `top` down. `events` count from the clock's start; for a section the
    /// scene's own sets before it are taken too, so each lane starts at the value it has there.
    static func parameterLanes(_ scene: Scene, events: [SceneEvent], clock: Clock, top: Double) -> String {
        var out = ""
        var y = top
        let columns = Int(plotW)
        // Scene times: the scene's sets before the section, then those that ran in it.
        var timed = clock.start > 0 ? scene.events.filter { $0.time < clock.start } : []
        timed += events.map { var e = $0; e.time = clock.scene(e.time); return e }
        let drawnLanes = scene.parameters.prefix(maxParameterLanes)
        for (index, p) in drawnLanes.enumerated() {
            // Each series: its sets in time order (target, reached at `seek` per second or over `ramp`).
            var targets: [String?] = [nil]
            var sets: [String?: [(time: Double, value: Double, ramp: Double?)]] = [nil: []]
            var leftOut = Set<String>()
            for e in timed {
                guard case .parameter(let s) = e.action, s.parameter == p.id else { continue }
                if sets[s.of] == nil {
                    guard targets.count < maxParameterSeries else { leftOut.insert(s.of ?? ""); continue }
                    targets.append(s.of)
                    sets[s.of] = []
                }
                sets[s.of]?.append((e.time, s.value, s.ramp))
            }
            var series: [(String, String, [Double?])] = []
            for (k, target) in targets.enumerated() {
                series.append(
                    (
                        target.map { "of \($0)" } ?? "global", colours[k % colours.count],
                        values(
                            p, (sets[target] ?? []).sorted { $0.time < $1.time }, columns: columns, total: clock.total,
                            start: clock.start)
                    ))
            }
            var notes: [String] = []
            if !leftOut.isEmpty {
                notes.append(
                    "+\(leftOut.count) more target\(leftOut.count == 1 ? "" : "s") not drawn (at most \(maxParameterSeries) a lane)"
                )
            }
            let more = scene.parameters.count - drawnLanes.count
            if index == drawnLanes.count - 1, more > 0 {
                notes.append(
                    "+\(more) more parameter\(more == 1 ? "" : "s") not drawn (at most \(maxParameterLanes) lanes)")
            }
            let r = p.range
            let ticks =
                r.lowerBound == r.upperBound
                ? [r.lowerBound] : [r.lowerBound, (r.lowerBound + r.upperBound) / 2, r.upperBound]
            out += lane(
                title: "parameter \(p.id)", unit: p.id, top: y, height: parameterLaneHeight, clock: clock,
                yRange: r.lowerBound == r.upperBound ? (r.lowerBound - 1)...(r.upperBound + 1) : r, ticks: ticks,
                series: series,
                note: notes.isEmpty ? nil : notes.joined(separator: "; "))
            y += parameterLaneHeight
        }
        return out
    }

    /// The value at the middle of each column of `start…start + total` (scene seconds): from the
    /// default, each set moving it toward its value at the seek speed (or over its ramp).
    static func values(_ p: SceneParameter, _ sets: [(time: Double, value: Double, ramp: Double?)], columns: Int,
                       total: Double, start: Double = 0) -> [Double?] {
        var out = [Double?](repeating: nil, count: columns)
        var current = p.defaultValue, from = p.defaultValue, target = p.defaultValue, since = 0.0, speed = 0.0
        var k = 0
        func at(_ t: Double) -> Double {
            guard speed > 0, target != from else { return target }
            let moved = (t - since) * speed
            return abs(target - from) <= moved ? target : from + (target > from ? moved : -moved)
        }
        for c in 0..<columns {
            let t = start + (Double(c) + 0.5) / Double(columns) * total
            while k < sets.count, sets[k].time <= t {
                current = at(sets[k].time)
                from = current
                since = sets[k].time
                target = sets[k].value
                if let ramp = sets[k].ramp { speed = ramp > 0 ? abs(target - from) / ramp : 0 } else { speed = p.seek }
                k += 1
            }
            out[c] = at(t)
        }
        return out
    }
}
