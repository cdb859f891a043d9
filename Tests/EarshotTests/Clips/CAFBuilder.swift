import Foundation

/// Builds CAF files byte by byte, so tests can write exactly the broken structure they need.
struct CAFBuilder {
    var bytes: [UInt8] = []

    init(version: UInt16 = 1) {
        bytes += Array("caff".utf8)
        append16(version)
        append16(0)
    }

    mutating func append16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func append32(_ v: UInt32) { for s in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(v >> UInt32(s) & 0xFF)) } }
    mutating func append64(_ v: UInt64) { append32(UInt32(v >> 32)); append32(UInt32(v & 0xFFFF_FFFF)) }

    /// A chunk header with an explicit (possibly lying) size, then the body as given.
    mutating func chunk(_ type: String, size: Int64? = nil, _ body: [UInt8]) {
        bytes += Array(type.utf8)
        append64(UInt64(bitPattern: size ?? Int64(body.count)))
        bytes += body
    }

    static func descBody(rate: Double, format: String, flags: UInt32 = 0, bytesPerPacket: UInt32,
                         framesPerPacket: UInt32, channels: UInt32, bits: UInt32) -> [UInt8] {
        var b = CAFBuilder()
        b.bytes = []
        b.append64(rate.bitPattern)
        b.bytes += Array(format.utf8)
        b.append32(flags)
        b.append32(bytesPerPacket)
        b.append32(framesPerPacket)
        b.append32(channels)
        b.append32(bits)
        return b.bytes
    }

    /// A 16-bit big-endian lpcm desc.
    static func pcm16(rate: Double = 44_100, channels: UInt32 = 1) -> [UInt8] {
        descBody(rate: rate, format: "lpcm", bytesPerPacket: 2 &* channels, framesPerPacket: 1, channels: channels, bits: 16)
    }

    static func ima4(rate: Double = 44_100, channels: UInt32 = 1) -> [UInt8] {
        descBody(rate: rate, format: "ima4", bytesPerPacket: 34 &* channels, framesPerPacket: 64, channels: channels, bits: 4)
    }

    /// A data chunk body: edit count 0 then the audio.
    static func dataBody(_ audio: [UInt8]) -> [UInt8] { [0, 0, 0, 0] + audio }

    static func paktBody(packets: Int64, valid: Int64, priming: Int32, remainder: Int32) -> [UInt8] {
        var b = CAFBuilder()
        b.bytes = []
        b.append64(UInt64(bitPattern: packets))
        b.append64(UInt64(bitPattern: valid))
        b.append32(UInt32(bitPattern: priming))
        b.append32(UInt32(bitPattern: remainder))
        return b.bytes
    }

    /// Big-endian 16-bit samples.
    static func samplesBE(_ s: [Int16]) -> [UInt8] {
        s.flatMap { [UInt8(UInt16(bitPattern: $0) >> 8), UInt8(UInt16(bitPattern: $0) & 0xFF)] }
    }
}
