import Earshot

/// The music marks of a render: bar lines (one flag per column of ``SceneTimeline``, so a
/// ten-hour render costs what a ten-second one does) and state changes of music sets (the most
/// recent ``maxChanges``), in scene seconds.
///
/// ```swift
/// var timeline = SceneTimeline(duration: 10)
/// timeline.recordStateChange(time: 4, label: "level → combat")
/// print(timeline.music.changes.count)   // 1
/// ```
public struct SceneMusicMarks: Sendable, Equatable {
    /// A state change: when the new state's first sample is heard, and what changed.
    public struct Change: Sendable, Equatable {
        /// Scene seconds at which the new state's first sample is heard.
        public var time: Double
        /// "set: old → new" (or "set: state" for a start).
        public var label: String
    }

    /// The most state changes kept.
    public static let maxChanges = 1_000
    /// Scene times of bar lines, at most one per column (the first in it).
    public private(set) var bars: [Double] = []
    /// State changes in time order.
    public private(set) var changes: [Change] = []
    private var barColumns = Set<Int>()

    /// No marks.
    public init() {}

    mutating func addBar(_ time: Double, column: Int) {
        guard barColumns.insert(column).inserted else { return }
        bars.append(time)
    }

    /// Adds a state change (the oldest goes past ``maxChanges``).
    mutating func addChange(_ change: Change) {
        changes.append(change)
        if changes.count > Self.maxChanges { changes.removeFirst(changes.count - Self.maxChanges) }
    }
}

extension SceneTimeline {
    /// Records a bar line heard at scene time `t`.
    public mutating func recordBar(time t: Double) {
        guard t >= 0, t <= duration else { return }
        music.addBar(t, column: column(t))
    }

    /// Records a music set's state change heard at scene time `t`.
    public mutating func recordStateChange(time t: Double, label: String) {
        guard t >= 0, t <= duration else { return }
        music.addChange(.init(time: t, label: label))
    }
}
