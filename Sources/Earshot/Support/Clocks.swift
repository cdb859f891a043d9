#if canImport(Glibc)
import Glibc
#endif

/// The clocks Earshot reads: the monotonic clock (live engine time, music clock, timings) and
/// CPU time (the streamer's cost, benchmarks).
///
/// ```swift
/// let t0 = Clocks.threadCPU()
/// // … work …
/// let cpuSeconds = Clocks.threadCPU() - t0
/// ```
public enum Clocks {
    /// Seconds on the monotonic clock (`CLOCK_MONOTONIC`): never jumps, unrelated to the date.
    @inline(__always)
    public static func monotonic() -> Double { read(CLOCK_MONOTONIC) }

    /// CPU seconds the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`).
    @inline(__always)
    public static func threadCPU() -> Double { read(CLOCK_THREAD_CPUTIME_ID) }

    /// CPU seconds the whole process has used (`CLOCK_PROCESS_CPUTIME_ID`).
    @inline(__always)
    public static func processCPU() -> Double { read(CLOCK_PROCESS_CPUTIME_ID) }

    @inline(__always)
    private static func read(_ clock: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
