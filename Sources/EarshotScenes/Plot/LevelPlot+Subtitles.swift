import EarshotContent

/// The subtitle lane: each subtitle the render showed as a bar from its `show` to its `hide`,
/// its text written in it (cut to fit) and whole in its tooltip; lines that overlap in time
/// (two speakers) take turns on three rows.
extension LevelPlot {
    static let subtitleRowHeight = 18.0

    /// The lane's height: none without subtitles.
    static func subtitleLaneHeight(_ timeline: SceneTimeline?) -> Double {
        guard let t = timeline, !t.subtitles.isEmpty else { return 0 }
        return 3 * subtitleRowHeight + 24
    }

    static func subtitleLane(_ timeline: SceneTimeline?, clock: Clock, top panelTop: Double) -> String {
        guard let subtitles = timeline?.subtitles, !subtitles.isEmpty else { return "" }
        let top = panelTop + 8, plotH = 3 * subtitleRowHeight
        var out = "<g class=\"subtitle-lane\">\n<text x=\"\(f(left - 6))\" y=\"\(f(top + plotH / 2 + 4))\" text-anchor=\"end\" fill=\"#444\">subtitles</text>\n"
        out += "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#ddd\"/>\n"
        var rowEnds = [-Double.infinity, -.infinity, -.infinity]
        for s in subtitles where s.start <= clock.total {
            // The first row free at its start (else the one that frees first).
            let row = rowEnds.firstIndex { $0 <= s.start } ?? (rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] } ?? 0)
            rowEnds[row] = s.end
            let x0 = clock.x(s.start), x1 = max(clock.x(s.end), x0 + 1)
            let y = top + Double(row) * subtitleRowHeight + 2
            let chars = max(0, Int((x1 - x0 - 6) / 6))
            let text = s.text.replacingOccurrences(of: "\n", with: " ")
            let shown = text.count <= chars ? text : String(text.prefix(max(0, chars - 1))) + (chars > 0 ? "…" : "")
            out += "<rect class=\"subtitle\" x=\"\(f(x0))\" y=\"\(f(y))\" width=\"\(f(x1 - x0))\" height=\"\(f(subtitleRowHeight - 4))\" fill=\"#e69f00\" fill-opacity=\"0.35\" stroke=\"#e69f00\">"
                + "<title>\(escape(number(clock.scene(s.start))))–\(escape(number(clock.scene(s.end)))) s: \(escape(text))</title></rect>\n"
            if !shown.isEmpty {
                out += "<text x=\"\(f(x0 + 3))\" y=\"\(f(y + subtitleRowHeight - 8))\" fill=\"#222\" font-size=\"10\">\(escape(shown))</text>\n"
            }
        }
        return out + "</g>\n"
    }
}
