import CAllocCounter
import EarshotStress

extension AllocationCounter {
    /// The malloc interposer of `CAllocCounter`, which this executable links: `earshot stress`
    /// hands it to EarshotStress, which alone turns counting on and off.
    ///
    /// Why it is linked here and not into EarshotStress: the interposer defines `malloc` & co.,
    /// which replace the allocator of the whole process when they are linked into the main
    /// executable, so it must be linked into the binary that runs the workload. Linked into the
    /// library instead, it would also replace the allocator of every other binary that depends on
    /// EarshotStress (the test bundle; a ThreadSanitizer build, whose runtime brings its own
    /// `malloc`).
    ///
    /// ```swift
    /// let result = try StressWorkload(voices: 256).run(allocations: .interposer)
    /// ```
    static let interposer = AllocationCounter(
        setCounting: { earshot_alloc_counting($0 ? 1 : 0) },
        count: { earshot_alloc_count() },
        isActive: { earshot_alloc_counter_active() != 0 })
}
