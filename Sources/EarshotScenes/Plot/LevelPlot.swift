import Earshot
import Foundation

/// Draws a render as a plain SVG document: the level in dBFS over time, one trace per channel,
/// with session events (hint begin/end, interruptions) as labelled vertical lines across it; a
/// lane of its own for the other events under it (one-shots as ticks, snapshots and stingers
/// labelled, the rest as thin lines: however many, they never cover the levels); and, when
/// given, a loudness lane (momentary and short-term LUFS, the target as a line), lanes of the
/// voices (real and virtual) and of every bus's gain (each bus in the legend), a lane per game parameter, and a top-down map of the listener's and emitters' paths
/// (colour by time, zones, where the listener faces).
///
/// A section (`earshot render --from S --to E`) is drawn on the scene's own clock: its axes read
/// S to E, and the parameter lanes and the map show that stretch of the scene.
///
/// Its size is bounded whatever the render's length: past two points per pixel column a trace
/// becomes a min/max envelope per column, events are drawn at most once per column and kind,
/// labels are capped, and the map draws at most ``maxMapEmitters`` paths of ``mapSamples``
/// points. A one-hour scene's plot stays well under 2 MB.
///
/// The output is self-contained, well-formed XML (every text escaped) that any browser or image
/// viewer shows; nothing but Foundation is needed to make it.
///
/// ```swift
/// let scene = try Scene.load(path: "Demos/Scenes/showcase.yaml")
/// let result = try SceneRenderer(scene: scene).render(to: "out/showcase.wav")
/// let svg = LevelPlot.svg(levels: result.levels, events: scene.events, title: scene.name,
///                         timeline: result.timeline, scene: scene)
/// try svg.write(toFile: "out/showcase.svg", atomically: true, encoding: .utf8)
/// ```
public enum LevelPlot {
    /// The dBFS range drawn (levels below the bottom are drawn at the bottom).
    public static let range: ClosedRange<Float> = -80...0
    /// The dB range of the bus lane.
    public static let busRange: ClosedRange<Float> = -60...12
    /// The most session-event labels written (the rest are lines without a label).
    public static let maxLabels = 60
    /// The most emitters drawn on the map, and the points of each path.
    public static let maxMapEmitters = 200
    public static let mapSamples = 120

    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
                          "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#7b4173", "#e7ba52", "#3182bd"]

    static let width = 1000.0, left = 60.0, right = 20.0
    static var plotW: Double { width - left - right }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// The SVG text. `duration` defaults to the trace's length; `timeline` adds the voice and
    /// bus lanes, `scene` the parameter lanes and the top-down map. `start` is the scene time
    /// the render begins at (a section's `from`): the trace, `events` and `timeline` count from
    /// it, the axes and the scene's paths and parameters go by the scene's clock.
    public static func svg(levels: LevelTrace, events: [SceneEvent], title: String, duration: Double? = nil,
                           timeline: SceneTimeline? = nil, scene: Scene? = nil, start: Double = 0,
                           loudness: [LoudnessTrace.Point]? = nil, loudnessTarget: Double? = nil) -> String {
        let windows = levels.rms.first?.count ?? 0
        let total = max(duration ?? Double(windows) * levels.windowSeconds, levels.windowSeconds)
        let start = start.isFinite ? max(0, start) : 0
        let levelsH = 420.0, laneH = 170.0, mapH = 470.0
        let busH = timeline.map { laneHeight(legend: $0.buses) } ?? 0
        let height = levelsH + eventsLaneHeight + (timeline != nil ? laneH + busH : 0) + (scene != nil ? mapH : 0)
            + parameterLanesHeight(scene) + subtitleLaneHeight(timeline) + (loudness != nil ? loudnessLaneHeight : 0)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
            <title>\(escape(title)): level per channel (\(Int((levels.windowSeconds * 1000).rounded())) ms RMS, dBFS)</title>
            <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="white"/>

            """
        let clock = Clock(start: start, total: total)
        out += levelsPanel(levels: levels, events: events, title: title, clock: clock, top: 0, height: levelsH)
        if let timeline { out += limiterMarks(timeline, clock: clock, panelTop: 0, height: levelsH) }
        if let timeline { out += musicMarks(timeline.music, clock: clock, panelTop: 0, height: levelsH) }
        var y = levelsH
        out += eventsLane(events, clock: clock, top: y)   // LevelPlot+Events.swift
        y += eventsLaneHeight
        if let loudness {   // LevelPlot+Loudness.swift
            out += loudnessLane(loudness, target: loudnessTarget, clock: clock, top: y)
            y += loudnessLaneHeight
        }
        if let timeline {   // LevelPlot+Lanes.swift
            out += voicesLane(timeline, clock: clock, top: y, height: laneH)
            y += laneH
            out += busLane(timeline, clock: clock, top: y, height: busH)
            y += busH
        }
        out += subtitleLane(timeline, clock: clock, top: y)   // LevelPlot+Subtitles.swift
        y += subtitleLaneHeight(timeline)
        if let scene, !scene.parameters.isEmpty {   // a lane per game parameter (LevelPlot+Parameters.swift)
            out += parameterLanes(scene, events: events, clock: clock, top: y)
            y += parameterLanesHeight(scene)
        }
        if let scene { out += mapPanel(scene, clock: clock, top: y, height: mapH) }   // LevelPlot+Map.swift
        out += "</svg>\n"
        return out
    }

    // MARK: Panels

    /// The plot's clock: a render's times (from 0) against the scene's (from `start`), and where
    /// each falls across the plot's width.
    struct Clock {
        var start: Double
        var total: Double
        /// The x of render time `t` (seconds from the render's start).
        func x(_ t: Double) -> Double { left + plotW * min(max(t / total, 0), 1) }
        /// The scene time of render time `t`.
        func scene(_ t: Double) -> Double { start + t }
    }

    /// Time grid and labels of a panel, at round scene times.
    static func timeAxis(clock: Clock, top: Double, plotH: Double, label: Bool) -> String {
        var grid = "<g stroke=\"#ddd\" stroke-width=\"1\">\n", labels = "<g fill=\"#444\">\n"
        let step = [1.0, 2, 5, 10, 30, 60, 300, 600, 1800].first { clock.total / $0 <= 20 } ?? 3600
        var k = (clock.start / step - 1e-9).rounded(.up)
        while k * step <= clock.start + clock.total + 1e-9 {
            let x = f(clock.x(k * step - clock.start))
            grid += "<line x1=\"\(x)\" y1=\"\(f(top))\" x2=\"\(x)\" y2=\"\(f(top + plotH))\"/>\n"
            labels +=
                "<text class=\"time-label\" x=\"\(x)\" y=\"\(f(top + plotH + 16))\" text-anchor=\"middle\">\(number(k * step))</text>\n"
            k += 1
        }
        return grid + "</g>\n" + (label ? labels + "</g>\n" : "")
    }

    static func levelsPanel(levels: LevelTrace, events: [SceneEvent], title: String, clock: Clock, top panelTop: Double,
                            height: Double) -> String {
        let top = panelTop + 40, plotH = height - 40 - 60
        func x(_ t: Double) -> Double { clock.x(t) }
        func y(_ db: Float) -> Double {
            let v = min(max(db, range.lowerBound), range.upperBound)
            return top + plotH * Double((range.upperBound - v) / (range.upperBound - range.lowerBound))
        }
        var out =
            "<text x=\"\(f(left))\" y=\"\(f(panelTop + 20))\" font-size=\"14\">\(escape(title)) — level per channel, "
            + "\(Int((levels.windowSeconds * 1000).rounded())) ms RMS (dBFS)</text>\n"
        out += "<g stroke=\"#ddd\" stroke-width=\"1\">\n"
        var db = range.upperBound
        while db >= range.lowerBound {
            out += "<line x1=\"\(f(left))\" y1=\"\(f(y(db)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y(db)))\"/>\n"
            db -= 10
        }
        out += "</g>\n<g fill=\"#444\">\n"
        db = range.upperBound
        while db >= range.lowerBound {
            out += "<text x=\"\(f(left - 6))\" y=\"\(f(y(db) + 4))\" text-anchor=\"end\">\(Int(db))</text>\n"
            db -= 10
        }
        out +=
            "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(panelTop + height - 8))\" text-anchor=\"middle\">time (s)</text>\n"
        out +=
            "<text x=\"14\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(f(top + plotH / 2)))\">dBFS</text>\n"
        out += "</g>\n"
        out += timeAxis(clock: clock, top: top, plotH: plotH, label: true)

        // Session events across the levels (the others have a lane of their own): at most one
        // line per pixel column and kind, at most maxLabels labels.
        out += "<g class=\"events\">\n"
        var labels = 0
        var drawn = Set<Int>()   // column * 2 + kind
        for e in events where e.time <= clock.total && e.isSessionEvent {
            let ex = f(x(e.time))
            let kind: Int
            if case .hint = e.action { kind = 0 } else { kind = 1 }
            guard drawn.insert(Int(x(e.time)) * 2 + kind).inserted else { continue }
            let colour = kind == 0 ? "#e69f00" : "#cc0000"
            out +=
                "<line class=\"session-event\" x1=\"\(ex)\" y1=\"\(f(top))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"\(colour)\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\"><title>\(escape(number(clock.scene(e.time)))) s: \(escape(e.label))</title></line>\n"
            if labels < maxLabels {
                out +=
                    "<text x=\"\(f(x(e.time) + 3))\" y=\"\(f(top + 12 + Double(labels % 3) * 12))\" fill=\"\(colour)\">\(escape(e.label))</text>\n"
                labels += 1
            }
        }
        out += "</g>\n"

        // One trace per channel: every window while they fit, else a min/max band per column.
        let names = levels.channels == 2 ? ["left", "right"] : (0..<levels.channels).map { "channel \($0 + 1)" }
        let columns = Int(plotW)
        for c in 0..<levels.channels {
            let values = levels.dBFS(channel: c)
            let colour = colours[c % colours.count]
            if values.count <= 2 * columns {
                var points = ""
                points.reserveCapacity(values.count * 12)
                for (i, v) in values.enumerated() {
                    if i > 0 { points += " " }
                    points += "\(f(x((Double(i) + 0.5) * levels.windowSeconds))),\(f(y(v)))"
                }
                out +=
                    "<polyline class=\"channel\" data-channel=\"\(escape(names[c]))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" points=\"\(points)\"/>\n"
            } else {
                var lo = [Float](repeating: .infinity, count: columns),
                    hi = [Float](repeating: -.infinity, count: columns)
                for (i, v) in values.enumerated() {
                    let col = min(columns - 1, Int(x((Double(i) + 0.5) * levels.windowSeconds) - left))
                    lo[col] = min(lo[col], v)
                    hi[col] = max(hi[col], v)
                }
                var upper: [String] = [], lower: [String] = []
                for col in 0..<columns where hi[col] >= lo[col] {
                    upper.append("\(f(left + Double(col) + 0.5)),\(f(y(hi[col])))")
                    lower.append("\(f(left + Double(col) + 0.5)),\(f(y(lo[col])))")
                }
                let points = (upper + lower.reversed()).joined(separator: " ")
                out +=
                    "<polygon class=\"channel\" data-channel=\"\(escape(names[c]))\" fill=\"\(colour)\" fill-opacity=\"0.45\" stroke=\"\(colour)\" stroke-width=\"0.6\" points=\"\(points)\"><title>\(escape(names[c])): lowest and highest level per pixel column</title></polygon>\n"
            }
            out +=
                "<text x=\"\(f(left + plotW - 110 + Double(c % 2) * 55))\" y=\"\(f(top - 6 - Double(c / 2) * 12))\" fill=\"\(colour)\">■ \(escape(names[c]))</text>\n"
        }
        return out
    }

    static func number(_ v: Double) -> String {
        v.rounded() == v ? String(Int(v)) : String(format: "%.3g", v)
    }

    /// Escapes text for XML content and attribute values.
    static func escape(_ s: String) -> String {
        var r = ""
        r.reserveCapacity(s.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": r += "&amp;"
            case "<": r += "&lt;"
            case ">": r += "&gt;"
            case "\"": r += "&quot;"
            case "'": r += "&apos;"
            default:
                // XML 1.0 forbids most control characters.
                if ch.value < 0x20, ch != "\t", ch != "\n", ch != "\r" { r += " " } else { r.unicodeScalars.append(ch) }
            }
        }
        return r
    }
}
