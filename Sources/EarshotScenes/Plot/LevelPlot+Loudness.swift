import Foundation

/// The plot's loudness lane: momentary and short-term loudness (LUFS, every 100 ms of the
/// render, `SceneRenderer.Result.loudnessTrace`) and the target as a line.
extension LevelPlot {
    /// The LUFS range the lane draws (quieter is drawn at its bottom).
    public static let loudnessRange: ClosedRange<Double> = -60...0
    /// The lane's height.
    static let loudnessLaneHeight = 170.0
    /// The most columns the lane draws (a long render's points become the loudest per column).
    static let loudnessColumns = 900

    static func loudnessLane(_ points: [LoudnessTrace.Point], target: Double?, clock: Clock, top: Double) -> String {
        let columns = max(1, min(loudnessColumns, points.count))
        var momentary = [Double?](repeating: nil, count: columns), shortTerm = momentary
        for p in points {
            // The column the point's 100 ms ends in.
            let c = min(columns - 1, max(0, Int((p.time - 1e-9) / max(clock.total, 1e-9) * Double(columns))))
            if let m = p.momentary { momentary[c] = max(momentary[c] ?? m, m) }
            if let s = p.shortTerm { shortTerm[c] = max(shortTerm[c] ?? s, s) }
        }
        var series: [(String, String, [Double?])] = [
            ("momentary (400 ms)", "#1f77b4", momentary), ("short-term (3 s)", "#d62728", shortTerm),
        ]
        if let target { series.append((String(format: "target %.1f LUFS", target), "#2ca02c", [Double?](repeating: target, count: columns))) }
        return lane(title: "loudness (LUFS)", unit: "LUFS", top: top, height: loudnessLaneHeight, clock: clock,
                    yRange: loudnessRange, ticks: [-60, -48, -36, -24, -12, 0], series: series)
    }
}
