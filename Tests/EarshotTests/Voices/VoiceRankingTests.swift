@testable import Earshot
import XCTest

/// The voice pool's standing rule and its partial selection, without an engine.
final class VoiceRankingTests: XCTestCase {
    private func voice(priority: UInt8 = 128, audibility: Float = 1, sequence: UInt64) -> VoiceState {
        var v = VoiceState()
        v.priority = priority
        v.audibility = audibility
        v.sequence = sequence
        return v
    }

    func testPriorityComesFirst() {
        let important = voice(priority: 0, audibility: 0.01, sequence: 1)
        let loud = voice(priority: 1, audibility: 1, sequence: 2)
        XCTAssertTrue(VoiceRanking.outranks(important, loud), "a lower priority number wins however quiet")
        XCTAssertFalse(VoiceRanking.outranks(loud, important))
    }

    func testThenTheLouderThenTheNewer() {
        let loud = voice(audibility: 0.5, sequence: 1)
        let quiet = voice(audibility: 0.25, sequence: 2)
        XCTAssertTrue(VoiceRanking.outranks(loud, quiet), "louder beats newer")

        let older = voice(audibility: 0.5, sequence: 3)
        let newer = voice(audibility: 0.5, sequence: 4)
        XCTAssertTrue(VoiceRanking.outranks(newer, older), "equally loud: the newer wins")
        XCTAssertFalse(VoiceRanking.outranks(older, newer))
        XCTAssertFalse(VoiceRanking.outranks(older, older), "a voice does not outrank itself")
    }

    /// Audibility is compared to within 1/128 (about 0.07 dB): float noise between equally loud
    /// voices cannot reorder them, so age decides.
    func testAudibilityWithinOneStepIsATie() {
        let older = voice(audibility: 0.5 * (1 + 1.0 / 256), sequence: 1)
        let newer = voice(audibility: 0.5, sequence: 2)
        XCTAssertTrue(VoiceRanking.outranks(newer, older))
        let clearlyLouder = voice(audibility: 0.5 * (1 + 1.0 / 64), sequence: 1)
        XCTAssertTrue(VoiceRanking.outranks(clearlyLouder, newer))
    }

    func testNegativeAudibilityCountsAsSilence() {
        let negative = voice(audibility: -1, sequence: 2)
        let silent = voice(audibility: 0, sequence: 1)
        XCTAssertTrue(VoiceRanking.outranks(negative, silent), "both silent: the newer wins")
        XCTAssertEqual(VoiceRanking.standing(negative) >> 40 & 0xFFFF, 0)
    }

    func testKeyFieldsDoNotSpillIntoEachOther() {
        let v = voice(priority: 255, audibility: .greatestFiniteMagnitude, sequence: .max)
        XCTAssertEqual(VoiceRanking.standing(v) >> 56, 0, "priority 255 leaves the top byte zero")
        XCTAssertEqual(VoiceRanking.standing(v) & 0xFF_FFFF_FFFF, 0xFF_FFFF_FFFF, "only 40 bits of sequence")
        XCTAssertTrue(VoiceRanking.outranks(voice(priority: 254, audibility: 0, sequence: 0), v))
    }

    /// After `selectBest(k)`, the first `k` entries are the `k` highest keys (in any order) and
    /// every entry is still there once.
    func testSelectBestPutsTheHighestKeysFirst() {
        var rng = SystemRandomNumberGenerator()
        for count in [1, 2, 3, 5, 17, 100, 1000] {
            for _ in 0..<20 {
                // Few distinct keys as well as many: duplicates around the pivot must not matter.
                let spread: UInt64 = Bool.random(using: &rng) ? 4 : 1 << 40
                var entries = (0..<count).map {
                    VoiceRanking.Entry(key: UInt64.random(in: 0..<spread, using: &rng), index: $0)
                }
                let before = entries
                let k = Int.random(in: 0...count, using: &rng)
                VoiceRanking.selectBest(k, in: &entries)
                XCTAssertEqual(entries.map(\.index).sorted(), Array(0..<count), "a permutation")
                XCTAssertTrue(entries.allSatisfy { before[$0.index].key == $0.key }, "keys travel with their index")
                if k > 0, k < count {
                    let top = entries[..<k].map(\.key).min() ?? 0
                    let rest = entries[k...].map(\.key).max() ?? 0
                    XCTAssertGreaterThanOrEqual(top, rest, "count \(count), k \(k)")
                    XCTAssertEqual(entries[..<k].map(\.key).sorted(), Array(before.map(\.key).sorted().suffix(k)))
                }
            }
        }
    }

    func testSelectBestOfNoneLeavesTheOrder() {
        var entries = [3, 1, 2].enumerated().map { VoiceRanking.Entry(key: UInt64($1), index: $0) }
        VoiceRanking.selectBest(0, in: &entries)
        XCTAssertEqual(entries.map(\.key), [3, 1, 2])
    }
}
