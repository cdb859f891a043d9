import Earshot
import Foundation

/// Draws a render as a plain SVG document: the level in dBFS over time, one trace per channel,
/// with the scene's events marked — session events (hint begin/end, interruptions) as labelled
/// vertical lines, one-shots as ticks along the bottom, other events as thin lines — and, when
/// given, lanes of the voices (real and virtual) and of every bus's gain, and a top-down map of
/// the listener's and emitters' paths (colour by time, zones, where the listener faces).
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

    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"]

    static let width = 1000.0, left = 60.0, right = 20.0
    static var plotW: Double { width - left - right }

    static func f(_ v: Double) -> String { String(format: "%.1f", v) }

    /// The SVG text. `duration` defaults to the trace's length; `timeline` adds the voice and
    /// bus lanes, `scene` the top-down map.
    public static func svg(levels: LevelTrace, events: [SceneEvent], title: String, duration: Double? = nil,
                           timeline: SceneTimeline? = nil, scene: Scene? = nil) -> String {
        let windows = levels.rms.first?.count ?? 0
        let total = max(duration ?? Double(windows) * levels.windowSeconds, levels.windowSeconds)
        let levelsH = 420.0, laneH = 170.0, mapH = 470.0
        let height = levelsH + (timeline != nil ? 2 * laneH : 0) + (scene != nil ? mapH : 0) + parameterLanesHeight(scene)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
            <title>\(escape(title)): level per channel (\(Int((levels.windowSeconds * 1000).rounded())) ms RMS, dBFS)</title>
            <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="white"/>

            """
        out += levelsPanel(levels: levels, events: events, title: title, total: total, top: 0, height: levelsH)
        if let timeline { out += limiterMarks(timeline, total: total, panelTop: 0, height: levelsH) }
        if let timeline { out += musicMarks(timeline.music, total: total, panelTop: 0, height: levelsH) }
        var y = levelsH
        if let timeline {
            out += voicesLane(timeline, total: total, top: y, height: laneH)
            y += laneH
            out += busLane(timeline, total: total, top: y, height: laneH)
            y += laneH
        }
        if let scene, !scene.parameters.isEmpty {   // a lane per game parameter (LevelPlot+Parameters.swift)
            out += parameterLanes(scene, events: events, total: total, top: y)
            y += parameterLanesHeight(scene)
        }
        if let scene { out += mapPanel(scene, total: total, top: y, height: mapH) }
        out += "</svg>\n"
        return out
    }

    // MARK: Panels

    /// Time grid and labels of a panel.
    static func timeAxis(total: Double, top: Double, plotH: Double, x: (Double) -> Double, label: Bool) -> String {
        var out = "<g stroke=\"#ddd\" stroke-width=\"1\">\n"
        let step = [1.0, 2, 5, 10, 30, 60, 300, 600, 1800].first { total / $0 <= 20 } ?? 3600
        var t = 0.0
        while t <= total + 1e-9 {
            out += "<line x1=\"\(f(x(t)))\" y1=\"\(f(top))\" x2=\"\(f(x(t)))\" y2=\"\(f(top + plotH))\"/>\n"
            t += step
        }
        out += "</g>\n"
        if label {
            out += "<g fill=\"#444\">\n"
            t = 0
            while t <= total + 1e-9 {
                out += "<text x=\"\(f(x(t)))\" y=\"\(f(top + plotH + 16))\" text-anchor=\"middle\">\(number(t))</text>\n"
                t += step
            }
            out += "</g>\n"
        }
        return out
    }

    static func levelsPanel(levels: LevelTrace, events: [SceneEvent], title: String, total: Double, top panelTop: Double,
                            height: Double) -> String {
        let top = panelTop + 40, plotH = height - 40 - 60
        func x(_ t: Double) -> Double { left + plotW * min(max(t / total, 0), 1) }
        func y(_ db: Float) -> Double {
            let v = min(max(db, range.lowerBound), range.upperBound)
            return top + plotH * Double((range.upperBound - v) / (range.upperBound - range.lowerBound))
        }
        var out = "<text x=\"\(f(left))\" y=\"\(f(panelTop + 20))\" font-size=\"14\">\(escape(title)) — level per channel, "
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
        out += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(panelTop + height - 8))\" text-anchor=\"middle\">time (s)</text>\n"
        out += "<text x=\"14\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(f(top + plotH / 2)))\">dBFS</text>\n"
        out += "</g>\n"
        out += timeAxis(total: total, top: top, plotH: plotH, x: x, label: true)

        // Events: at most one mark per pixel column and kind, at most maxLabels labels.
        out += "<g class=\"events\">\n"
        var labels = 0
        var drawn = Set<Int>()   // column * 4 + kind
        for e in events where e.time <= total {
            let ex = f(x(e.time))
            let kind: Int
            switch e.action {
            case .hint: kind = 0
            case .interruption: kind = 1
            case .play: kind = 2
            case .music, .stop, .start, .set, .snapshot, .parameter, .musicSet: kind = 3
            }
            guard drawn.insert(Int(x(e.time)) * 4 + kind).inserted else { continue }
            switch kind {
            case 0, 1:
                let colour = kind == 0 ? "#e69f00" : "#cc0000"
                out += "<line x1=\"\(ex)\" y1=\"\(f(top))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"\(colour)\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>\n"
                if labels < maxLabels {
                    out += "<text x=\"\(f(x(e.time) + 3))\" y=\"\(f(top + 12 + Double(labels % 3) * 12))\" fill=\"\(colour)\">\(escape(e.label))</text>\n"
                    labels += 1
                }
            case 2:
                out += "<line x1=\"\(ex)\" y1=\"\(f(top + plotH - 10))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"#009e73\" stroke-width=\"2\"><title>\(escape(number(e.time))) s: \(escape(e.label))</title></line>\n"
            default:
                out += "<line x1=\"\(ex)\" y1=\"\(f(top))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"#999\" stroke-width=\"0.8\"><title>\(escape(number(e.time))) s: \(escape(e.label))</title></line>\n"
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
                out += "<polyline class=\"channel\" data-channel=\"\(escape(names[c]))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" points=\"\(points)\"/>\n"
            } else {
                var lo = [Float](repeating: .infinity, count: columns), hi = [Float](repeating: -.infinity, count: columns)
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
                out += "<polygon class=\"channel\" data-channel=\"\(escape(names[c]))\" fill=\"\(colour)\" fill-opacity=\"0.45\" stroke=\"\(colour)\" stroke-width=\"0.6\" points=\"\(points)\"><title>\(escape(names[c])): lowest and highest level per pixel column</title></polygon>\n"
            }
            out += "<text x=\"\(f(left + plotW - 110 + Double(c % 2) * 55))\" y=\"\(f(top - 6 - Double(c / 2) * 12))\" fill=\"\(colour)\">■ \(escape(names[c]))</text>\n"
        }
        return out
    }

    /// A lane of per-column series: `series` are (name, colour, values by column (nil: none)).
    static func lane(title: String, unit: String, top panelTop: Double, height: Double, total: Double,
                     yRange: ClosedRange<Double>, ticks: [Double], series: [(String, String, [Double?])]) -> String {
        let top = panelTop + 30, plotH = height - 30 - 30
        func x(_ t: Double) -> Double { left + plotW * min(max(t / total, 0), 1) }
        func y(_ v: Double) -> Double {
            let c = min(max(v, yRange.lowerBound), yRange.upperBound)
            return top + plotH * (yRange.upperBound - c) / (yRange.upperBound - yRange.lowerBound)
        }
        var out = "<g class=\"lane\">\n<text x=\"\(f(left))\" y=\"\(f(panelTop + 18))\" font-size=\"13\">\(escape(title))</text>\n"
        out += "<g stroke=\"#ddd\" stroke-width=\"1\">\n"
        for t in ticks { out += "<line x1=\"\(f(left))\" y1=\"\(f(y(t)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y(t)))\"/>\n" }
        out += "</g>\n<g fill=\"#444\">\n"
        for t in ticks { out += "<text x=\"\(f(left - 6))\" y=\"\(f(y(t) + 4))\" text-anchor=\"end\">\(number(t))</text>\n" }
        out += "<text x=\"14\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(f(top + plotH / 2)))\">\(escape(unit))</text>\n</g>\n"
        out += timeAxis(total: total, top: top, plotH: plotH, x: x, label: false)
        for (i, (name, colour, values)) in series.enumerated() {
            var points: [String] = []
            let columns = values.count
            for (c, v) in values.enumerated() {
                guard let v else { continue }
                let t0 = Double(c) / Double(columns) * total, t1 = Double(c + 1) / Double(columns) * total
                points.append("\(f(x(t0))),\(f(y(v)))")
                points.append("\(f(x(t1))),\(f(y(v)))")
            }
            out += "<polyline class=\"lane-series\" data-series=\"\(escape(name))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" points=\"\(points.joined(separator: " "))\"/>\n"
            out += "<text x=\"\(f(left + plotW - 260 + Double(i) * 65))\" y=\"\(f(panelTop + 18))\" fill=\"\(colour)\">■ \(escape(name))</text>\n"
        }
        return out + "</g>\n"
    }

    static func voicesLane(_ t: SceneTimeline, total: Double, top: Double, height: Double) -> String {
        let real = t.maxReal.map { $0 < 0 ? nil : Double($0) }, virtual = t.maxVirtual.map { $0 < 0 ? nil : Double($0) }
        let peak = max(1, (real + virtual).compactMap { $0 }.max() ?? 1)
        let top10 = pow(10, floor(log10(peak)))
        let upper = ceil(peak / top10) * top10
        return lane(title: "voices (most per column)", unit: "voices", top: top, height: height, total: total,
                    yRange: 0...upper, ticks: [0, upper / 2, upper],
                    series: [("real", "#1f77b4", real), ("virtual", "#ff7f0e", virtual)])
    }

    /// A red strip along the top of the levels panel over every column where the output limiter
    /// turned the mix down (it would have exceeded full scale), with the time it worked as a tooltip.
    static func limiterMarks(_ t: SceneTimeline, total: Double, panelTop: Double, height: Double) -> String {
        let top = panelTop + 40, plotH = height - 40 - 60
        guard t.limitedFrames.contains(where: { $0 > 0 }) else { return "" }
        let columnSeconds = t.duration / Double(SceneTimeline.columns)
        func x(_ time: Double) -> Double { left + plotW * min(max(time / total, 0), 1) }
        var out = "<g class=\"limiter\" fill=\"#d62728\" fill-opacity=\"0.35\">\n"
        var c = 0
        while c < SceneTimeline.columns {
            guard t.limitedFrames[c] > 0 else { c += 1; continue }
            var end = c
            while end + 1 < SceneTimeline.columns, t.limitedFrames[end + 1] > 0 { end += 1 }
            let x0 = x(Double(c) * columnSeconds), x1 = max(x(Double(end + 1) * columnSeconds), x0 + 1)
            out += "<rect x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(x1 - x0))\" height=\"\(f(min(8, plotH)))\">"
                + "<title>limiter: \(escape(number(Double(c) * columnSeconds)))–\(escape(number(Double(end + 1) * columnSeconds))) s</title></rect>\n"
            c = end + 1
        }
        out += "<text x=\"\(f(left + 4))\" y=\"\(f(top + 18))\" fill=\"#d62728\" fill-opacity=\"1\">■ limiter</text>\n</g>\n"
        return out
    }

    static func busLane(_ t: SceneTimeline, total: Double, top: Double, height: Double) -> String {
        let series = t.buses.enumerated().map { b, name -> (String, String, [Double?]) in
            (name, colours[(b + 2) % colours.count], t.busMaxDB[b].map { $0.isFinite ? Double($0) : nil })
        }
        return lane(title: "bus gain (dB, with ducking, pause and mute)", unit: "dB", top: top, height: height, total: total,
                    yRange: Double(busRange.lowerBound)...Double(busRange.upperBound), ticks: [-60, -40, -20, 0],
                    series: series)
    }

    /// Top-down: x to the right, −z (the default listener's front) up.
    static func mapPanel(_ scene: Scene, total: Double, top panelTop: Double, height: Double) -> String {
        let top = panelTop + 30, plotH = height - 30 - 20
        let drawn = Array(scene.emitters.prefix(maxMapEmitters))
        func samples(_ path: ScenePath) -> [(Double, Vector3)] {
            (0...mapSamples).map { i in let t = total * Double(i) / Double(mapSamples); return (t, path.position(at: t)) }
        }
        let listener = samples(scene.listener.path)
        let emitters = drawn.map { ($0.id, samples($0.path)) }
        var xs = listener.map { Double($0.1.x) } + emitters.flatMap { $0.1.map { Double($0.1.x) } }
        var zs = listener.map { Double($0.1.z) } + emitters.flatMap { $0.1.map { Double($0.1.z) } }
        for zone in scene.zones {
            switch zone.shape {
            case .sphere(let c, let r): xs += [Double(c.x - r), Double(c.x + r)]; zs += [Double(c.z - r), Double(c.z + r)]
            case .box(let c, let s): xs += [Double(c.x - s.x / 2), Double(c.x + s.x / 2)]; zs += [Double(c.z - s.z / 2), Double(c.z + s.z / 2)]
            }
        }
        let minX = (xs.min() ?? -1) - 1, maxX = (xs.max() ?? 1) + 1, minZ = (zs.min() ?? -1) - 1, maxZ = (zs.max() ?? 1) + 1
        let scale = min(plotW / (maxX - minX), plotH / (maxZ - minZ))
        let ox = left + (plotW - (maxX - minX) * scale) / 2, oy = top + (plotH - (maxZ - minZ) * scale) / 2
        func px(_ v: Vector3) -> (Double, Double) { (ox + (Double(v.x) - minX) * scale, oy + (Double(v.z) - minZ) * scale) }
        func colour(_ t: Double) -> String {
            // Blue (start) to red (end).
            let hue = 240 * (1 - min(max(t / max(total, 1e-9), 0), 1))
            return "hsl(\(Int(hue)),70%,45%)"
        }
        var out = "<g class=\"map\">\n<text x=\"\(f(left))\" y=\"\(f(panelTop + 18))\" font-size=\"13\">top-down map (x right, −z up; colour: time, blue → red; "
            + "\(f(1 / scale * 100)) m per 100 px)</text>\n"
        out += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#ddd\"/>\n"
        for zone in scene.zones {
            switch zone.shape {
            case .sphere(let c, let r):
                let (cx, cy) = px(c)
                out += "<circle class=\"zone\" cx=\"\(f(cx))\" cy=\"\(f(cy))\" r=\"\(f(Double(r) * scale))\" fill=\"#cfe8ff\" fill-opacity=\"0.5\" stroke=\"#7fb3e0\"><title>zone \(escape(zone.name))</title></circle>\n"
            case .box(let c, let s):
                let (x0, y0) = px(Vector3(c.x - s.x / 2, 0, c.z - s.z / 2))
                out += "<rect class=\"zone\" x=\"\(f(x0))\" y=\"\(f(y0))\" width=\"\(f(Double(s.x) * scale))\" height=\"\(f(Double(s.z) * scale))\" fill=\"#cfe8ff\" fill-opacity=\"0.5\" stroke=\"#7fb3e0\"><title>zone \(escape(zone.name))</title></rect>\n"
            }
        }
        func path(_ name: String, _ points: [(Double, Vector3)], width: Double) -> String {
            var s = ""
            let segments = 24
            let per = max(1, points.count / segments)
            var i = 0
            while i < points.count - 1 {
                let j = min(points.count - 1, i + per)
                let pts = points[i...j].map { p in let (a, b) = px(p.1); return "\(f(a)),\(f(b))" }.joined(separator: " ")
                s += "<polyline class=\"map-path\" data-name=\"\(escape(name))\" fill=\"none\" stroke=\"\(colour(points[i].0))\" stroke-width=\"\(width)\" points=\"\(pts)\"/>\n"
                i = j
            }
            let (sx, sy) = px(points[0].1)
            s += "<circle cx=\"\(f(sx))\" cy=\"\(f(sy))\" r=\"3\" fill=\"\(colour(0))\"/><text x=\"\(f(sx + 5))\" y=\"\(f(sy - 5))\" fill=\"#333\">\(escape(name))</text>\n"
            return s
        }
        for (id, points) in emitters { out += path(id, points, width: 1.5) }
        out += path("listener", listener, width: 3)
        // Where the listener faces, at eleven moments.
        for i in 0...10 {
            let t = total * Double(i) / 10
            let l = scene.listener.listener(at: t)
            let (ax, ay) = px(l.position)
            let d = Vector3(l.at.x, 0, l.at.z)
            guard d.length > 1e-6 else { continue }
            let u = d * (1 / d.length)
            let bx = ax + Double(u.x) * 18, by = ay + Double(u.z) * 18
            out += "<line class=\"facing\" x1=\"\(f(ax))\" y1=\"\(f(ay))\" x2=\"\(f(bx))\" y2=\"\(f(by))\" stroke=\"\(colour(t))\" stroke-width=\"2\"><title>\(number(t)) s: facing</title></line>\n"
        }
        if scene.emitters.count > drawn.count {
            out += "<text x=\"\(f(left + 4))\" y=\"\(f(top + plotH - 6))\" fill=\"#666\">and \(scene.emitters.count - drawn.count) more emitters not drawn</text>\n"
        }
        return out + "</g>\n"
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
