@testable import Earshot
import XCTest

/// The clip selection of sounds, alone (no OpenAL): weights, shuffle, sequence, avoidRepeat.
final class SoundSelectorTests: XCTestCase {
    private let clip = Clip(engineID: 0, id: 0, generation: 0, info: ClipInfo(name: "c", sampleRate: 48_000, channels: 1, frameCount: 1,
                                                                 byteCount: 2, isFloat: false))

    private func picks(_ d: SoundDefinition, _ n: Int, seed: UInt64 = 1) -> [Int] {
        var s = SoundSelector(d)
        var g = SplitMix64(seed: seed)
        return (0..<n).map { _ in s.next(using: &g) }
    }

    func testWeightsSetTheOdds() {
        let p = picks(SoundDefinition(clips: [clip, clip, clip], weights: [3, 1, 0]), 20_000)
        XCTAssertEqual(Double(p.filter { $0 == 0 }.count) / 20_000, 0.75, accuracy: 0.015)
        XCTAssertEqual(p.filter { $0 == 2 }.count, 0, "weight 0 never plays")
    }

    func testAvoidRepeatNeverPicksARecentClip() {
        for selection in [SoundDefinition.Selection.random, .shuffle] {
            for n in 1...3 {
                let p = picks(SoundDefinition(clips: Array(repeating: clip, count: 4), selection: selection, avoidRepeat: n), 5_000)
                for i in n..<p.count {
                    XCTAssertFalse(p[(i - n)..<i].contains(p[i]), "\(selection) avoidRepeat \(n): \(p[(i - n)...i])")
                }
                XCTAssertEqual(Set(p), [0, 1, 2, 3])
            }
        }
        // Without the rule, random repeats happen.
        let p = picks(SoundDefinition(clips: [clip, clip]), 100)
        XCTAssertTrue(zip(p, p.dropFirst()).contains { $0 == $1 })
    }

    func testShuffleAndSequence() {
        let p = picks(SoundDefinition(clips: Array(repeating: clip, count: 5), selection: .shuffle), 50)
        for block in stride(from: 0, to: 50, by: 5) { XCTAssertEqual(Set(p[block..<block + 5]), [0, 1, 2, 3, 4]) }
        XCTAssertNotEqual(Array(p[0..<5]), Array(p[5..<10]), "a new order each round (seed 1)")
        XCTAssertEqual(picks(SoundDefinition(clips: [clip, clip, clip], selection: .sequence), 7), [0, 1, 2, 0, 1, 2, 0])
        XCTAssertEqual(picks(SoundDefinition(clips: [clip, clip, clip]), 30, seed: 9),
                       picks(SoundDefinition(clips: [clip, clip, clip]), 30, seed: 9), "the same seed, the same picks")
    }
}
