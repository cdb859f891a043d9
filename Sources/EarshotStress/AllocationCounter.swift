/// How a stress run counts the process's heap allocations.
///
/// The workload turns counting on around the work it measures (the timed `play` calls, the
/// frames) and off around everything else (the baseline's frames, progress reports), and reads
/// the running count before and after. The counting itself is done by whoever can see every
/// `malloc` of the process: in practice a malloc interposer (the `CAllocCounter` C target)
/// linked into the executable that runs the workload.
///
/// Why the counter is handed in rather than linked here: a malloc interposer works by defining
/// `malloc` & co. in the main executable, so it replaces the allocator of whatever binary links
/// it. `earshot` links it on purpose; a library target that linked it would carry it into every
/// binary that depends on the library (the test bundle, a ThreadSanitizer build, whose runtime
/// has its own `malloc`). So this module only calls the counter through this value, and only
/// `earshot` builds one from the interposer's functions.
///
/// Without a counter (``none``) nothing is counted: ``isActive`` is false, the figures are 0 and
/// ``StressReport/allocationCounterActive`` says they were not measured.
///
/// ```swift
/// // In an executable that links CAllocCounter:
/// let counter = AllocationCounter(
///     setCounting: { earshot_alloc_counting($0 ? 1 : 0) },
///     count: { earshot_alloc_count() },
///     isActive: { earshot_alloc_counter_active() != 0 })
/// let result = try StressWorkload(voices: 256, seconds: 5).run(allocations: counter)
/// print(result.engine.allocationsPerFrame)
/// ```
public struct AllocationCounter: Sendable {
    /// Turns counting on (`true`) or off; allocations made while off are not counted.
    public var setCounting: @Sendable (Bool) -> Void
    /// The allocations counted so far (a running total: the workload takes differences).
    public var count: @Sendable () -> UInt64
    /// Whether the counter sees the process's allocations at all (the interposer is the
    /// process's `malloc`). Asked once per run.
    public var isActive: @Sendable () -> Bool

    /// A counter made of the three functions of an interposer.
    public init(setCounting: @escaping @Sendable (Bool) -> Void, count: @escaping @Sendable () -> UInt64,
                isActive: @escaping @Sendable () -> Bool) {
        self.setCounting = setCounting
        self.count = count
        self.isActive = isActive
    }

    /// Counts nothing: every figure is 0 and ``isActive`` is false.
    public static let none = AllocationCounter(setCounting: { _ in }, count: { 0 }, isActive: { false })
}
