@testable import Earshot
import XCTest

/// Issue 41 item 1: the monitor shows the bus tree — each bus row names its parent and its VCA
/// factor, its effective level is the product along its path, and ``MonitorFrame/busTree`` lists
/// each group before its children (what `earshot monitor` indents).
final class MonitorBusTreeTests: XCTestCase {
    func testRowsNameTheirParentAndListInTreeOrder() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let gameplay = Bus("gameplay"), footsteps = Bus("footsteps"), vehicles = Bus("vehicles")
        try engine.addBus(gameplay)
        try engine.addBus(footsteps, parent: gameplay)
        try engine.addBus(vehicles, parent: footsteps)
        try engine.setParent(gameplay, of: .ui)
        try engine.setGain(0.5, for: gameplay)
        try engine.defineVCA(VCA("mix", buses: [footsteps]))
        try engine.setVCA("mix", gain: 0.5)
        var capture = MonitorCapture()
        engine.withAL { capture.fill(from: engine.core) }
        let rows = Dictionary(uniqueKeysWithValues: capture.buses.map { ($0.name, $0) })
        XCTAssertEqual(rows["footsteps"]?.parent, "gameplay")
        XCTAssertNil(rows["sfx"]?.parent)
        XCTAssertEqual(rows["vehicles"]?.effectiveDB ?? 0, 2 * 20 * log10(0.5), accuracy: 0.01, "group × VCA on its parent")
        XCTAssertEqual(rows["footsteps"]?.vcaDB ?? 0, 20 * log10(0.5), accuracy: 0.01)
        let tree = MonitorFrame.busTree(capture.buses).map { String(repeating: "  ", count: $0.depth) + $0.row.name }
        XCTAssertEqual(tree, ["sfx", "music", "voice", "ambience", "gameplay", "  ui", "  footsteps", "    vehicles"])
        // A frame from an engine before the tree (no parent field) decodes, every bus at the top.
        let json = try JSONEncoder().encode(capture.buses[0])
        var old = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
        old["parent"] = nil
        old["vcaDB"] = nil
        let row = try JSONDecoder().decode(MonitorFrame.BusRow.self, from: JSONSerialization.data(withJSONObject: old))
        XCTAssertNil(row.parent)
    }
}
