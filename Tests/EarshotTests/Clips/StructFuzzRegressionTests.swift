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
}
