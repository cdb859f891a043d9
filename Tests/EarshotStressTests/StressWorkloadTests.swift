import Earshot
import EarshotStress
import XCTest

/// EarshotStress called directly (no CLI process): small runs of the workload in a debug build,
/// so the counts and the report's arithmetic are checked, not the speed.
final class StressWorkloadTests: XCTestCase {
    func testSmallRunPlaysEveryVoiceRealAndRunsTheBaseline() throws {
        let workload = StressWorkload(voices: 8, seconds: 0.2)
        let result = try workload.run()
        XCTAssertEqual(result.engine.voices, 8)
        XCTAssertEqual(result.engine.realVoices, 8, "the pool holds every voice")
        XCTAssertEqual(result.engine.virtualVoices, 0)
        XCTAssertGreaterThanOrEqual(result.engine.grantedSources, 8)
        XCTAssertEqual(result.engine.steals, 0)
        XCTAssertEqual(workload.frames, 12, "0.2 s in updates of 800 frames at 48 kHz")
        XCTAssertEqual(result.engine.updateMicros.count, workload.frames)
        XCTAssertEqual(result.engine.moveMicros.count, workload.frames)
        XCTAssertEqual(result.engine.playMicros.count, 8)
        XCTAssertEqual(result.engine.renderedSeconds, 0.2, accuracy: 1e-12)
        XCTAssertGreaterThan(result.engine.cpuSeconds, 0)
        let baseline = try XCTUnwrap(result.baseline, "the baseline ran")
        XCTAssertEqual(baseline.sources, 8, "as many sources as real voices")
        XCTAssertEqual(baseline.renderedSeconds, result.engine.renderedSeconds)
        XCTAssertGreaterThan(baseline.cpuSeconds, 0)
        XCTAssertEqual(baseline.playMicros.count, 8)
        XCTAssertFalse(result.allocationsCounted, "no counter was handed in")
        XCTAssertEqual(result.engine.allocationsPerFrame, 0)
        XCTAssertEqual(result.engine.playAllocations, 0)
    }

    func testReportIsConsistentWithTheResult() throws {
        let workload = StressWorkload(voices: 10, seconds: 0.2, maxReal: 4)
        let result = try workload.run()
        let report = StressReport(workload: workload, result: result)
        XCTAssertEqual(report.voices, 10)
        XCTAssertEqual(report.realVoices, 4, "capped by maxReal")
        XCTAssertEqual(report.virtualVoices, 6)
        XCTAssertEqual(report.grantedSources, 4)
        XCTAssertEqual(report.realtimeFactor, report.renderedSeconds / report.cpuSeconds, accuracy: 1e-9)
        let baseline = try XCTUnwrap(report.baseline)
        XCTAssertEqual(baseline.sources, 4)
        XCTAssertEqual(try XCTUnwrap(report.overheadRatio), report.cpuSeconds / baseline.cpuSeconds, accuracy: 1e-12)
        XCTAssertEqual(report.updateMicros, Quantiles(result.engine.updateMicros))
        XCTAssertLessThanOrEqual(report.updateMicros.p50, report.updateMicros.p99)
        XCTAssertLessThanOrEqual(report.updateMicros.p99, report.updateMicros.max)
        XCTAssertEqual(report.updateNanosPerVoice.max, report.updateMicros.max * 1000 / 10, accuracy: 1e-6)
        XCTAssertFalse(report.allocationCounterActive)

        // The JSON keys are the report's, sorted; the table names every row.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: encoder.encode(report)) as? [String: Any])
        XCTAssertEqual(object["realVoices"] as? Int, 4)
        XCTAssertEqual(object["reverbSends"] as? Int, 0)
        XCTAssertNotNil(object["overheadRatio"])
        let table = report.table
        for row in ["real / virtual", "4 / 6 (sources granted: 4)", "raw OpenAL baseline", "4 sources", "overhead ratio"] {
            XCTAssertTrue(table.contains(row), "missing \(row): \(table)")
        }
        XCTAssertEqual(Self.row("allocations per frame", in: table), "not measured")
        XCTAssertFalse(table.hasSuffix("\n"))
    }

