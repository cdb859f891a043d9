@testable import Earshot
import XCTest

/// Issue 41 item 1: the tree's and the VCAs' public calls are safe at any time — typed errors for
/// an unknown bus or VCA, a cycle, a tree too deep, bad numbers and after shutdown, nothing
/// changed then — and no cost while unused (the products skip the walk on a flat tree).
final class BusTreeAPITests: XCTestCase {
    private var engine: AudioEngine!

    override func setUpWithError() throws { engine = try TestSignals.loopbackEngine() }
    override func tearDown() {
        engine?.shutdown()
        engine = nil
    }

    private func assertInvalid(_ body: @autoclosure () throws -> Void, _ words: String, line: UInt = #line) {
        XCTAssertThrowsError(try body(), line: line) { error in
            guard case EarshotError.invalidArgument(let why) = error else {
                return XCTFail("expected invalidArgument, got \(error)", line: line)
            }
            XCTAssertTrue(why.contains(words), "\(why) does not say \(words)", line: line)
        }
    }

    func testTheTreeAndItsErrors() throws {
        let a = Bus("a"), b = Bus("b"), c = Bus("c")
        XCTAssertEqual(try engine.children(of: nil), Bus.builtIn, "the built-ins are children of the master")
        XCTAssertNil(try engine.parent(of: .sfx))
        try engine.addBus(a)
        try engine.addBus(b, parent: a)
        try engine.addBus(c, parent: b)
        XCTAssertEqual(try engine.parent(of: c), b)
        XCTAssertEqual(try engine.children(of: a), [b])
        assertInvalid(try engine.addBus(Bus("d"), parent: Bus("nope")), "no bus named \"nope\"")
        XCTAssertFalse(engine.buses.contains(Bus("d")), "nothing added")
        assertInvalid(try engine.setParent(c, of: a), "cycle")
        assertInvalid(try engine.setParent(a, of: a), "cycle")
        XCTAssertNil(try engine.parent(of: a), "unchanged after a refused cycle")
        assertInvalid(try engine.setParent(a, of: Bus("nope")), "no bus named")
        try engine.setParent(a, of: .sfx)
        XCTAssertEqual(try engine.parent(of: .sfx), a, "a built-in bus can join a group")
        try engine.setParent(nil, of: .sfx)
        // Depth: a chain of Bus.maxTreeDepth buses is fine, one more is refused.
        var last = c
        for i in 4...Bus.maxTreeDepth {
            let next = Bus("level\(i)")
            try engine.addBus(next, parent: last)
            last = next
        }
        assertInvalid(try engine.addBus(Bus("too deep"), parent: last), "deeper")
        assertInvalid(try engine.setParent(last, of: .ui), "at most \(Bus.maxTreeDepth)")
        assertInvalid(try engine.setDucking(Ducking(), of: a, by: c), "duck itself")
        XCTAssertNoThrow(try engine.setDucking(nil, of: a, by: c), "removing is always allowed")
        // Gains multiply along the path; the products reach the voices' bus gain.
        try engine.setGain(0.5, for: a)
        try engine.setGain(0.5, for: c)
        XCTAssertEqual(try engine.effectiveGain(for: c), 0.25, accuracy: 1e-6)
        XCTAssertEqual(try engine.effectiveGain(for: b), 0.5, accuracy: 1e-6)
        XCTAssertEqual(try engine.gain(for: c), 0.5, "a bus's own gain is its own")
    }

    func testVCAsAndTheirErrors() throws {
        assertInvalid(try engine.setVCA("none", gain: 1), "no VCA named")
        assertInvalid(_ = try engine.vcaGain("none"), "no VCA named")
        assertInvalid(try engine.defineVCA(VCA("x", buses: [Bus("nope")])), "no bus named")
        assertInvalid(try engine.defineVCA(VCA("x", buses: [.sfx, .sfx])), "twice")
        assertInvalid(try engine.defineVCA(VCA("", buses: [.sfx])), "needs a name")
        XCTAssertEqual(engine.vcas, [], "nothing defined by a refused call")
        try engine.defineVCA(VCA("x", buses: [.sfx, .music]))
        for bad: Float in [-1, .nan, .infinity, 16] { assertInvalid(try engine.setVCA("x", gain: bad), "VCA gain") }
        assertInvalid(try engine.setVCA("x", gain: 0.5, fade: -1), "fade")
        try engine.setVCA("x", gain: 0.5)
        XCTAssertEqual(try engine.effectiveGain(for: .music), 0.5, accuracy: 1e-6)
        XCTAssertEqual(try engine.effectiveGain(for: .ui), 1)
        try engine.defineVCA(VCA("x", buses: [.ui]))   // redefined: members change, the gain stays
        XCTAssertEqual(try engine.vcaGain("x"), 0.5)
        XCTAssertEqual(try engine.effectiveGain(for: .music), 1, accuracy: 1e-6)
        XCTAssertEqual(try engine.effectiveGain(for: .ui), 0.5, accuracy: 1e-6)
        for i in 1..<VCA.maxCount { try engine.defineVCA(VCA("v\(i)", buses: [])) }
        assertInvalid(try engine.defineVCA(VCA("one more", buses: [])), "at most \(VCA.maxCount)")
        engine.removeVCA("x")
        engine.removeVCA("x")   // twice: nothing
        XCTAssertEqual(try engine.effectiveGain(for: .ui), 1)
    }

    func testAfterShutdown() throws {
        try engine.defineVCA(VCA("x", buses: [.sfx]))
        engine.shutdown()
        XCTAssertThrowsError(try engine.addBus(Bus("g"), parent: .sfx)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try engine.setParent(.sfx, of: .ui)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try engine.setVCA("x", gain: 0.5)) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try engine.defineVCA(VCA("y", buses: []))) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        engine.removeVCA("x")
        XCTAssertEqual(engine.vcas, [])
        XCTAssertNil(try engine.parent(of: .sfx))
    }

    func testAFlatTreeCostsNoWalkAndVCAFadesStepOnlyWhileFading() throws {
        XCTAssertFalse(engine.withAL { engine.core.busTable.hasGroups }, "five built-ins: flat")
        XCTAssertFalse(engine.withAL { engine.core.vcaTable.isFading })
        try engine.defineVCA(VCA("x", buses: [.sfx]))
        try engine.setVCA("x", gain: 0, fade: 0.1)
        XCTAssertTrue(engine.withAL { engine.core.vcaTable.isFading })
        for _ in 0..<10 { engine.update(deltaTime: 1.0 / 60); _ = try engine.render(frames: 800) }
        XCTAssertFalse(engine.withAL { engine.core.vcaTable.isFading }, "settled after its fade")
        XCTAssertEqual(try engine.effectiveGain(for: .sfx), 0)
    }
}
