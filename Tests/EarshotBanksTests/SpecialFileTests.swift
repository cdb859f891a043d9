import Earshot
import EarshotBanks
import EarshotScenes
import XCTest

/// Files that are not files: a device reports a size of 0 and reads without end, a FIFO blocks.
/// A scene, a bank or an include naming one is refused at once, by its kind, before it is read.
final class SpecialFileTests: XCTestCase {
    func testDevicesAndPipesAreRefusedNotRead() throws {
        let f = try BankFixture("special")
        defer { f.remove() }
        let fifo = f.path("pipe.yaml")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for target in ["/dev/zero", fifo] {
            let scene = try f.write("s.yaml", "duration: 1\ninclude: \(target)\n")
            XCTAssertThrowsError(try Scene.load(path: scene), target) { error in
                XCTAssertTrue("\(error)".contains("is not a regular file"), "\(error)")
            }
            let bank = try f.write("b.yaml", "include: \(target)\n")
            XCTAssertThrowsError(try SceneBank.load(path: bank), target)
            XCTAssertThrowsError(try Scene.load(path: target), target) { error in
                XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
            }
            XCTAssertFalse(SceneBank.isBank(path: target))
        }
    }

    func testACurveOverAHugeSpanStaysFinite() {
        let curve = ParameterCurve(parameter: "x", property: .gain, points: [.init(-1e308, -40), .init(1e308, 0)])
        XCTAssertTrue(curve.value(at: 0.9e308).isFinite)
        XCTAssertEqual(curve.value(at: 0.9e308), -40, "∞/∞ is the left point's value")
    }
}
