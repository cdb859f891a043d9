import EarshotFuzzing
import XCTest

/// A bounded run of the rooms' structure-aware fuzzer (by count, about 2 s in a debug build; longer runs:
/// `earshot-fuzz rooms CASES SEED`).
final class RoomGeometryFuzzTests: XCTestCase {
    func testMutatedGeometriesBounded() {
        let report = RoomGeometryFuzzer(seed: 38).run(cases: 150)
        print("RoomGeometryFuzzTests: " + report.summary)
        XCTAssertGreaterThan(report.valid, 5, "the mutations keep some geometries valid")
        XCTAssertGreaterThan(report.refused, 5, "and break others")
        XCTAssertEqual(report.findings, [], report.findings.prefix(5).joined(separator: "\n\n"))
    }
}
