@testable import Earshot
import XCTest

/// The voice pool's record of ended voices: a bounded ring that keeps the newest ends.
final class EndedRingTests: XCTestCase {
    private func id(_ n: UInt32) -> VoiceID { VoiceID(index: n, generation: n &* 7) }

    private func drain(_ ring: inout EndedRing) -> [(VoiceID, VoiceEndReason)] {
        var out: [(VoiceID, VoiceEndReason)] = []
        while let entry = ring.popOldest() { out.append((entry.id, entry.reason)) }
        return out
    }

    func testStartsEmpty() {
        var ring = EndedRing(capacity: 4)
        XCTAssertTrue(ring.isEmpty)
        XCTAssertEqual(ring.count, 0)
        XCTAssertNil(ring.popOldest())
    }

    func testDeliversOldestFirstWithReasons() {
        var ring = EndedRing(capacity: 4)
        ring.record(id(1), .finished)
        ring.record(id(2), .stopped)
        ring.record(id(3), .evicted)
        XCTAssertFalse(ring.isEmpty)
        XCTAssertEqual(ring.count, 3)
        let out = drain(&ring)
        XCTAssertEqual(out.map(\.0), [id(1), id(2), id(3)])
        XCTAssertEqual(out.map(\.1), [.finished, .stopped, .evicted])
        XCTAssertTrue(ring.isEmpty)
    }

    func testFullRingDropsTheOldest() {
        var ring = EndedRing(capacity: 3)
        for n in 1...5 { ring.record(id(UInt32(n)), .finished) }
        XCTAssertEqual(ring.count, 3)
        XCTAssertEqual(drain(&ring).map(\.0), [id(3), id(4), id(5)])
    }

    /// Recording and draining in turns wraps around the storage many times without losing order.
    func testWrapsAroundAcrossDrains() {
        var ring = EndedRing(capacity: 5)
        var next: UInt32 = 0
        for round in 0..<50 {
            let n = round % 5 + 1
            let first = next
            for _ in 0..<n {
                ring.record(id(next), .stopped)
                next += 1
            }
            if round % 2 == 0 {
                // Partly drained: the rest stays in order for the next round.
                let one = ring.popOldest()
                XCTAssertEqual(one?.id, id(first))
            }
            let rest = drain(&ring).map(\.0)
            let start = round % 2 == 0 ? first + 1 : first
            XCTAssertEqual(rest, (start..<next).map(id))
        }
    }

    func testKeepsTheSoundOfEachEnd() {
        var ring = EndedRing(capacity: 4)
        ring.record(id(1), .stolen, sound: 7)
        ring.record(.refused, .cooldown, sound: 2)
        ring.record(id(3), .finished)
        XCTAssertEqual(ring.popOldest()?.sound, 7)
        let refusal = ring.popOldest()
        XCTAssertEqual(refusal?.id, .refused)
        XCTAssertEqual(refusal?.reason, .cooldown)
        XCTAssertEqual(refusal?.sound, 2)
        XCTAssertEqual(ring.popOldest()?.sound, 0)
    }

    /// A ring of capacity N keeps exactly N ends: filled to N it loses none; given more, what
    /// comes out is the newest N, in order.
    func testHoldsExactlyItsCapacity() {
        var full = EndedRing(capacity: 4096)
        for n in 0..<4096 { full.record(id(UInt32(n)), .finished) }
        XCTAssertEqual(drain(&full).map(\.0), (0..<4096).map { id(UInt32($0)) })

        var over = EndedRing(capacity: 4096)
        for n in 0..<5000 { over.record(id(UInt32(n)), .finished) }
        XCTAssertEqual(drain(&over).map(\.0), (904..<5000).map { id(UInt32($0)) })
    }
}
