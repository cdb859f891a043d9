import Foundation

/// The plot's lanes under the levels: a lane of per-column series (voices, bus gains, a game
/// parameter) with a legend that names every series, wrapping onto more rows as it needs; and
/// the output limiter's marks on the levels.
extension LevelPlot {
    /// Where a lane's legend begins (after its title) and the height of one legend row.
    static let legendStart = 330.0, legendRowHeight = 13.0

    /// The legend's items placed in rows from ``legendStart`` to the plot's right edge: each
    /// item's x and row. Widths are estimated (11 px sans-serif, about 7 px a character).
    static func legendLayout(_ names: [String]) -> [(x: Double, row: Int)] {
        var out: [(x: Double, row: Int)] = []
        var x = left + legendStart, row = 0
        for name in names {
            let w = 20 + 7 * Double(min(name.count, 40))
            if x + w > left + plotW, x > left + legendStart { x = left + legendStart; row += 1 }
            out.append((x, row))
            x += w
        }
        return out
    }

    /// The height of a lane whose legend names `legend`: 170 px, and a row more for each legend
    /// row past the first.
    static func laneHeight(legend: [String]) -> Double {
        170 + Double(max(0, (legendLayout(legend).last?.row ?? 0))) * legendRowHeight
    }

    /// A lane of per-column series: `series` are (name, colour, values by column (nil: none));
    /// `note` is written under the legend (what was left out).
    static func lane(
        title: String, unit: String, top panelTop: Double, height: Double, clock: Clock,
        yRange: ClosedRange<Double>, ticks: [Double], series: [(String, String, [Double?])], note: String? = nil
    ) -> String {
        let legend = legendLayout(series.map(\.0))
        let rows = Double(legend.last?.row ?? 0)
        let top = panelTop + 30 + rows * legendRowHeight, plotH = height - 30 - 30 - rows * legendRowHeight
        func x(_ t: Double) -> Double { clock.x(t) }
        func y(_ v: Double) -> Double {
            let c = min(max(v, yRange.lowerBound), yRange.upperBound)
            return top + plotH * (yRange.upperBound - c) / (yRange.upperBound - yRange.lowerBound)
        }
        var out =
            "<g class=\"lane\">\n<text x=\"\(f(left))\" y=\"\(f(panelTop + 18))\" font-size=\"13\">\(escape(title))</text>\n"
        out += "<g stroke=\"#ddd\" stroke-width=\"1\">\n"
        for t in ticks {
            out += "<line x1=\"\(f(left))\" y1=\"\(f(y(t)))\" x2=\"\(f(left + plotW))\" y2=\"\(f(y(t)))\"/>\n"
        }
        out += "</g>\n<g fill=\"#444\">\n"
        for t in ticks {
            out += "<text x=\"\(f(left - 6))\" y=\"\(f(y(t) + 4))\" text-anchor=\"end\">\(number(t))</text>\n"
        }
        out +=
            "<text x=\"14\" y=\"\(f(top + plotH / 2))\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(f(top + plotH / 2)))\">\(escape(unit))</text>\n</g>\n"
        out += timeAxis(clock: clock, top: top, plotH: plotH, label: false)
        for (i, (name, colour, values)) in series.enumerated() {
            var points: [String] = []
            let columns = values.count
            for (c, v) in values.enumerated() {
                guard let v else { continue }
                let t0 = Double(c) / Double(columns) * clock.total, t1 = Double(c + 1) / Double(columns) * clock.total
                points.append("\(f(x(t0))),\(f(y(v)))")
                points.append("\(f(x(t1))),\(f(y(v)))")
            }
            out +=
                "<polyline class=\"lane-series\" data-series=\"\(escape(name))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"1.2\" points=\"\(points.joined(separator: " "))\"/>\n"
            let at = legend[i]
            out +=
                "<text class=\"legend\" x=\"\(f(at.x))\" y=\"\(f(panelTop + 18 + Double(at.row) * legendRowHeight))\" fill=\"\(colour)\">■ \(escape(name))</text>\n"
        }
        if let note {
            out +=
                "<text class=\"lane-note\" x=\"\(f(left + plotW))\" y=\"\(f(top + plotH + 14))\" text-anchor=\"end\" fill=\"#666\">\(escape(note))</text>\n"
        }
        return out + "</g>\n"
    }

    static func voicesLane(_ t: SceneTimeline, clock: Clock, top: Double, height: Double) -> String {
        let real = t.maxReal.map { $0 < 0 ? nil : Double($0) }, virtual = t.maxVirtual.map { $0 < 0 ? nil : Double($0) }
        let peak = max(1, (real + virtual).compactMap { $0 }.max() ?? 1)
        let top10 = pow(10, floor(log10(peak)))
        let upper = ceil(peak / top10) * top10
        return lane(title: "voices (most per column)", unit: "voices", top: top, height: height, clock: clock,
                    yRange: 0...upper, ticks: [0, upper / 2, upper],
                    series: [("real", "#1f77b4", real), ("virtual", "#ff7f0e", virtual)])
    }

    /// A red strip along the top of the levels panel over every column where the output limiter
    /// turned the mix down (it would have exceeded full scale), with the time it worked as a tooltip.
    static func limiterMarks(_ t: SceneTimeline, clock: Clock, panelTop: Double, height: Double) -> String {
        let top = panelTop + 40, plotH = height - 40 - 60
        guard t.limitedFrames.contains(where: { $0 > 0 }) else { return "" }
        let columnSeconds = t.duration / Double(SceneTimeline.columns)
        var out = "<g class=\"limiter\" fill=\"#d62728\" fill-opacity=\"0.35\">\n"
        var c = 0
        while c < SceneTimeline.columns {
            guard t.limitedFrames[c] > 0 else { c += 1; continue }
            var end = c
            while end + 1 < SceneTimeline.columns, t.limitedFrames[end + 1] > 0 { end += 1 }
            let x0 = clock.x(Double(c) * columnSeconds), x1 = max(clock.x(Double(end + 1) * columnSeconds), x0 + 1)
            out += "<rect x=\"\(f(x0))\" y=\"\(f(top))\" width=\"\(f(x1 - x0))\" height=\"\(f(min(8, plotH)))\">"
                + "<title>limiter: \(escape(number(clock.scene(Double(c) * columnSeconds))))–\(escape(number(clock.scene(Double(end + 1) * columnSeconds)))) s</title></rect>\n"
            c = end + 1
        }
        out +=
            "<text x=\"\(f(left + 4))\" y=\"\(f(top + 18))\" fill=\"#d62728\" fill-opacity=\"1\">■ limiter</text>\n</g>\n"
        return out
    }

    /// Every bus's gain, each named in the legend (``SceneTimeline/buses``: at most
    /// `SceneLimits.maxBuses`).
    static func busLane(_ t: SceneTimeline, clock: Clock, top: Double, height: Double) -> String {
        let series = busTreeOrder(t).map { b, label -> (String, String, [Double?]) in   // LevelPlot+BusTree.swift
            (label, colours[(b + 2) % colours.count], t.busMaxDB[b].map { $0.isFinite ? Double($0) : nil })
        }
        return lane(
            title: "bus gain (dB, with ducking, pause and mute)", unit: "dB", top: top, height: height, clock: clock,
            yRange: Double(busRange.lowerBound)...Double(busRange.upperBound), ticks: [-60, -40, -20, 0],
            series: series)
    }
}
