import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// The structure-aware fuzzer's findings (Tests/Fuzz/regressions/struct-*), each refused with a
/// typed error by every door. The leak itself needs LeakSanitizer (`make struct-fuzz`, or
/// `struct-fuzz replay FILE`); here the refusal that prevents it is checked.
final class StructFuzzRegressionTests: XCTestCase {
    static func regression(_ name: String) -> String {
        CLIRunner.packageRoot.appendingPathComponent("Tests/Fuzz/regressions/\(name)").path
    }

    /// A Vorbis stream chained to an Opus one: libvorbisfile 1.3.7 leaked the first link's whole
    /// vorbis_info (24,661 bytes) on every open. Refused before vorbisfile sees it, from a path,
    /// from memory, for inspect and as music; two chained Vorbis streams still decode.
    func testVorbisThenOpusLinkIsRefusedBeforeVorbisfile() throws {
        let path = Self.regression("struct-ogg-vorbis-then-opus-link-leak.ogg")
        let bytes = try FileBytes.read(path: path)
        let doors: [(String, () throws -> Void)] = [
            ("decode(path:)", { _ = try ClipDecoder.decode(path: path) }),
            ("decode(data:)", { _ = try ClipDecoder.decode(data: bytes, name: path) }),
            ("inspect(path:)", { _ = try ClipDecoder.inspect(path: path) }),
            ("inspect(data:)", { _ = try ClipDecoder.inspect(data: bytes, name: path) }),
            ("music", { try MusicTrack.checkStreamable(path: path) }),
        ]
        for (door, run) in doors {
            XCTAssertThrowsError(try run(), door) { error in
                guard case .unreadableFile(_, let reason)? = error as? EarshotError else { return XCTFail("\(door): \(error)") }
                XCTAssertTrue(reason.contains("link that is not Vorbis"), "\(door): \(reason)")
            }
        }
        // The Vorbis link alone (its first 2,740 bytes) still decodes.
        XCTAssertEqual(try ClipDecoder.decode(data: Array(bytes.prefix(2_740)), name: "vorbis.ogg").frameCount, 400)
    }

