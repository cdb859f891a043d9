import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest

/// `/proc` files are regular files that `stat` says are empty and may hold terabytes
/// (`/proc/self/pagemap`): every read is bounded by what was read, not by what `stat` says
/// (issue 35.14). As a scene, a bank or an include: a typed error, quickly, and the memory the
/// process grows stays under 100 MB (it grew 100–500 MB/s to 3.9 GB before).
final class SceneProcFileTests: XCTestCase {
    private let pagemap = "/proc/self/pagemap"

    /// The process's peak resident size so far, in bytes.
    private func peakRSS() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1_024
    }

    override func setUpWithError() throws {
        guard FileManager.default.isReadableFile(atPath: pagemap) else { throw XCTSkip("no \(pagemap) on this system") }
    }

    /// FileBytes reads at most limit + 1 bytes, whatever stat says; small /proc files are read whole.
    func testFileBytesIsBoundedByWhatIsRead() throws {
        // pagemap is read in multiples of 8 bytes (else EINVAL): a limit one byte short of 1 MiB.
        XCTAssertThrowsError(try FileBytes.read(path: pagemap, limit: (1 << 20) - 1)) { error in
            guard case EarshotError.tooLarge(_, _, let size, let limit, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(limit, (1 << 20) - 1)
            XCTAssertEqual(size, 1 << 20)   // stopped one byte past the limit
        }
        // stat says 0 bytes; the file has its text (read to its end, not to stat's size).
        let status = try FileBytes.read(path: "/proc/self/status")
        XCTAssertTrue(String(decoding: status, as: UTF8.self).contains("VmRSS"))
    }

    func testPagemapAsSceneBankAndIncludeIsATypedErrorInBoundedMemory() throws {
        let folder = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let including = try SceneFixtures.write("name: x\nduration: 1\ninclude: \(pagemap)\n", in: folder)
        let bank = try SceneFixtures.write("sounds: {}\ninclude: [\(pagemap)]\n", name: "bank.yaml", in: folder)
        let before = peakRSS()
        let start = Date()
        for result in [Scene.check(path: pagemap).map { _ in () }, SceneBank.check(path: pagemap).map { _ in () },
                       Scene.check(path: including).map { _ in () }, SceneBank.check(path: bank).map { _ in () }] {
            guard case .failure(let problems) = result else { return XCTFail("accepted") }
            XCTAssertFalse(problems.problems.isEmpty)
        }
        XCTAssertFalse(SceneBank.isBank(path: pagemap))
        XCTAssertLessThan(peakRSS() - before, 100 << 20, "memory grew by \((peakRSS() - before) >> 20) MB")
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "far beyond the 64 MiB a read may take")   // bound, not a benchmark
        // The CLI too: one typed error line, exit 1.
        for file in [pagemap, including, bank] {
            let r = try CLIRunner.run("earshot", ["validate", file], timeout: 60)
            XCTAssertEqual(r.status, 1, r.stdout)
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        }
    }
}
