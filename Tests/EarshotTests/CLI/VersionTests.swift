import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// The version is written once (EarshotVersion) and every place that shows it agrees.
final class VersionTests: XCTestCase {
    func testCLIVersionAndTheChangelogsNewestEntryAreTheLibrarysVersion() throws {
        let r = try CLIRunner.run("earshot", ["--version"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), EarshotVersion.string)
        let parts = EarshotVersion.string.split(separator: ".")
        XCTAssertEqual(parts.count, 3, "major.minor.patch")
        XCTAssertTrue(parts.allSatisfy { Int($0) != nil }, EarshotVersion.string)

        let changelog = try String(contentsOf: CLIRunner.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = try XCTUnwrap(changelog.split(separator: "\n").first { $0.hasPrefix("## ") }, "CHANGELOG.md has no entry")
        XCTAssertTrue(newest.hasPrefix("## \(EarshotVersion.string) "), "newest CHANGELOG entry \(newest) is not \(EarshotVersion.string)")
    }
}
