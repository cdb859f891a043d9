import EarshotTestSupport
import Foundation
import XCTest

/// `earshot stress --reverb`: both runs (1 and 2 sends) are reported, each with its baseline.
/// A debug build's figures mean nothing; the shape and the workload's truths are checked.
final class StressReverbTests: XCTestCase {
    func testReverbRunsReportOneAndTwoSends() throws {
        let r = try CLIRunner.run("earshot", ["stress", "--voices", "12", "--seconds", "0.5", "--reverb", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        for (key, sends) in [("sends1", 1), ("sends2", 2)] {
            let report = try XCTUnwrap(object?[key] as? [String: Any], "\(key) in \(r.stdout)")
            XCTAssertEqual(report["reverbSends"] as? Int, sends)
            XCTAssertEqual(report["voices"] as? Int, 12)
            XCTAssertEqual(report["realVoices"] as? Int, 12)
            let baseline = try XCTUnwrap(report["baseline"] as? [String: Any])
            XCTAssertEqual(baseline["sources"] as? Int, 12)
            XCTAssertGreaterThan(report["overheadRatio"] as? Double ?? 0, 0)
        }
        let text = try CLIRunner.run("earshot", ["stress", "--voices", "4", "--seconds", "0.2", "--reverb", "--no-baseline"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("4 (1 reverb send each)"), text.stdout)
        XCTAssertTrue(text.stdout.contains("4 (2 reverb sends each)"), text.stdout)
    }
}
