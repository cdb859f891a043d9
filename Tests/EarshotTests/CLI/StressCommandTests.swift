import Foundation
import EarshotTestSupport
import XCTest

/// `earshot stress` run as a process (a debug build, so only the shape and the counts are checked
/// here; the speed figures come from `make bench` on a release build).
final class StressCommandTests: XCTestCase {
    private struct Report: Decodable {
        struct Quantiles: Decodable { var p50: Double, p99: Double, max: Double }
        struct Baseline: Decodable { var sources: Int, cpuSeconds: Double, realtimeFactor: Double, playMicros: Quantiles }
        var voices: Int, realVoices: Int, virtualVoices: Int, grantedSources: Int
        var renderedSeconds: Double, cpuSeconds: Double, realtimeFactor: Double
        var updateMicros: Quantiles, playMicros: Quantiles
        var allocationsPerFrame: Double, allocationCounterActive: Bool
        var baseline: Baseline
        var overheadRatio: Double
        var steals: Int
    }

    func testJSONReportsTheTrueCountsAndBothSidesOfTheComparison() throws {
        let r = try CLIRunner.run("earshot", ["stress", "--voices", "40", "--max-real", "12", "--seconds", "0.5", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
        XCTAssertEqual(report.voices, 40)
        XCTAssertEqual(report.grantedSources, 12)
        XCTAssertEqual(report.realVoices, 12, "capped by --max-real")
        XCTAssertEqual(report.virtualVoices, 28, "the rest run virtually")
        XCTAssertEqual(report.renderedSeconds, 0.5, accuracy: 1e-9)
        XCTAssertTrue(report.allocationCounterActive, "the malloc interposer is linked into earshot")
        XCTAssertEqual(report.baseline.sources, 12, "the baseline plays as many sources as there are real voices")
        XCTAssertGreaterThan(report.cpuSeconds, 0)
        XCTAssertGreaterThan(report.baseline.cpuSeconds, 0)
        XCTAssertEqual(report.overheadRatio, report.cpuSeconds / report.baseline.cpuSeconds, accuracy: 1e-9)
        XCTAssertGreaterThan(report.playMicros.p50, 0)
        XCTAssertGreaterThan(report.baseline.playMicros.p50, 0)
        XCTAssertLessThanOrEqual(report.updateMicros.p50, report.updateMicros.max)
    }

    /// `--baseline-only`: raw OpenAL alone, as many sources as the engine would have real voices,
    /// for whole-process comparisons against `--no-baseline`; not combinable with the engine's modes.
    func testBaselineOnlyRunsRawOpenALAlone() throws {
        let r = try CLIRunner.run("earshot", ["stress", "--voices", "40", "--max-real", "12", "--seconds", "0.3", "--baseline-only", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Double], r.stdout)
        XCTAssertEqual(object["sources"], 12)
        XCTAssertEqual(object["renderedSeconds"] ?? 0, 0.3, accuracy: 0.02)
        XCTAssertGreaterThan(object["cpuSeconds"] ?? 0, 0)
        let text = try CLIRunner.run("earshot", ["stress", "--voices", "8", "--seconds", "0.2", "--baseline-only"])
        XCTAssertTrue(text.stdout.hasPrefix("raw OpenAL: 8 sources, "), text.stdout)
        let both = try CLIRunner.run("earshot", ["stress", "--voices", "8", "--baseline-only", "--no-baseline"])
        XCTAssertEqual(both.status, 1, "refused as every bad flag is")
        XCTAssertTrue(both.stderr.contains("--baseline-only runs the baseline alone"), both.stderr)
    }

    func testTableNamesTheBaselineAndTheRatio() throws {
        let r = try CLIRunner.run("earshot", ["stress", "--voices", "8", "--seconds", "0.2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        for row in ["real / virtual", "8 / 0", "raw OpenAL baseline", "raw alSourcePlay", "overhead ratio"] {
            XCTAssertTrue(r.stdout.contains(row), "missing \(row): \(r.stdout)")
        }
        let bad = try CLIRunner.run("earshot", ["stress", "--voices", "0"])
        XCTAssertNotEqual(bad.status, 0)
    }
}
