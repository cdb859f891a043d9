import Earshot
import Foundation

/// What every structured fuzzer's report holds besides its own counters.
public protocol FuzzReport: Sendable {
    /// Cases run (for the API fuzzer, operations).
    var cases: Int { get set }
    var findings: [String] { get set }
    var seconds: Double { get set }
    /// One line: the counters, the time and the number of findings.
    var summary: String { get }
}

/// The loop the structured fuzzers share (scene values, banks, API operations): one generator
/// seeded by `seed` drawn through every case in turn (a seed always makes the same cases, so the
/// same findings), a case count and a time budget, the summary logged every `logEvery` cases —
/// and crash isolation: a trap or signal ends the process, so with `EARSHOT_FUZZ_TRACE` set each
/// case's index goes to stderr before it runs, naming the culprit (`earshot-fuzz show-scene
/// INDEX SEED` prints a scene case). ``reportFindings(_:say:)`` prints what a run found the same
/// way for each.
///
/// ```swift
/// struct Counts: FuzzReport {
///     var cases = 0, findings: [String] = [], seconds = 0.0
///     var summary: String { "\(cases) cases, \(findings.count) findings" }
/// }
/// let report = FuzzDriver(seed: 1, logEvery: 100).run(Counts(), cases: 10) { i, g, report in
///     if g.next() == 0 { report.findings.append("case \(i): a zero") }
/// }
/// ```
public struct FuzzDriver {
    public var seed: UInt64
    public var logEvery: Int

    public init(seed: UInt64, logEvery: Int) {
        precondition(logEvery > 0, "FuzzDriver: logEvery must be positive")   // trap: misuse
        self.seed = seed
        self.logEvery = logEvery
    }

    /// Runs `body` for cases 0..<`cases` (or until `seconds` have passed), each with the run's one
    /// generator and the report, and returns the report with its time.
    public func run<R: FuzzReport>(_ initial: R, cases: Int, seconds: Double = .infinity, log: ((String) -> Void)? = nil,
                                   _ body: (_ index: Int, _ g: inout SplitMix64, _ report: inout R) -> Void) -> R {
        var report = initial
        let started = Date()
        var g = SplitMix64(seed: seed)
        let trace = ProcessInfo.processInfo.environment["EARSHOT_FUZZ_TRACE"] != nil
        for i in 0..<cases {
            if Date().timeIntervalSince(started) > seconds { break }
            if trace { FileHandle.standardError.write(Data("case \(i)\n".utf8)) }
            report.cases += 1
            body(i, &g, &report)
            if let log, report.cases % logEvery == 0 {
                report.seconds = Date().timeIntervalSince(started)
                log(report.summary)
            }
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }

    /// Prints each finding's first line, then the first five in full (with their scene or bank),
    /// and returns the exit status of a run: 0 without findings, 1 with some.
    public static func reportFindings(_ findings: [String], say: (String) -> Void) -> Int32 {
        for f in findings { say("FINDING: " + (f.split(separator: "\n").first.map(String.init) ?? f)) }
        for f in findings.prefix(5) { say("FINDING IN FULL: \(f)") }
        return findings.isEmpty ? 0 : 1
    }
}
