import Foundation

/// Draws a ``LevelTrace`` as a plain SVG document: level in dBFS over time, one polyline per
/// channel, with the scene's events marked — session events (hint begin/end, interruptions) as
/// labelled vertical lines, one-shots as ticks along the bottom, other events as thin lines.
///
/// The output is self-contained, well-formed XML (every text escaped) that any browser or image
/// viewer shows; nothing but Foundation is needed to make it.
///
/// ```swift
/// let scene = try Scene.load(path: "Demos/Scenes/showcase.yaml")
/// let result = try SceneRenderer(scene: scene).render(to: "out/showcase.wav")
/// let svg = LevelPlot.svg(levels: result.levels, events: scene.events, title: scene.name)
/// try svg.write(toFile: "out/showcase.svg", atomically: true, encoding: .utf8)
/// ```
public enum LevelPlot {
    /// The dBFS range drawn (levels below the bottom are drawn at the bottom).
    public static let range: ClosedRange<Float> = -80...0

    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f"]

    /// The SVG text. `duration` defaults to the trace's length.
    public static func svg(levels: LevelTrace, events: [SceneEvent], title: String, duration: Double? = nil) -> String {
        let width = 1000.0, height = 420.0
        let left = 60.0, right = 20.0, top = 40.0, bottom = 60.0
        let plotW = width - left - right, plotH = height - top - bottom
        let windows = levels.rms.first?.count ?? 0
        let total = max(duration ?? Double(windows) * levels.windowSeconds, levels.windowSeconds)
        func x(_ t: Double) -> Double { left + plotW * min(max(t / total, 0), 1) }
        func y(_ db: Float) -> Double {
            let v = min(max(db, range.lowerBound), range.upperBound)
            return top + plotH * Double((range.upperBound - v) / (range.upperBound - range.lowerBound))
        }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
            viewBox="0 0 \(Int(width)) \(Int(height))" font-family="sans-serif" font-size="11">
            <title>\(escape(title)): level per channel (\(Int((levels.windowSeconds * 1000).rounded())) ms RMS, dBFS)</title>
            <rect x="0" y="0" width="\(Int(width))" height="\(Int(height))" fill="white"/>
            <text x="\(f(left))" y="20" font-size="14">\(escape(title)) — level per channel, \
            \(Int((levels.windowSeconds * 1000).rounded())) ms RMS (dBFS)</text>

            """
        // Grid: dB lines every 10 dB, time ticks every second (or coarser for long scenes).
        out += "<g stroke=\"#ddd\" stroke-width=\"1\">\n"
        var db = range.upperBound
        while db >= range.lowerBound {
            out += "<line x1=\"\(f(left))\" y1=\"\(f(y(db)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y(db)))\"/>\n"
            db -= 10
        }
        let step = [1.0, 2, 5, 10, 30, 60, 300, 600].first { total / $0 <= 20 } ?? 3600
        var t = 0.0
        while t <= total + 1e-9 {
            out += "<line x1=\"\(f(x(t)))\" y1=\"\(f(top))\" x2=\"\(f(x(t)))\" y2=\"\(f(top + plotH))\"/>\n"
            t += step
        }
        out += "</g>\n<g fill=\"#444\">\n"
        db = range.upperBound
        while db >= range.lowerBound {
            out += "<text x=\"\(f(left - 6))\" y=\"\(f(y(db) + 4))\" text-anchor=\"end\">\(Int(db))</text>\n"
            db -= 10
        }
        t = 0
        while t <= total + 1e-9 {
            out += "<text x=\"\(f(x(t)))\" y=\"\(f(top + plotH + 16))\" text-anchor=\"middle\">\(LevelPlot.number(t))</text>\n"
            t += step
        }
        out += "<text x=\"\(f(left + plotW / 2))\" y=\"\(f(height - 8))\" text-anchor=\"middle\">time (s)</text>\n"
        out += "<text x=\"14\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(f(top + plotH / 2)))\">dBFS</text>\n"
        out += "</g>\n"

        // Events.
        out += "<g class=\"events\">\n"
        var labelRow = 0
        for e in events where e.time <= total {
            let ex = f(x(e.time))
            switch e.action {
            case .hint, .interruption:
                let colour: String
                if case .hint = e.action { colour = "#e69f00" } else { colour = "#cc0000" }
                out += "<line x1=\"\(ex)\" y1=\"\(f(top))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"\(colour)\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>\n"
                out += "<text x=\"\(f(x(e.time) + 3))\" y=\"\(f(top + 12 + Double(labelRow % 3) * 12))\" fill=\"\(colour)\">\(escape(e.label))</text>\n"
                labelRow += 1
            case .play:
                out += "<line x1=\"\(ex)\" y1=\"\(f(top + plotH - 10))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"#009e73\" stroke-width=\"2\"><title>\(escape(LevelPlot.number(e.time))) s: \(escape(e.label))</title></line>\n"
            case .music, .stop, .start, .set:
                out += "<line x1=\"\(ex)\" y1=\"\(f(top))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"#999\" stroke-width=\"0.8\"><title>\(escape(LevelPlot.number(e.time))) s: \(escape(e.label))</title></line>\n"
            }
        }
        out += "</g>\n"

        // One trace per channel.
        let names = levels.channels == 2 ? ["left", "right"] : (0..<levels.channels).map { "channel \($0 + 1)" }
        for c in 0..<levels.channels {
            let values = levels.dBFS(channel: c)
            var points = ""
            points.reserveCapacity(values.count * 12)
            for (i, v) in values.enumerated() {
                if i > 0 { points += " " }
                points += "\(f(x((Double(i) + 0.5) * levels.windowSeconds))),\(f(y(v)))"
            }
            let colour = colours[c % colours.count]
            out += "<polyline class=\"channel\" data-channel=\"\(escape(names[c]))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" points=\"\(points)\"/>\n"
            out += "<text x=\"\(f(left + plotW - 110 + Double(c % 2) * 55))\" y=\"\(f(top - 6 - Double(c / 2) * 12))\" fill=\"\(colour)\">■ \(escape(names[c]))</text>\n"
        }
        out += "</svg>\n"
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