    /// Many loud voices overload the mix: the output limiter works in the timed frames and the
    /// report says how much (the allocation figure of `earshot stress` then covers it too).
    func testTheLimiterWorkIsCountedWhenTheMixOverloads() throws {
        let workload = StressWorkload(voices: 256, seconds: 0.2)
        let result = try workload.run(withBaseline: false)
        let frames = workload.frames * workload.updateFrames
        XCTAssertGreaterThan(result.engine.limitedFrames, frames / 2, "256 voices exceed full scale")
        XCTAssertLessThanOrEqual(result.engine.limitedFrames, frames)
        let report = StressReport(workload: workload, result: result)
        XCTAssertEqual(Self.row("output limiter", in: report.table), "\(result.engine.limitedFrames) of \(frames) frames turned down")
        let quiet = try StressWorkload(voices: 2, seconds: 0.2).run(withBaseline: false)
        XCTAssertEqual(quiet.engine.limitedFrames, 0, "two voices stay under full scale")
    }

    func testUpdateOnlyRunsNoBaselineAndCountsThroughTheCounter() throws {
        final class Tally: @unchecked Sendable {
            var on = false, count: UInt64 = 0
        }
        let tally = Tally()
        // A stand-in counter: every switch on counts one "allocation", so the windows the
        // workload counts over are visible.
        let counter = AllocationCounter(
            setCounting: { on in tally.on = on; if on { tally.count += 1 } },
            count: { tally.count },
            isActive: { true })
        let workload = StressWorkload(voices: 16, seconds: 0.1, updateOnly: true)
        let result = try workload.run(allocations: counter)
        XCTAssertNil(result.baseline, "no baseline in update-only mode")
        XCTAssertTrue(result.allocationsCounted)
        XCTAssertFalse(tally.on, "counting is left off")
        XCTAssertEqual(result.engine.realVoices, 16)
        XCTAssertEqual(result.engine.updateMicros.count, workload.frames)
        // Counted windows: one over the plays; one over the frames, reopened after each
        // progress report (every 30 frames), each window opening with a counted "allocation".
        XCTAssertEqual(result.engine.playAllocations, 1)
        let progressReports = (workload.frames + 29) / 30
        XCTAssertEqual(result.engine.allocationsPerFrame, Double(1 + progressReports) / Double(workload.frames), accuracy: 1e-12)
        let report = StressReport(workload: workload, result: result)
        XCTAssertNil(report.baseline)
        XCTAssertNil(report.overheadRatio)
        XCTAssertEqual(Self.row("allocations per frame", in: report.table), String(format: "%.3f", result.engine.allocationsPerFrame))
        XCTAssertFalse(report.table.contains("raw OpenAL baseline"))
    }

    func testReverbSendsReachTheReportAndTheBaseline() throws {
        let workload = StressWorkload(voices: 4, seconds: 0.1, reverbSends: 2)
        let result = try workload.run()
        XCTAssertEqual(result.engine.realVoices, 4)
        XCTAssertEqual(result.baseline?.sources, 4)
        let report = StressReport(workload: workload, result: result)
        XCTAssertEqual(report.reverbSends, 2)
        XCTAssertTrue(report.table.contains("4 (2 reverb sends each)"), report.table)
    }

    /// The value of the table's row named `name` (the names are padded to one width).
    private static func row(_ name: String, in table: String) -> String? {
        table.split(separator: "\n").first { $0.hasPrefix(name + " ") }
            .map { $0.dropFirst(name.count).trimmingCharacters(in: .whitespaces) }
    }

    func testQuantilesByNearestRank() {
        let q = Quantiles((1...100).map(Double.init))
        XCTAssertEqual(q.p50, 50)
        XCTAssertEqual(q.p99, 99)
        XCTAssertEqual(q.max, 100)
        XCTAssertEqual(Quantiles([]), Quantiles([0]))
    }
}
