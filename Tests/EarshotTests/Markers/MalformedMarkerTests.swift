import Earshot
import Foundation
import XCTest

/// CAF marker chunks that lie, built byte by byte (``CAFBuilder``, as `MalformedCAFTests` does:
/// no tool writes broken chunks on purpose). Each leaves the audio as it was: described, decoded,
/// with the markers either read, left out one by one, or unreadable with the reason.
final class MalformedMarkerTests: XCTestCase {
    /// One CAFMarker: type, frame (64-bit float), id, SMPTE time, channel.
    private func marker(_ type: String, _ frame: Double, id: UInt32) -> [UInt8] {
        var b = CAFBuilder()
        b.bytes = Array(type.utf8)
        b.append64(frame.bitPattern)
        b.append32(id)
        b.bytes += [UInt8](repeating: 0, count: 12)
        return b.bytes
    }

    private func be32(_ v: UInt32) -> [UInt8] { var b = CAFBuilder(); b.bytes = []; b.append32(v); return b.bytes }
    private func be64(_ v: UInt64) -> [UInt8] { var b = CAFBuilder(); b.bytes = []; b.append64(v); return b.bytes }

    /// A 1,000-frame 16-bit CAF with `chunks` before its data.
    private func caf(_ chunks: [(String, [UInt8])]) -> [UInt8] {
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.pcm16(rate: 8_000))
        for (type, body) in chunks { b.chunk(type, body) }
        b.chunk("data", CAFBuilder.dataBody(CAFBuilder.samplesBE([Int16](repeating: 1_000, count: 1_000))))
        return b.bytes
    }

    private func inspect(_ bytes: [UInt8]) throws -> ClipFileInfo {
        let info = try ClipDecoder.inspect(data: bytes, name: "m.caf")
        XCTAssertEqual(info.frames, 1_000)
        XCTAssertEqual(try ClipDecoder.decode(data: bytes, name: "m.caf").frameCount, 1_000, "the audio decodes")
        return info
    }

    func testUnusablePositionsAreLeftOutOneByOne() throws {
        let mark = be32(0) + be32(5) + marker("\0\0\0\0", .nan, id: 1) + marker("\0\0\0\0", -5, id: 2)
            + marker("\0\0\0\0", .infinity, id: 3) + marker("\0\0\0\0", 499.6, id: 4) + marker("\0\0\0\0", 1_000.4, id: 5)
        // A region without markers, and one that ends before it starts.
        let regn = be32(0) + be32(2) + be32(7) + be32(0) + be32(0)
            + be32(8) + be32(0) + be32(2) + marker("rbeg", 600, id: 8) + marker("rend", 100, id: 8)
        let info = try inspect(caf([("mark", mark), ("regn", regn)]))
        XCTAssertNil(info.markersUnreadable)
        XCTAssertEqual(info.markers, [Marker(name: "", frame: 500, kind: .cue, id: 4), Marker(name: "", frame: 1_000, kind: .cue, id: 5)],
                       "fractional positions round to the nearest frame; the end of the audio is a place")
        XCTAssertEqual(info.markersLeftOut, 5)
    }

    func testLyingCountsAndOffsetsMakeTheMarkersUnreadable() throws {
        let cases: [(String, [(String, [UInt8])], String)] = [
            ("a mark count its size cannot hold", [("mark", be32(0) + be32(1_000) + marker("\0\0\0\0", 1, id: 1))], "the mark chunk claims 1000 entries"),
            ("a mark count over the limit", [("mark", be32(0) + be32(5_000) + [UInt8](repeating: 0, count: 5_000 * 28))], "at most 4096 are read"),
            ("a strg offset outside its strings", [("mark", be32(0) + be32(1) + marker("\0\0\0\0", 1, id: 1)),
                                                   ("strg", be32(1) + be32(1) + be64(1 << 40) + Array("hit\0".utf8))], "strg entry 0 starts at offset 1099511627776"),
            ("a region whose markers run past the chunk", [("regn", be32(0) + be32(1) + be32(1) + be32(0) + be32(3) + marker("rbeg", 1, id: 1))], "region 1 of the regn chunk claims 3 entries"),
        ]
        for (what, chunks, reason) in cases {
            let info = try inspect(caf(chunks))
            XCTAssertEqual(info.markers, [], what)
            XCTAssertTrue(info.markersUnreadable?.contains(reason) == true, "\(what): \(info.markersUnreadable ?? "nil")")
        }
    }

    func testNamesFromStrgInEveryEncoding() throws {
        let mark = be32(0) + be32(3) + marker("\0\0\0\0", 10, id: 1) + marker("\0\0\0\0", 20, id: 2) + marker("\0\0\0\0", 30, id: 3)
        let text: [UInt8] = Array("hit\0".utf8) + [0x63, 0x61, 0x66, 0xE9, 0] + Array("no end".utf8)
        let strg = be32(3) + be32(1) + be64(0) + be32(2) + be64(4) + be32(3) + be64(9) + text
        let info = try inspect(caf([("mark", mark), ("strg", strg)]))
        XCTAssertEqual(info.markers.map(\.name), ["hit", "café", "no end"], "UTF-8, Latin-1, and a string the chunk's end cuts")
    }

    /// Strg chunks of 4 MiB whose 4,096 entries all point at one string without a NUL: each name
    /// is read to at most MarkerReader.maxNameBytes, not to the chunk's end (issue 35.15: 4 MiB
    /// took 10 s, 12 MiB 31 s in release, in info, validate, audition and loadClip). Three such
    /// chunks (12 MiB) were 150 billion byte steps; now 12,288 names of 1 KiB.
    func testStrgNamesWithoutNULAreReadInBoundedTime() throws {
        let count = 4_096
        var mark = be32(0) + be32(UInt32(count))
        for i in 0..<count { mark += marker("\0\0\0\0", Double(i % 1_000), id: UInt32(i + 1)) }
        var chunks: [(String, [UInt8])] = [("mark", mark)]
        for _ in 0..<3 {
            var strg = be32(UInt32(count))
            for i in 0..<count { strg += be32(UInt32(i + 1)) + be64(0) }
            strg += [UInt8](repeating: 0x61, count: MarkerReader.maxChunkBytes - strg.count)   // "aaa…", no NUL
            chunks.append(("strg", strg))
        }
        let bytes = caf(chunks)
        let start = Date()
        let info = try inspect(bytes)
        XCTAssertLessThan(Date().timeIntervalSince(start), 60, "bounded: 12,288 names of at most 1 KiB")
        XCTAssertNil(info.markersUnreadable)
        XCTAssertEqual(info.markers.count, count)
        XCTAssertEqual(info.markers.first?.name, String(repeating: "a", count: MarkerReader.maxNameBytes))
    }
}
