import Earshot

/// The monitor's loudness meters: each bus's and the master's estimated momentary loudness as a
/// bar, with its short-term value and a peak hold of the momentary reading that stays
/// ``LoudnessPeakHold/holdSeconds`` and then falls at ``LoudnessPeakHold/fallPerSecond``.
struct LoudnessPeakHold {
    static let holdSeconds = 2.0
    static let fallPerSecond = 20.0
    /// The key of the master's hold (bus names cannot be empty).
    static let master = ""
    private(set) var held: [String: (value: Double, time: Double)] = [:]

    /// Takes a frame's readings at its time (seconds since the stream began).
    mutating func take(_ f: MonitorFrame) {
        var seen = Set<String>()
        for b in f.buses {
            guard let m = b.momentaryLUFS else { continue }
            take(m, key: b.name, time: f.time)
            seen.insert(b.name)
        }
        if let m = f.engine.masterMomentaryLUFS {
            take(m, key: Self.master, time: f.time)
            seen.insert(Self.master)
        }
        held = held.filter { seen.contains($0.key) }   // a removed bus forgets its hold
    }

    private mutating func take(_ value: Double, key: String, time: Double) {
        guard let h = held[key] else { held[key] = (value, time); return }
        let age = time - h.time
        let fallen = age > Self.holdSeconds ? h.value - (age - Self.holdSeconds) * Self.fallPerSecond : h.value
        // Below the held (or falling) peak: keep it, and the time it was taken, so the fall goes on.
        if value >= fallen { held[key] = (value, time) }
    }

    /// The held momentary value of `key` at `time` (nil: none yet).
    func value(_ key: String, at time: Double) -> Double? {
        guard let h = held[key] else { return nil }
        let age = time - h.time
        return age > Self.holdSeconds ? max(MonitorProtocol.silenceDecibels, h.value - (age - Self.holdSeconds) * Self.fallPerSecond) : h.value
    }
}

extension MonitorView {
    /// A momentary loudness from −60 to 0 LUFS as a bar of `width` cells, the held peak as `│`.
    static func loudnessMeter(_ lufs: Double, held: Double?, width: Int) -> String {
        var cells = Array(meter(lufs, width: width))
        if let held, held > -60 {
            let at = min(width - 1, max(0, Int(((held + 60) / 60 * Double(width)).rounded()) - 1))
            cells[at] = "│"
        }
        return String(cells)
    }

    /// The loudness column of a bus or master line: bar, momentary, short-term, held peak.
    /// Empty for frames without loudness (older engines).
    static func loudnessColumn(momentary: Double?, shortTerm: Double?, held: Double?) -> String {
        guard let m = momentary else { return "" }
        let text = { (x: Double) in x <= -120 ? "  -inf" : String(format: "%6.1f", x) }
        return "  " + loudnessMeter(m, held: held, width: 16) + " M" + text(m) + " S" + text(shortTerm ?? -144)
            + " pk" + text(held ?? m) + " LUFS"
    }

    /// The master's line (nil for frames without loudness).
    func masterLoudnessLine(_ f: MonitorFrame) -> String? {
        guard let m = f.engine.masterMomentaryLUFS else { return nil }
        return Self.pad("  master (est.)", 10 + 24 + 20)
            + Self.loudnessColumn(momentary: m, shortTerm: f.engine.masterShortTermLUFS,
                                  held: peaks.value(LoudnessPeakHold.master, at: f.time))
    }
}
