import Foundation

/// The plot's event lane, under the levels: every event but the session ones (which cross the
/// levels, few and important) — one-shots as green ticks along its bottom, snapshots and
/// stingers as coloured lines with their labels, the rest as thin grey lines. However many
/// events a scene has (1,500 or 100,000), they stay in this lane and the levels stay readable:
/// at most one mark per pixel column and kind, at most ``maxLabels`` labels.
extension LevelPlot {
    /// The event lane's height.
    static let eventsLaneHeight = 90.0

    /// What an event is drawn as in the lane (session events are drawn on the levels).
    enum EventMark: Int, CaseIterable {
        case play, snapshot, stinger, other

        init?(_ e: SceneEvent) {
            switch e.action {
            case .hint, .interruption: return nil
            case .play: self = .play
            case .snapshot, .vca: self = .snapshot   // mix moves, labelled alike
            case .musicSet(_, let a):
                if case .stinger = a { self = .stinger } else { self = .other }
            case .music, .stop, .start, .set, .parameter, .say, .portal, .bed: self = .other
            }
        }

        var colour: String {
            switch self {
            case .play: return "#009e73"
            case .snapshot: return "#0072b2"
            case .stinger: return "#cc79a7"
            case .other: return "#999"
            }
        }

        /// Snapshots and stingers are named on the plot; the others in their tooltip.
        var labelled: Bool { self == .snapshot || self == .stinger }
    }

    static func eventsLane(_ events: [SceneEvent], clock: Clock, top panelTop: Double) -> String {
        let top = panelTop + 8, plotH = eventsLaneHeight - 8 - 10
        func x(_ t: Double) -> Double { clock.x(t) }
        var out =
            "<g class=\"events-lane\">\n<text x=\"\(f(left - 6))\" y=\"\(f(top + plotH / 2 + 4))\" text-anchor=\"end\" fill=\"#444\">events</text>\n"
        out +=
            "<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotW))\" height=\"\(f(plotH))\" fill=\"none\" stroke=\"#ddd\"/>\n"
        var drawn = Set<Int>()  // column * kinds + kind
        var labels = 0, unlabelled = 0
        for e in events where e.time <= clock.total {
            guard let mark = EventMark(e) else { continue }
            let column = Int(x(e.time))
            let tooltip = "<title>\(escape(number(clock.scene(e.time)))) s: \(escape(e.label))</title>"
            if mark.labelled {
                // Every snapshot and stinger keeps its label (up to the cap), even in a busy column.
                if labels < maxLabels {
                    out +=
                        "<text class=\"event-label\" x=\"\(f(x(e.time) + 3))\" y=\"\(f(top + 11 + Double(labels % 3) * 12))\" fill=\"\(mark.colour)\">\(escape(e.label))</text>\n"
                    labels += 1
                } else {
                    unlabelled += 1
                }
            }
            guard drawn.insert(column * EventMark.allCases.count + mark.rawValue).inserted else { continue }
            let ex = f(x(e.time))
            switch mark {
            case .play:
                out +=
                    "<line class=\"event-mark\" x1=\"\(ex)\" y1=\"\(f(top + plotH - 12))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"\(mark.colour)\" stroke-width=\"2\">\(tooltip)</line>\n"
            case .snapshot, .stinger:
                out +=
                    "<line class=\"event-mark\" x1=\"\(ex)\" y1=\"\(f(top))\" x2=\"\(ex)\" y2=\"\(f(top + plotH))\" stroke=\"\(mark.colour)\" stroke-width=\"1.5\">\(tooltip)</line>\n"
            case .other:
                out +=
                    "<line class=\"event-mark\" x1=\"\(ex)\" y1=\"\(f(top + plotH - 30))\" x2=\"\(ex)\" y2=\"\(f(top + plotH - 14))\" stroke=\"\(mark.colour)\" stroke-width=\"0.8\">\(tooltip)</line>\n"
            }
        }
        if unlabelled > 0 {
            out +=
                "<text x=\"\(f(left + plotW))\" y=\"\(f(top + plotH + 10))\" text-anchor=\"end\" fill=\"#666\">+\(unlabelled) more snapshot and stinger labels not written (their lines are drawn)</text>\n"
        }
        return out + "</g>\n"
    }
}
