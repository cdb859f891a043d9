import Earshot

extension StressWorkload {
    /// Runs only the raw-OpenAL side of the workload, for whole-process comparisons: one process
    /// runs the engine (`earshot stress --no-baseline`), another this (`--baseline-only`), and
    /// their CPU times are compared as whole processes, start-up included.
    ///
    /// The baseline plays `sources` sources (by default as many as the engine would have real
    /// voices: the voices, at most ``maxReal`` and 4,096), moved every frame and rendered as
    /// ``run(withBaseline:allocations:progress:)`` does beside the engine.
    ///
    /// ```swift
    /// let raw = try StressWorkload(voices: 64, seconds: 1).runBaselineOnly()
    /// print(raw.cpuSeconds / raw.renderedSeconds)
    /// ```
    public func runBaselineOnly(
        sources: Int? = nil, progress: (Double) -> Void = { _ in }
    ) throws -> StressResult.Baseline {
        let count = max(1, sources ?? min(maxReal ?? voices, 4096))
        let baseline = try RawBaseline(sources: count, voices: voices, hrtf: hrtf, reverbSends: reverbSends, clip: clip)
        defer { baseline.close() }
        var result = StressResult.Baseline()
        result.sources = count
        result.playMicros = baseline.timePlays()
        var out = [Float](repeating: 0, count: updateFrames * 2)
        out.withUnsafeMutableBufferPointer { baseline.frame(time: 0, into: $0) }   // warm-up
        let start = Self.threadCPUTime()
        for f in 0..<frames {
            let time = Double((f + 1) * updateFrames) / Double(Self.rate)
            out.withUnsafeMutableBufferPointer { baseline.frame(time: time, into: $0) }
            if f % 30 == 0 { progress(Double(f) / Double(frames)) }
        }
        result.cpuSeconds = Self.threadCPUTime() - start
        result.renderedSeconds = Double(frames * updateFrames) / Double(Self.rate)
        return result
    }
}