    /// An Ogg Vorbis file whose header page carries a granule position of 6.3·10¹⁸: as music it
    /// claimed that many frames. Refused at open (more than 2⁴⁰ frames).
    func testMusicWithAnImplausibleLengthIsRefused() {
        let path = Self.regression("struct-ogg-music-granule-length.ogg")
        XCTAssertThrowsError(try MusicTrack.checkStreamable(path: path)) { error in
            guard case .malformedFile(let what)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains("implausible length"), what)
        }
    }

    /// A chain of two Vorbis streams whose last page carries a serial number no stream began
    /// with: libvorbisfile 1.3.7 leaked 18,566 bytes per open. Refused by every door; the same
    /// file with the page's serial set right (its CRC made true) decodes.
    func testPageOfAStreamThatNeverBeganIsRefused() throws {
        let path = Self.regression("struct-ogg-page-of-unbegun-stream-leak.ogg")
        let bytes = try FileBytes.read(path: path)
        let doors: [(String, () throws -> Void)] = [
            ("decode(path:)", { _ = try ClipDecoder.decode(path: path) }),
            ("decode(data:)", { _ = try ClipDecoder.decode(data: bytes, name: path) }),
            ("music", { try MusicTrack.checkStreamable(path: path) }),
        ]
        for (door, run) in doors {
            XCTAssertThrowsError(try run(), door) { error in
                guard case .malformedFile(let what)? = error as? EarshotError else { return XCTFail("\(door): \(error)") }
                XCTAssertTrue(what.contains("never began"), "\(door): \(what)")
            }
        }
        // The same with the page's version byte at 1 (libogg's sync layer still hands it on, and
        // vorbisfile leaked the same way: the second 1 M run, 13 cases).
        let versioned = Self.regression("struct-ogg-versioned-page-of-unbegun-stream-leak.ogg")
        XCTAssertThrowsError(try ClipDecoder.decode(path: versioned)) { error in
            XCTAssertTrue("\(error)".contains("never began"), "\(error)")
        }
        var fixed = bytes
        let page = 5_579, serial: [UInt8] = [0x41, 0xD3, 0x00, 0x63]   // the second stream's serial
        fixed.replaceSubrange((page + 14)..<(page + 18), with: serial)
        fixed.replaceSubrange((page + 22)..<(page + 26), with: [0, 0, 0, 0])
        var crc: UInt32 = 0
        for byte in fixed[page..<(page + 104)] {
            crc ^= UInt32(byte) << 24
            for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        fixed.replaceSubrange((page + 22)..<(page + 26), with: (0..<4).map { UInt8(truncatingIfNeeded: crc >> (8 * $0)) })
        do { _ = try ClipDecoder.inspect(data: fixed, name: "fixed.ogg") } catch {
            XCTAssertFalse("\(error)".contains("never began") || "\(error)".contains("not Vorbis"), "\(error)")
        }
    }
    /// A chain whose middle link has its headers but no audio before the next link begins (found
    /// by the markers fuzzer through `decode(data:)` and the marker reader, 2026-11-25):
    /// libvorbisfile 1.3.7 failed it with a read error and leaked that link's vorbis_info (18,566
    /// bytes) per open. Refused before vorbisfile sees it, by every door; a chain of two links
    /// with audio still decodes, and so does a link without audio at the end of a file.
    func testLinkWithoutAudioBeforeTheNextIsRefused() throws {
        let path = Self.regression("struct-ogg-link-without-audio-leak.ogg")
        let bytes = try FileBytes.read(path: path)
        let doors: [(String, () throws -> Void)] = [
            ("decode(path:)", { _ = try ClipDecoder.decode(path: path) }),
            ("decode(data:)", { _ = try ClipDecoder.decode(data: bytes, name: path) }),
            ("inspect(data:)", { _ = try ClipDecoder.inspect(data: bytes, name: path) }),
            ("markers", { _ = try MarkerReader.read(data: bytes, name: path, frameCount: 400) }),
            ("music", { try MusicTrack.checkStreamable(path: path) }),
        ]
        for (door, run) in doors {
            XCTAssertThrowsError(try run(), door) { error in
                guard case .malformedFile(let what)? = error as? EarshotError else { return XCTFail("\(door): \(error)") }
                XCTAssertTrue(what.contains("after a link without audio (serial 1660998465)"), "\(door): \(what)")
            }
        }

        // The same with a link whose only audio page says granule position −1 ("no packet ends
        // here"): vorbisfile failed it and leaked the same 18,566 bytes.
        let unknown = Self.regression("struct-ogg-link-with-unknown-granule-leak.ogg")
        XCTAssertThrowsError(try ClipDecoder.decode(data: try FileBytes.read(path: unknown), name: unknown)) { error in
            guard case .malformedFile(let what)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains("after a link without audio (serial 2539335178)"), what)
        }

        // Two whole links (ffmpeg's, the second with another serial) pass the check. (The clip
        // decoder yields the first link's 400 frames, as before this check; inspect says 800.)
        let tool = try FFmpegTool()
        let one = tool.path("one.ogg")
        try tool.run(["-f", "lavfi", "-i", "sine=f=440:r=8000:d=0.05", "-c:a", "libvorbis", one])
        let link = try FileBytes.read(path: one)
        var second = link
        second[14] ^= 0xFF   // another serial: each page's CRC made true again below
        second = Self.withPageCRCs(second)
        XCTAssertEqual(try ClipDecoder.inspect(data: link + second, name: "chain.ogg").frames, 800)
        XCTAssertEqual(try ClipDecoder.decode(data: link + second, name: "chain.ogg").frameCount, 400)
    }

    /// `bytes` with every Ogg page's serial byte 14 set to the first page's and its CRC recomputed.
    static func withPageCRCs(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        var pos = 0
        while pos + 27 <= b.count, b[pos] == 0x4F {
            let segments = Int(b[pos + 26])
            let size = 27 + segments + b[(pos + 27)..<(pos + 27 + segments)].reduce(0) { $0 + Int($1) }
            b[pos + 14] = bytes[14]
            b.replaceSubrange((pos + 22)..<(pos + 26), with: [0, 0, 0, 0])
            var crc: UInt32 = 0
            for byte in b[pos..<(pos + size)] {
                crc ^= UInt32(byte) << 24
                for _ in 0..<8 { crc = crc & 0x8000_0000 != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
            }
            b.replaceSubrange((pos + 22)..<(pos + 26), with: [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
            pos += size
        }
        return b
    }
}
