import Earshot
import Foundation

/// What a render did over time, summarised in a fixed number of columns whatever its length:
/// the most real and virtual voices, each bus's effective gain (lowest and highest, dB) and the
/// output limiter's work (frames turned down), per column. `SceneRenderer` (EarshotScenes) fills
/// it once per game frame; `LevelPlot` (EarshotScenes) draws it as lanes under the levels. Its size is bounded (``columns`` entries per series), so a ten-hour render costs
/// what a ten-second one does.
///
/// ```swift
/// var timeline = SceneTimeline(duration: 60)
/// timeline.record(time: 1.5, realVoices: 12, virtualVoices: 3, busGains: [("music", 0.5)])
/// print(timeline.maxReal.max() ?? 0)   // 12
/// ```
public struct SceneTimeline: Sendable, Equatable {
    /// Columns per series (one per pixel of the plot's width, about).
    public static let columns = 940
    /// The built-in buses, drawn first.
    public static let builtInBuses = Bus.builtIn.map(\.name)
    /// The buses drawn, in order: the built-in ones, then the scene's own (at most
    /// ``SceneLimits/maxBuses``).
    public let buses: [String]
    /// Each bus's group bus (`parent:`) by name, for the plot's tree of lanes (none: the master).
    public var busParents: [String: String] = [:]

    /// The seconds the columns span.
    public let duration: Double
    /// Per column: the most voices on real sources (−1: no frame fell in the column).
    public private(set) var maxReal: [Int]
    /// Per column: the most virtual voices.
    public private(set) var maxVirtual: [Int]
    /// Per bus (``buses`` order), per column: the lowest and highest effective gain in dB.
    public private(set) var busMinDB: [[Float]]
    public private(set) var busMaxDB: [[Float]]
    /// Per column: output frames the engine's limiter turned down (0: it did not work there).
    public private(set) var limitedFrames: [Int]
    /// The music's bar lines and state changes (SceneTimeline+Music.swift), for the plot.
    public internal(set) var music = SceneMusicMarks()
    /// The subtitles the render showed (seconds of the render), for the plot's subtitle lane.
    public var subtitles: [SubtitleEntry] = []

    public init(duration: Double, buses: [String] = SceneTimeline.builtInBuses) {
        self.duration = max(duration, 1e-6)
        self.buses = Array(buses.prefix(SceneLimits.maxBuses))
        maxReal = Array(repeating: -1, count: Self.columns)
        maxVirtual = Array(repeating: -1, count: Self.columns)
        busMinDB = Array(repeating: Array(repeating: .infinity, count: Self.columns), count: self.buses.count)
        busMaxDB = Array(repeating: Array(repeating: -.infinity, count: Self.columns), count: self.buses.count)
        limitedFrames = Array(repeating: 0, count: Self.columns)
    }

    /// Records that the output limiter turned down `frames` frames of the render at scene time `t`.
    public mutating func recordLimiting(time t: Double, frames: Int) {
        guard frames > 0 else { return }
        limitedFrames[column(t)] += frames
    }

    /// The column holding scene time `t`.
    public func column(_ t: Double) -> Int {
        min(Self.columns - 1, max(0, Int(t / duration * Double(Self.columns))))
    }

    /// Records one game frame.
    public mutating func record(time t: Double, realVoices: Int, virtualVoices: Int, busGains: [(String, Float)]) {
        let c = column(t)
        maxReal[c] = max(maxReal[c], realVoices)
        maxVirtual[c] = max(maxVirtual[c], virtualVoices)
        for (name, gain) in busGains {
            guard let b = buses.firstIndex(of: name) else { continue }
            let db = 20 * log10(max(gain, 1e-6))
            busMinDB[b][c] = min(busMinDB[b][c], db)
            busMaxDB[b][c] = max(busMaxDB[b][c], db)
        }
    }
}
