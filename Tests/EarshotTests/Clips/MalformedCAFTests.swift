import Earshot
import Foundation
import XCTest

/// Hostile files: each gets a typed error (or a well-defined result), the same from a path and
/// from memory, without crashing, hanging or allocating beyond the file.
final class MalformedCAFTests: XCTestCase {
    enum Kind: String { case malformed, unsupported, unreadable, notFound, truncated }

    struct Case {
        var name: String
        var bytes: [UInt8]
        var kind: Kind
        /// Words the message must contain.
        var mentions: String
    }

    static func file(_ build: (inout CAFBuilder) -> Void) -> [UInt8] {
        var b = CAFBuilder()
        build(&b)
        return b.bytes
    }

    static let pcm = CAFBuilder.dataBody(CAFBuilder.samplesBE([1, 2, 3, 4]))
    static let goodIMA4Packet: [UInt8] = [0, 10] + [UInt8](repeating: 0x31, count: 32)

    static var cases: [Case] {
        let good = file { $0.chunk("desc", CAFBuilder.pcm16()); $0.chunk("data", pcm) }
        return [
            Case(name: "truncated in the data", bytes: Array(good.prefix(good.count - 3)), kind: .truncated, mentions: "truncated: 4 frames expected, 2 found"),
            Case(name: "truncated header", bytes: Array("caff".utf8) + [0], kind: .malformed, mentions: "truncated"),
            Case(name: "truncated before data", bytes: file { $0.chunk("desc", CAFBuilder.pcm16()) }, kind: .malformed, mentions: "no data chunk"),
            Case(name: "chunk size beyond the file", bytes: file { $0.chunk("desc", CAFBuilder.pcm16()); $0.chunk("data", size: 1_000_000, pcm) }, kind: .truncated, mentions: "the data chunk states 1000000 bytes"),
            Case(name: "negative chunk size", bytes: file { $0.chunk("desc", CAFBuilder.pcm16()); $0.chunk("junk", size: -5, []); $0.chunk("data", pcm) }, kind: .malformed, mentions: "negative size"),
            Case(name: "overflowing chunk size", bytes: file { $0.chunk("desc", CAFBuilder.pcm16()); $0.chunk("junk", size: Int64.max, []); $0.chunk("data", pcm) }, kind: .malformed, mentions: "claims 9223372036854775807"),
            Case(name: "size -1 on a chunk other than data", bytes: file { $0.chunk("desc", size: -1, CAFBuilder.pcm16()) }, kind: .malformed, mentions: "size -1"),
            Case(name: "zero channels", bytes: file { $0.chunk("desc", CAFBuilder.pcm16(channels: 0)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "0 channels"),
            Case(name: "absurd channel count", bytes: file { $0.chunk("desc", CAFBuilder.pcm16(channels: 4_000_000_000)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "4000000000 channels"),
            Case(name: "sample rate zero", bytes: file { $0.chunk("desc", CAFBuilder.pcm16(rate: 0)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "sample rate"),
            Case(name: "sample rate negative", bytes: file { $0.chunk("desc", CAFBuilder.pcm16(rate: -44_100)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "sample rate"),
            Case(name: "sample rate NaN", bytes: file { $0.chunk("desc", CAFBuilder.pcm16(rate: .nan)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "sample rate"),
            Case(name: "sample rate infinite", bytes: file { $0.chunk("desc", CAFBuilder.pcm16(rate: .infinity)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "sample rate"),
            Case(name: "lpcm bytes per packet mismatch", bytes: file { $0.chunk("desc", CAFBuilder.descBody(rate: 44_100, format: "lpcm", bytesPerPacket: 3, framesPerPacket: 1, channels: 2, bits: 16)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "bytes per packet"),
            Case(name: "ima4 bytes per packet mismatch", bytes: file { $0.chunk("desc", CAFBuilder.descBody(rate: 44_100, format: "ima4", bytesPerPacket: 35, framesPerPacket: 64, channels: 1, bits: 4)); $0.chunk("data", CAFBuilder.dataBody(goodIMA4Packet)) }, kind: .malformed, mentions: "bytes per packet"),
            Case(name: "zero frames per packet", bytes: file { $0.chunk("desc", CAFBuilder.descBody(rate: 44_100, format: "ima4", bytesPerPacket: 34, framesPerPacket: 0, channels: 1, bits: 4)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "zero frames per packet"),
            Case(name: "data before desc", bytes: file { $0.chunk("data", pcm); $0.chunk("desc", CAFBuilder.pcm16()) }, kind: .malformed, mentions: "before the desc"),
            Case(name: "two conflicting descs", bytes: file { $0.chunk("desc", CAFBuilder.pcm16()); $0.chunk("desc", CAFBuilder.pcm16(rate: 48_000)); $0.chunk("data", pcm) }, kind: .malformed, mentions: "conflicting desc"),
            Case(name: "no desc", bytes: file { $0.chunk("free", [0, 0]) }, kind: .malformed, mentions: "no desc chunk"),
            Case(name: "data shorter than its edit count", bytes: file { $0.chunk("desc", CAFBuilder.pcm16()); $0.chunk("data", [0, 0]) }, kind: .malformed, mentions: "edit count"),
            Case(name: "short desc", bytes: file { $0.chunk("desc", Array(CAFBuilder.pcm16().prefix(20))); $0.chunk("data", pcm) }, kind: .malformed, mentions: "needs 32"),
            Case(name: "pakt claims more frames than the data", bytes: file { $0.chunk("desc", CAFBuilder.ima4()); $0.chunk("pakt", CAFBuilder.paktBody(packets: 9, valid: 500, priming: 0, remainder: 0)); $0.chunk("data", CAFBuilder.dataBody(goodIMA4Packet)) }, kind: .truncated, mentions: "its pakt chunk states 500 valid frames"),
            Case(name: "pakt with negative counts", bytes: file { $0.chunk("desc", CAFBuilder.ima4()); $0.chunk("pakt", CAFBuilder.paktBody(packets: 1, valid: -1, priming: 0, remainder: 0)); $0.chunk("data", CAFBuilder.dataBody(goodIMA4Packet)) }, kind: .malformed, mentions: "negative"),
            Case(name: "chan claims more descriptions than fit", bytes: file { $0.chunk("desc", CAFBuilder.pcm16()); $0.chunk("chan", [0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF]); $0.chunk("data", pcm) }, kind: .malformed, mentions: "channel descriptions"),
            Case(name: "ima4 step index above 88", bytes: file { $0.chunk("desc", CAFBuilder.ima4()); $0.chunk("data", CAFBuilder.dataBody([0, 100] + [UInt8](repeating: 0, count: 32))) }, kind: .malformed, mentions: "step index 100"),
            Case(name: "other format id", bytes: file { $0.chunk("desc", CAFBuilder.descBody(rate: 44_100, format: "opus", bytesPerPacket: 0, framesPerPacket: 960, channels: 1, bits: 0)); $0.chunk("data", pcm) }, kind: .unsupported, mentions: "'opus'"),
            Case(name: "lpcm with 12 bits", bytes: file { $0.chunk("desc", CAFBuilder.descBody(rate: 44_100, format: "lpcm", bytesPerPacket: 2, framesPerPacket: 1, channels: 1, bits: 12)); $0.chunk("data", pcm) }, kind: .unsupported, mentions: "12 bits"),
            Case(name: "CAF version 2", bytes: { var b = CAFBuilder(version: 2); b.chunk("desc", CAFBuilder.pcm16()); return b.bytes }(), kind: .unsupported, mentions: "version 2"),
            Case(name: "caff then random bytes", bytes: Array("caff".utf8) + [0, 1, 0, 0] + randomBytes(5_000, seed: 7), kind: .malformed, mentions: "chunk"),
            Case(name: "random bytes", bytes: randomBytes(4_096, seed: 1), kind: .unreadable, mentions: "not an audio file"),
            Case(name: "empty file", bytes: [], kind: .unreadable, mentions: "empty file"),
        ]
    }

    static func randomBytes(_ n: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E3779B97F4A7C15 | 1
        return (0..<n).map { _ in
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    static func kind(of error: Error) -> Kind? {
        switch error as? EarshotError {
        case .malformedFile?: return .malformed
        case .unsupportedEncoding?: return .unsupported
        case .unreadableFile?: return .unreadable
        case .fileNotFound?: return .notFound
        case .truncated?: return .truncated
        default: return nil
        }
    }

    func testMalformedTable() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (i, c) in Self.cases.enumerated() {
            let path = dir.appendingPathComponent("case\(i).caf").path
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(c.bytes)), path)
            var pathError: EarshotError?
            var memoryError: EarshotError?
            do { _ = try ClipDecoder.decode(path: path); XCTFail("\(c.name): decoded from a path") } catch { pathError = error
                XCTAssertEqual(Self.kind(of: error), c.kind, "\(c.name): \(error)")
                XCTAssertTrue("\(error)".contains(c.mentions), "\(c.name): \(error)")
                XCTAssertTrue("\(error)".hasPrefix(path), "\(c.name): message should start with the file: \(error)")
            }
            do { _ = try ClipDecoder.decode(data: c.bytes, name: path); XCTFail("\(c.name): decoded from memory") } catch { memoryError = error }
            XCTAssertEqual(pathError, memoryError, "\(c.name): path and memory disagree")
        }
    }

    func testDirectoryAndMissingPath() throws {
        XCTAssertThrowsError(try ClipDecoder.decode(path: NSTemporaryDirectory())) { error in
            XCTAssertEqual(Self.kind(of: error), .unreadable)
            XCTAssertTrue("\(error)".contains("directory"), "\(error)")
        }
        XCTAssertThrowsError(try ClipDecoder.decode(path: "/no/such/clip.caf")) { error in
            XCTAssertEqual(error as? EarshotError, .fileNotFound(path: "/no/such/clip.caf"))
        }
        XCTAssertThrowsError(try CAFReader.decode(path: "/no/such/clip.caf")) { error in
            XCTAssertEqual(Self.kind(of: error), .notFound)
        }
        // A FIFO would block a reader forever: refused before it is opened for reading.
        let fifo = NSTemporaryDirectory() + "earshot-fifo-\(UUID().uuidString).caf"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        for decode in [{ try ClipDecoder.decode(path: fifo) }, { try CAFReader.decode(path: fifo) }, { try SndFileDecoder.decode(path: fifo) }] {
            XCTAssertThrowsError(try decode()) { error in
                XCTAssertEqual(error as? EarshotError, .unreadableFile(path: fifo, reason: "not a regular file"))
            }
        }
    }

    /// A ragged last packet is dropped (as ffmpeg does) and reported in `trailingBytes`.
    func testRaggedLastPacketIsDropped() throws {
        let bytes = Self.file {
            $0.chunk("desc", CAFBuilder.ima4())
            $0.chunk("data", CAFBuilder.dataBody(Self.goodIMA4Packet + Self.goodIMA4Packet + [0, 10, 0x31]))
        }
        let parsed = try CAFReader.parse(bytes, name: "ragged.caf")
        XCTAssertEqual(parsed.packetCount, 2)
        XCTAssertEqual(parsed.trailingBytes, 3)
        XCTAssertEqual(try CAFReader.decode(bytes, name: "ragged.caf").frameCount, 128)
        // lpcm: a half frame at the end is dropped too.
        let pcm = Self.file { $0.chunk("desc", CAFBuilder.pcm16(channels: 2)); $0.chunk("data", CAFBuilder.dataBody(CAFBuilder.samplesBE([1, 2, 3]))) }
        XCTAssertEqual(try CAFReader.decode(pcm, name: "ragged-pcm.caf").samples, .int16([1, 2]))
    }

    /// 200,000 empty chunks are walked in linear time and the audio after them decodes.
    func testTwoHundredThousandEmptyChunks() throws {
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.pcm16())
        for _ in 0..<200_000 { b.chunk("free", []) }
        b.chunk("data", Self.pcm)
        let start = Date()
        XCTAssertEqual(try CAFReader.decode(b.bytes, name: "many.caf").samples, .int16([1, 2, 3, 4]))
        XCTAssertLessThan(Date().timeIntervalSince(start), 10, "walking 200,000 chunks must stay linear")
    }

    /// A data chunk of only the edit count is a valid file with no audio; the engine refuses
    /// to make a clip of it with a typed error.
    func testEmptyDataIsWellDefined() throws {
        let bytes = Self.file { $0.chunk("desc", CAFBuilder.ima4()); $0.chunk("data", [0, 0, 0, 0]) }
        XCTAssertEqual(try CAFReader.decode(bytes, name: "empty.caf").frameCount, 0)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        XCTAssertThrowsError(try engine.loadClip(data: bytes, name: "empty.caf")) { error in
            XCTAssertEqual(Self.kind(of: error), .malformed)
        }
    }

    /// Random mutations of a valid IMA4 file never crash and only ever throw EarshotError; the
    /// ones that break the structure are refused. A mutation of the audio codes decodes (any 4-bit
    /// code is valid), so the test knows which mutations must be refused: the file magic, the
    /// version, the desc and data chunk types, the format id, and (with the header intact, so every
    /// packet is decoded) any block preamble whose step index is above 88. The seed is fixed.
    func testRandomMutationsAreRefusedCleanly() throws {
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.ima4(channels: 2))
        b.chunk("data", CAFBuilder.dataBody(Array(repeating: Self.goodIMA4Packet, count: 8).flatMap { $0 }))
        let base = b.bytes
        // The layout CAFBuilder writes: "caff", version, flags; desc header at 8, its body at 20
        // (format id at 28); data header at 52, edit count at 64, audio (8 packets x 2 blocks
        // of 34 bytes) at 68.
        let structural = [0..<4, 4..<6, 8..<12, 28..<32, 52..<56]
        let header = 0..<68
        let preambleStepBytes = stride(from: 69, to: base.count, by: IMA4Decoder.bytesPerChannelBlock)
        func mustBeRefused(_ bytes: [UInt8]) -> Bool {
            if structural.contains(where: { bytes[$0] != base[$0] }) { return true }
            guard bytes[header] == base[header] else { return false }
            return preambleStepBytes.contains { bytes[$0] & 0x7F > 88 }
        }

        var rng = Self.randomBytes(40_000, seed: 99).makeIterator()
        var refused = 0, expected = 0, decoded = 0
        for _ in 0..<2_000 {
            var bytes = base
            for _ in 0..<(Int(rng.next() ?? 1) % 4 + 1) {
                let at = (Int(rng.next() ?? 0) << 8 | Int(rng.next() ?? 0)) % bytes.count
                bytes[at] = rng.next() ?? 0
            }
            let mustRefuse = mustBeRefused(bytes)
            if mustRefuse { expected += 1 }
            do {
                _ = try CAFReader.decode(bytes, name: "m.caf")
                decoded += 1
                XCTAssertFalse(mustRefuse, "a mutation that breaks the structure decoded: \(zip(base, bytes).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset))")
            } catch {
                refused += 1
                XCTAssertNotNil(Self.kind(of: error), "untyped error: \(error)")
            }
        }
        // The fixed seed hits the structure and the preambles many times; if these drop to zero
        // the test no longer checks refusals at all.
        XCTAssertGreaterThan(expected, 50, "too few structural mutations to mean anything")
        XCTAssertGreaterThanOrEqual(refused, expected)
        XCTAssertGreaterThan(decoded, 0, "mutations of the audio codes should decode")
        print("MalformedCAFTests mutations: \(refused) refused (\(expected) required), \(decoded) decoded of 2000")
    }
}
