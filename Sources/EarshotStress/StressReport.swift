import Foundation

/// A stress run summarized: what `earshot stress` prints, as a table or (`--json`) as JSON.
///
/// Made from a ``StressWorkload`` and the ``StressResult`` of its run: per-frame samples become
/// ``Quantiles``, CPU times become real-time factors, and the two sides' CPU times become the
/// overhead ratio. The stored properties are the JSON object's keys (encode with sorted keys,
/// as the CLI does; `baseline` and `overheadRatio` are left out when the baseline did not run).
///
/// ```swift
/// let workload = StressWorkload(voices: 256, seconds: 5)
/// let report = StressReport(workload: workload, result: try workload.run())
/// print(report.table)          // the aligned two-column table
/// print(report.overheadRatio ?? 0)
/// ```
public struct StressReport: Encodable, Sendable {
    /// The baseline's side, summarized.
    public struct Baseline: Encodable, Sendable {
        public var sources: Int
        public var cpuSeconds: Double
        public var realtimeFactor: Double
        /// Raw `alSourcePlay`, timed like the engine's `play` (compare with `playMicros`).
        public var playMicros: Quantiles
    }
    public var voices: Int
    public var realVoices: Int
    public var virtualVoices: Int
    public var grantedSources: Int
    public var hrtf: Bool
    public var renderedSeconds: Double
    public var cpuSeconds: Double
    /// Rendered seconds per CPU second (above 1 = faster than real time).
    public var realtimeFactor: Double
    /// `engine.update()` alone, per frame.
    public var updateMicros: Quantiles
    /// `engine.update()` per frame divided by the voices (p50 and p99 of the frame cost, in ns).
    public var updateNanosPerVoice: Quantiles
    /// Computing and setting every emitter's position (one `batch`), per frame.
    public var moveMicros: Quantiles
    public var allocationsPerFrame: Double
    public var playMicros: Quantiles
    public var playAllocationsPerCall: Double
    public var steals: Int
    /// Frames of the timed render that the output limiter turned down, and all the frames.
    public var limitedFrames: Int
    public var renderedFrames: Int
    /// Nil when the baseline did not run.
    public var baseline: Baseline?
    /// Engine CPU / baseline CPU; nil without a baseline (or when it took no measurable CPU).
    public var overheadRatio: Double?
    /// Whether the allocation figures were counted (false: they are 0 and the table says "not measured").
    public var allocationCounterActive: Bool
    /// Reverb sends active per voice (0 without `--reverb`).
    public var reverbSends: Int

    /// Summarizes `result`, a run of `workload`.
    public init(workload: StressWorkload, result: StressResult) {
        let e = result.engine
        voices = e.voices
        realVoices = e.realVoices
        virtualVoices = e.virtualVoices
        grantedSources = e.grantedSources
        hrtf = workload.hrtf
        renderedSeconds = e.renderedSeconds
        cpuSeconds = e.cpuSeconds
        realtimeFactor = e.cpuSeconds > 0 ? e.renderedSeconds / e.cpuSeconds : 0
        updateMicros = Quantiles(e.updateMicros)
        updateNanosPerVoice = Quantiles(e.updateMicros.map { $0 * 1000 / Double(max(e.voices, 1)) })
        moveMicros = Quantiles(e.moveMicros)
        allocationsPerFrame = e.allocationsPerFrame
        playMicros = Quantiles(e.playMicros)
        playAllocationsPerCall = Double(e.playAllocations) / Double(max(e.voices, 1))
        steals = e.steals
        limitedFrames = e.limitedFrames
        renderedFrames = Int((e.renderedSeconds * Double(StressWorkload.rate)).rounded())
        if let b = result.baseline {
            baseline = Baseline(sources: b.sources, cpuSeconds: b.cpuSeconds,
                                realtimeFactor: b.cpuSeconds > 0 ? b.renderedSeconds / b.cpuSeconds : 0,
                                playMicros: Quantiles(b.playMicros))
            overheadRatio = b.cpuSeconds > 0 ? e.cpuSeconds / b.cpuSeconds : nil
        }
        allocationCounterActive = result.allocationsCounted
        reverbSends = workload.reverbSends
    }

    /// The report as `earshot stress` prints it: one "name  value" line per figure, the names
    /// padded to one width, no trailing newline. The baseline's lines come last, when it ran.
    public var table: String {
        func f(_ x: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", x) }
        var rows: [(String, String)] = [
            (
                "voices",
                "\(voices)" + (reverbSends > 0 ? " (\(reverbSends) reverb send\(reverbSends > 1 ? "s" : "") each)" : "")
            ),
            ("real / virtual", "\(realVoices) / \(virtualVoices) (sources granted: \(grantedSources))"),
            ("rendered", "\(f(renderedSeconds)) s in \(f(cpuSeconds, 3)) s CPU — \(f(realtimeFactor))× real time"),
            (
                "update µs p50 / p99 / max",
                "\(f(updateMicros.p50, 1)) / \(f(updateMicros.p99, 1)) / \(f(updateMicros.max, 1))"
            ),
            ("update ns per voice p50 / p99", "\(f(updateNanosPerVoice.p50, 1)) / \(f(updateNanosPerVoice.p99, 1))"),
            (
                "move emitters µs p50 / p99",
                "\(f(moveMicros.p50, 1)) / \(f(moveMicros.p99, 1)) (positions computed and set in one batch)"
            ),
            ("allocations per frame", allocationCounterActive ? f(allocationsPerFrame, 3) : "not measured"),
            ("output limiter", "\(limitedFrames) of \(renderedFrames) frames turned down"),
            (
                "play µs p50 / p99",
                "\(f(playMicros.p50, 2)) / \(f(playMicros.p99, 2)) (\(f(playAllocationsPerCall, 3)) allocations per call)"
            ),
        ]
        if let baseline, let overheadRatio {
            rows.append(
                (
                    "raw OpenAL baseline",
                    "\(baseline.sources) sources, \(f(baseline.cpuSeconds, 3)) s CPU — \(f(baseline.realtimeFactor))× real time"
                ))
            rows.append(
                ("raw alSourcePlay µs p50 / p99", "\(f(baseline.playMicros.p50, 2)) / \(f(baseline.playMicros.p99, 2))")
            )
            rows.append(("overhead ratio", "\(f(overheadRatio, 3)) (engine CPU / baseline CPU)"))
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { k, v in k.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + v }
            .joined(separator: "\n")
    }
}
