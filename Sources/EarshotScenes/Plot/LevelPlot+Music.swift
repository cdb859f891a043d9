import Foundation

/// The music marks on the level panel: a short tick at the top for each bar line of the music
/// (at most one per pixel column), and a labelled purple line where a music set's new state
/// begins.
extension LevelPlot {
    static func musicMarks(_ m: SceneMusicMarks, clock: Clock, panelTop: Double, height: Double) -> String {
        guard !m.bars.isEmpty || !m.changes.isEmpty else { return "" }
        let top = panelTop + 40, plotH = height - 40 - 60
        let total = clock.total
        func x(_ t: Double) -> Double { clock.x(t) }
        var out = "<g class=\"music-bars\" stroke=\"#7570b3\" stroke-width=\"1\">\n"
        for t in m.bars where t <= total {
            out +=
                "<line x1=\"\(f(x(t)))\" y1=\"\(f(top))\" x2=\"\(f(x(t)))\" y2=\"\(f(top + 6))\"><title>bar \(escape(number(clock.scene(t)))) s</title></line>\n"
        }
        out += "</g>\n<g class=\"music-states\">\n"
        for (i, c) in m.changes.enumerated() where c.time <= total {
            let cx = f(x(c.time))
            out +=
                "<line x1=\"\(cx)\" y1=\"\(f(top))\" x2=\"\(cx)\" y2=\"\(f(top + plotH))\" stroke=\"#7570b3\" stroke-width=\"1.5\"><title>\(escape(number(clock.scene(c.time)))) s: \(escape(c.label))</title></line>\n"
            if i < maxLabels {
                out +=
                    "<text x=\"\(f(x(c.time) + 3))\" y=\"\(f(top + plotH - 6 - Double(i % 3) * 12))\" fill=\"#7570b3\">\(escape(c.label))</text>\n"
            }
        }
        out += "</g>\n"
        if !m.bars.isEmpty {
            out += "<text x=\"\(f(left + 70))\" y=\"\(f(top + 18))\" fill=\"#7570b3\">| bars</text>\n"
        }
        return out
    }
}
