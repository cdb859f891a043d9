@testable import Earshot
import Foundation
import XCTest

/// A looping file of one frame costs what a normal track costs (issue 35.15: ten times the CPU):
/// a loop of at most `QueuedStream.shortLoopFrames` is decoded into memory once and copied pass
/// by pass, instead of a seek and a read per pass. Counted through the real decoder (libsndfile),
/// wrapped to count its calls.
final class MusicShortLoopTests: XCTestCase {
    /// The real decoder, its calls counted.
    final class Counted: StreamDecoder {
        let inner: any StreamDecoder
        var calls = 0
        init(_ inner: any StreamDecoder) { self.inner = inner }
        var facts: StreamFileInfo { inner.facts }
        func read(into buffer: UnsafeMutablePointer<Float>, frames: Int) throws(EarshotError) -> Int {
            calls += 1
            return try inner.read(into: buffer, frames: frames)
        }
        func seek(toFrame frame: Int) throws(EarshotError) {
            calls += 1
            try inner.seek(toFrame: frame)
        }
        func close() { inner.close() }
    }

    private var dir: String!
    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "earshot-shortloop-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// A stereo float WAV of `frames` frames, frame k = (k + 1, −(k + 1)) / 1024.
    private func file(frames: Int) throws -> String {
        let path = dir + "/f\(frames).wav"
        let writer = try AudioFileWriter(path: path, sampleRate: 48_000, channels: 2, format: .f32)
        var samples: [Float] = []
        for k in 0..<frames {
            let v = Float(k + 1) / 1_024
            samples += [v, -v]
        }
        try writer.write(samples)
        try writer.close()
        return path
    }

    private func stream(_ path: String, loops: Int) throws -> (QueuedStream, Counted) {
        let counted = Counted(try StreamDecoders.open(path: path))
        let s = QueuedStream(decoder: counted)
        s.numberOfLoops = loops
        s.loopsLeft = loops
        return (s, counted)
    }

    func testAOneFrameLoopCostsWhatALongFileCosts() throws {
        let (one, oneCalls) = try stream(try file(frames: 1), loops: -1)
        let (long, longCalls) = try stream(try file(frames: 48_000), loops: -1)
        for _ in 0..<40 {
            let chunk = try XCTUnwrap(one.decodeChunk(frames: 4_096))
            XCTAssertEqual(chunk.frames, 4_096)
            XCTAssertTrue(stride(from: 0, to: chunk.samples.count, by: 2).allSatisfy { chunk.samples[$0] == 1 / 1_024 && chunk.samples[$0 + 1] == -1 / 1_024 })
            XCTAssertEqual(try XCTUnwrap(long.decodeChunk(frames: 4_096)).frames, 4_096)
        }
        // 163,840 frames: 163,840 seeks and reads before; now the loop is read once, and each
        // chunk asks the decoder once whether the file goes on.
        XCTAssertLessThanOrEqual(oneCalls.calls, 40 + 10)
        XCTAssertLessThanOrEqual(oneCalls.calls, longCalls.calls + 10, "no more decoder work than a 1 s file looping")
    }

    /// Counted loops end on their count; a short loop region inside a longer file plays its passes
    /// and then the rest of the file, frame-exact across every seam, with a pass cut by a chunk.
    func testShortLoopsKeepTheirCountAndSeams() throws {
        let (one, _) = try stream(try file(frames: 1), loops: 5)
        XCTAssertEqual(try XCTUnwrap(one.decodeChunk(frames: 4_096)).frames, 6)
        XCTAssertNil(one.decodeChunk(frames: 4_096))

        let (s, _) = try stream(try file(frames: 100), loops: 3)
        s.loopRegion = 10..<13
        var heard: [Float] = []
        while let chunk = s.decodeChunk(frames: 7) { heard += stride(from: 0, to: chunk.samples.count, by: 2).map { chunk.samples[$0] * 1_024 - 1 } }
        let passes: [Int] = [10, 11, 12, 10, 11, 12, 10, 11, 12]
        let expected: [Int] = Array(0..<13) + passes + Array(13..<100)
        XCTAssertEqual(heard.map { Int($0.rounded()) }, expected)
    }
}
