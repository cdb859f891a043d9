@testable import Earshot
import XCTest

/// The storage of the voice pool: in-place tables and the one-cache-line hot part of a voice.
final class SlotTableTests: XCTestCase {
    func testHotFieldsOfAVoiceFitOneCacheLine() {
        XCTAssertLessThanOrEqual(VoiceState.hotLineEnd, 64, "the fields a frame touches no longer fit 64 bytes")
        XCTAssertEqual(MemoryLayout<VoiceState>.stride % 64, 0, "a voice's stride must keep every slot on a line boundary")
    }

    func testStorageIsLineAlignedAndWritesInPlace() {
        let table = SlotTable(repeating: VoiceState(), count: 8)
        table.withUnsafeBufferPointer { buffer in
            XCTAssertEqual(Int(bitPattern: buffer.baseAddress) % 64, 0)
        }
        table[3].audibility = 0.25
        table[3].emitterIndex = 12
        XCTAssertEqual(table[3].audibility, 0.25)
        XCTAssertEqual(table[3].emitterIndex, 12)
        XCTAssertEqual(table[2].audibility, 1)
    }

    func testAppendKeepsEveryElementWhileGrowing() {
        let table = SlotTable(repeating: 0, count: 0)
        for i in 0..<1000 { table.append(i * 3) }
        XCTAssertEqual(table.count, 1000)
        XCTAssertEqual((0..<1000).filter { table[$0] != $0 * 3 }, [])
        table.withUnsafeBufferPointer { XCTAssertEqual(Int(bitPattern: $0.baseAddress) % 64, 0) }
    }

    /// Elements with references are retained and released exactly once by the table.
    func testReferencesAreReleasedWithTheTable() {
        final class Token {}
        weak var weakToken: Token?
        do {
            let token = Token()
            weakToken = token
            let table = SlotTable<Token?>(repeating: nil, count: 2)
            table[1] = token
            for _ in 0..<100 { table.append(token) }
        }
        XCTAssertNil(weakToken)
    }
}
