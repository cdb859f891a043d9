import Earshot
import Foundation
import XCTest

/// Header fields at their extremes (issue 24, class 1): every size, count and offset read from a
/// file is combined with checked arithmetic, so a field at its maximum is a typed error — the
/// same from a path and from memory — never an overflow trap.
final class HeaderArithmeticTests: XCTestCase {
    static let packet: [UInt8] = [0, 10] + [UInt8](repeating: 0x31, count: 32)

    static func ima4(pakt: [UInt8], packets: Int = 2) -> [UInt8] {
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.ima4())
        b.chunk("pakt", pakt)
        b.chunk("data", CAFBuilder.dataBody(Array(repeating: packet, count: packets).flatMap { $0 }))
        return b.bytes
    }

    /// Decodes `bytes` from memory and from a file; both must agree, and neither may trap.
    func decodeBothWays(_ bytes: [UInt8], _ label: String) -> Result<PCMAudio, EarshotError> {
        let path = NSTemporaryDirectory() + "earshot-hdr-\(UUID().uuidString).caf"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { unlink(path) }
        let memory = Result { () throws(EarshotError) in try ClipDecoder.decode(data: bytes, name: path) }
        let disk = Result { () throws(EarshotError) in try ClipDecoder.decode(path: path) }
        XCTAssertEqual(try? memory.get(), try? disk.get(), "\(label): path and memory decode differently")
        if case .failure(let a) = memory, case .failure(let b) = disk { XCTAssertEqual(a, b, label) }
        // inspect goes through the same parse (from the path: headers only).
        let inspected = Result { () throws(EarshotError) in try ClipDecoder.inspect(path: path) }
        if case .success = memory { XCTAssertNoThrow(try inspected.get(), label) }
        return memory
    }

    /// The 300-byte CAF of the report: pakt fields at their maximum used to trap in CAFReader.
    func testPacketTableFieldsAtTheirExtremes() {
        let i64: [Int64] = [.max, .max - 1, 0, 1, -1, .min, 64, 127, 128]
        let i32: [Int32] = [.max, .max - 1, 0, 1, -1, .min]
        var refused = 0, decoded = 0
        for packets in [Int64.max, 0, -1] {
            for valid in i64 {
                for priming in i32 {
                    for remainder in [Int32.max, 0, -1] {
                        let bytes = Self.ima4(pakt: CAFBuilder.paktBody(packets: packets, valid: valid, priming: priming, remainder: remainder))
                        let label = "pakt packets \(packets) valid \(valid) priming \(priming) remainder \(remainder)"
                        switch decodeBothWays(bytes, label) {
                        case .success(let audio):
                            // Only in-range tables decode, and then to exactly the valid frames.
                            XCTAssertTrue(packets >= 0 && valid >= 0 && priming >= 0 && remainder >= 0 && Int64(priming) + valid <= 128, label)
                            XCTAssertEqual(Int64(audio.frameCount), valid, label)
                            decoded += 1
                        case .failure(.truncated(_, let expected, let found, let detail)):
                            // A table promising more frames than the data holds: the file cut short.
                            XCTAssertTrue(detail.contains("pakt"), "\(label): \(detail)")
                            XCTAssertGreaterThan(expected ?? .max, found, label)
                            refused += 1
                        case .failure(let error):
                            guard case .malformedFile(let what) = error else { return XCTFail("\(label): \(error)") }
                            XCTAssertTrue(what.contains("pakt"), "\(label): \(what)")
                            refused += 1
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(decoded, 0)
        XCTAssertGreaterThan(refused, 400)
    }

    func testChunkSizesAndCountsAtTheirExtremes() {
        for size in [Int64.max, .max - 1, Int64(Int32.max), Int64(UInt32.max), -2, .min] {
            var b = CAFBuilder()
            b.chunk("desc", CAFBuilder.pcm16())
            b.chunk("data", size: size, CAFBuilder.dataBody(CAFBuilder.samplesBE([1, 2])))
            // Past the end of the file: the file cut short (the data chunk is the one that may run
            // to the end); negative: malformed.
            switch decodeBothWays(b.bytes, "data size \(size)") {
            case .failure(.truncated(_, _, let found, _)) where size > 0: XCTAssertEqual(found, 2)
            case .failure(.malformedFile) where size < 0: break
            default: return XCTFail("data size \(size) accepted")
            }
        }
        // A chan chunk claiming UInt32.max descriptions, an info chunk claiming UInt32.max entries.
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.pcm16())
        b.chunk("chan", [0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFE])
        b.chunk("data", CAFBuilder.dataBody(CAFBuilder.samplesBE([1, 2])))
        guard case .failure(.malformedFile) = decodeBothWays(b.bytes, "chan") else { return XCTFail("chan accepted") }
        var i = CAFBuilder()
        i.chunk("desc", CAFBuilder.pcm16())
        i.chunk("info", [0xFF, 0xFF, 0xFF, 0xFF, 0x61, 0, 0x62, 0])
        i.chunk("data", CAFBuilder.dataBody(CAFBuilder.samplesBE([1, 2])))
        guard case .success(let audio) = decodeBothWays(i.bytes, "info") else { return XCTFail("info refused") }
        XCTAssertEqual(audio.frameCount, 2)
        // desc fields at their maximum: channels × bits per sample may not fit a packet size.
        for (channels, bits, bpp) in [(UInt32.max, UInt32.max, UInt32.max), (64, UInt32.max, 0), (UInt32(CAFReader.maxChannels), 32, UInt32.max)] {
            var d = CAFBuilder()
            d.chunk("desc", CAFBuilder.descBody(rate: .greatestFiniteMagnitude, format: "lpcm", bytesPerPacket: bpp, framesPerPacket: UInt32.max, channels: channels, bits: bits))
            d.chunk("data", CAFBuilder.dataBody([1, 2]))
            guard case .failure = decodeBothWays(d.bytes, "desc \(channels) \(bits) \(bpp)") else { return XCTFail("desc accepted") }
        }
    }

    /// A hand-built CAFFile whose counts do not fit the bytes is a programmer error (the
    /// precondition names it), not an overflow: `isConsistent` is checked arithmetic.
    func testParsedStructureOfRealFilesIsConsistent() throws {
        let bytes = Self.ima4(pakt: CAFBuilder.paktBody(packets: 2, valid: 100, priming: 10, remainder: 18))
        let file = try CAFReader.parse(bytes, name: "ok.caf")
        XCTAssertEqual(file.firstFrame, 10)
        XCTAssertEqual(file.frameCount, 100)
        XCTAssertEqual(try CAFReader.decode(bytes, name: "ok.caf").frameCount, 100)
    }

    /// Peak resident memory of this process (VmHWM), in bytes.
    static func peakRSS() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb * 1024
    }

    /// A 2 GiB sparse CAF (no disk used) whose header already says its decoded audio is over the
    /// limit is refused from its headers: the peak RSS does not grow by the file's size (it grew
    /// by 2.1 GB when the file was read whole first). Its structure is described the same way.
    func testSparseTwoGiBCAFIsJudgedFromItsHeader() throws {
        let path = NSTemporaryDirectory() + "earshot-sparse-\(UUID().uuidString).caf"
        var b = CAFBuilder()
        b.chunk("desc", CAFBuilder.pcm16())
        b.chunk("data", size: -1, [0, 0, 0, 0])
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(b.bytes)))
        defer { unlink(path) }
        XCTAssertEqual(truncate(path, 2 << 30), 0)   // sparse: a hole, no blocks
        let before = Self.peakRSS()
        XCTAssertThrowsError(try ClipDecoder.decode(path: path)) { error in
            guard case .tooLarge(_, _, let size, _, _)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertGreaterThan(size, ClipDecoder.Options.defaultMaxBytes)
        }
        let info = try ClipDecoder.inspect(path: path)
        XCTAssertEqual(info.frames, ((2 << 30) - b.bytes.count) / 2)
        // A short data chunk behind a 2 GiB free chunk: decoded without reading the free chunk.
        let other = NSTemporaryDirectory() + "earshot-sparse-\(UUID().uuidString).caf"
        var c = CAFBuilder()
        c.chunk("desc", CAFBuilder.pcm16())
        c.chunk("free", size: 2 << 30, [])
        XCTAssertTrue(FileManager.default.createFile(atPath: other, contents: Data(c.bytes)))
        defer { unlink(other) }
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: other))
        try handle.seek(toOffset: UInt64(c.bytes.count + (2 << 30)))
        var d = CAFBuilder()
        d.bytes = []
        d.chunk("data", CAFBuilder.dataBody(CAFBuilder.samplesBE([5, 6, 7])))
        try handle.write(contentsOf: Data(d.bytes))
        try handle.close()
        XCTAssertEqual(try ClipDecoder.decode(path: other).samples, .int16([5, 6, 7]))
        let grew = Self.peakRSS() - before
        XCTAssertLessThan(grew, 256 << 20, "peak RSS grew by \(grew >> 20) MiB judging two 2 GiB sparse files")
    }
}
