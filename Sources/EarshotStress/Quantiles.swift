/// The 50th and 99th percentiles and the maximum of a run's samples (per frame or per call).
///
/// Percentiles are taken by nearest rank; an empty set of samples gives zeros. Encoded as
/// `{"max":…,"p50":…,"p99":…}` in `earshot stress --json`.
///
/// ```swift
/// let q = Quantiles([3, 1, 2])
/// // q.p50 == 2, q.p99 == 3, q.max == 3
/// ```
public struct Quantiles: Codable, Sendable, Equatable {
    public var p50: Double, p99: Double, max: Double

    /// The quantiles of `samples`.
    public init(_ samples: [Double]) {
        p50 = Self.quantile(0.5, of: samples)
        p99 = Self.quantile(0.99, of: samples)
        max = samples.max() ?? 0
    }

    /// The q-quantile (0…1) of `samples` by nearest rank (0 for no samples).
    static func quantile(_ q: Double, of samples: [Double]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sorted = samples.sorted()
        let count = sorted.count
        return sorted[Swift.min(count - 1, Swift.max(0, Int((q * Double(count)).rounded(.up)) - 1))]
    }
}
