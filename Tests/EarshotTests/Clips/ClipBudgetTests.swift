import Earshot
import Foundation
import XCTest

/// The engine's budget of decoded audio across clips (issue 24, class 3): six copies of one file,
/// each under the per-clip limit, took a render to 3.6 GB. `Configuration.maxTotalClipBytes`
/// refuses the clip that would take the total over it, before decoding it (from its header).
final class ClipBudgetTests: XCTestCase {
    /// A big-endian 16-bit mono CAF at 8 kHz whose data runs to the end of a sparse file.
    static func sparseCAF(frames: Int) throws -> String {
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.pcm16(rate: 8_000))
        b.chunk("data", size: -1, [0, 0, 0, 0])
        let path = NSTemporaryDirectory() + "earshot-budget-\(UUID().uuidString).caf"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(b.bytes)))
        XCTAssertEqual(truncate(path, off_t(b.bytes.count + frames * 2)), 0)
        return path
    }

    func testTheTotalBudgetRefusesTheClipThatWouldExceedIt() throws {
        let engine = try TestSignals.loopbackEngine { $0.maxTotalClipBytes = 100_000 }
        defer { engine.shutdown() }
        let a = try Self.sparseCAF(frames: 30_000), b = try Self.sparseCAF(frames: 30_000)
        defer { unlink(a); unlink(b) }
        let first = try engine.loadClip(path: a)            // 60,000 bytes
        XCTAssertThrowsError(try engine.loadClip(path: b)) { error in
            guard case .tooLarge(_, _, let size, let limit, let setting)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertEqual(size, 60_000)
            XCTAssertEqual(limit, 40_000)
            XCTAssertTrue(setting.hasPrefix("Configuration.maxTotalClipBytes"), setting)
        }
        // From memory too, and a clip that fits the rest still loads.
        XCTAssertThrowsError(try engine.loadClip(data: try FileBytes.read(path: b), name: "b.caf"))
        var tiny = CAFBuilder()
        tiny.chunk("desc", CAFBuilder.pcm16(rate: 8_000))
        tiny.chunk("data", CAFBuilder.dataBody(CAFBuilder.samplesBE([Int16](repeating: 100, count: 1_000))))
        XCTAssertNoThrow(try engine.loadClip(data: tiny.bytes, name: "tiny.caf"))
        // Unloading makes room.
        engine.unload(first)
        XCTAssertNoThrow(try engine.loadClip(path: b))
    }

    /// A clip whose header already condemns it is refused from the header: a 1 GiB sparse clip
    /// on an engine with 1 MiB left does not raise the peak RSS by its size.
    func testTheBudgetIsJudgedBeforeDecoding() throws {
        let engine = try TestSignals.loopbackEngine { $0.maxTotalClipBytes = 1 << 20 }
        defer { engine.shutdown() }
        let big = try Self.sparseCAF(frames: 1 << 29)
        defer { unlink(big) }
        let before = HeaderArithmeticTests.peakRSS()
        XCTAssertThrowsError(try engine.loadClip(path: big)) { error in
            guard case .tooLarge(_, _, _, _, let setting)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertTrue(setting.hasPrefix("Configuration.maxTotalClipBytes"), setting)
        }
        XCTAssertLessThan(HeaderArithmeticTests.peakRSS() - before, 64 << 20)
    }

    func testBudgetBelowOneIsRefused() {
        XCTAssertThrowsError(try TestSignals.loopbackEngine { $0.maxTotalClipBytes = 0 }) { error in
            XCTAssertTrue("\(error)".contains("maxTotalClipBytes"), "\(error)")
        }
    }
}
