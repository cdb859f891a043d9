@testable import Earshot
import Foundation
import XCTest

/// The channels of a split file (``ChannelSplit``) read what the file holds, whatever order and
/// positions the group's streams read and seek in: compared with the whole file decoded at once,
/// channel by channel, over random reads and seeks of a sox file.
final class ChannelSplitTests: XCTestCase {
    func testEveryChannelReadsItsOwnFramesThroughAnyReadsAndSeeks() throws {
        let files = try MusicFixtures()
        let path = files.path("five.wav")
        // Five channels of different noise (a sample-exact reference: no two alike).
        try MusicFixtures.run("/usr/bin/sox", ["-D", "-n", "-r", "48000", "-c", "5", "-b", "16", path, "synth", "0.5",
                                               "whitenoise", "pinknoise", "brownnoise", "sine", "300", "square", "700"])
        let whole = try StreamDecoders.open(path: path)
        let n = whole.channels, total = whole.frameCount
        XCTAssertEqual(n, 5)
        var reference = [Float](repeating: 0, count: total * n)
        let got = try reference.withUnsafeMutableBufferPointer { b throws -> Int in
            guard let base = b.baseAddress else { return 0 }
            return try whole.read(into: base, frames: total)
        }
        XCTAssertEqual(got, total)
        whole.close()

        let split = ChannelSplit(try StreamDecoders.open(path: path))
        let channels = split.channels()
        var positions = [Int](repeating: 0, count: n)
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for step in 0..<400 {
            let c = Int.random(in: 0..<n, using: &rng)
            if step % 7 == 0 {
                let to = Int.random(in: 0...total, using: &rng)
                try channels[c].seek(toFrame: to)
                positions[c] = to
                continue
            }
            let want = Int.random(in: 1...6_000, using: &rng)
            var out = [Float](repeating: .nan, count: want)
            let read = try out.withUnsafeMutableBufferPointer { b throws -> Int in
                guard let base = b.baseAddress else { return 0 }
                return try channels[c].read(into: base, frames: want)
            }
            XCTAssertEqual(read, min(want, total - positions[c]), "channel \(c) at \(positions[c])")
            for i in 0..<read where out[i] != reference[(positions[c] + i) * n + c] {
                return XCTFail("channel \(c): frame \(positions[c] + i) differs")
            }
            positions[c] += read
            checked += read
        }
        XCTAssertGreaterThan(checked, 100_000)
        XCTAssertThrowsError(try channels[0].seek(toFrame: total + 1))
        split.close()
    }
}
