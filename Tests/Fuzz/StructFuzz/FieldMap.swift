// The field model of the structure-aware fuzzer (see StructFuzz.swift): a field is a run of
// bits at a place in the file, with a byte order; mutating it writes an edge value (0, 1, max,
// max−1, the sign boundary, the original ±1, ×2 …) of its own width, so a 64-bit size becomes
// UInt64.max (−1 as a signed size) or Int64.max, and a 3-bit channel code 7.

/// A small, fast, deterministic generator (xorshift64*), seeded per run.
struct FuzzRNG {
    var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state >> 12; state ^= state << 25; state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }
}

/// One field of a file: `bits` bits ending `shift` bits above the least significant bit of the
/// `bytes`-byte integer at `offset`, in the given byte order.
struct Field {
    enum Kind { case integer, double, fourCC, bytes }
    var name: String
    var offset: Int
    var bytes: Int
    var bigEndian: Bool
    var shift = 0
    var bits: Int? = nil
    var kind: Kind = .integer

    var width: Int { bits ?? bytes * 8 }
    var mask: UInt64 { width >= 64 ? .max : (1 << UInt64(width)) - 1 }

    func read(_ b: [UInt8]) -> UInt64? {
        guard offset >= 0, offset + bytes <= b.count else { return nil }
        var v: UInt64 = 0
        for i in 0..<bytes {
            let byte = UInt64(b[offset + (bigEndian ? i : bytes - 1 - i)])
            v = v << 8 | byte
        }
        return (v >> UInt64(shift)) & mask
    }

    func write(_ value: UInt64, into b: inout [UInt8]) {
        guard offset >= 0, offset + bytes <= b.count, var whole = Field(name: name, offset: offset, bytes: bytes, bigEndian: bigEndian).read(b) else { return }
        let m = mask << UInt64(shift)
        whole = (whole & ~m) | ((value << UInt64(shift)) & m)
        for i in 0..<bytes {
            let byte = UInt8(truncatingIfNeeded: whole >> UInt64(8 * (bigEndian ? bytes - 1 - i : i)))
            b[offset + i] = byte
        }
    }

    /// An edge value for this field: what a hostile or careless writer puts there.
    func edgeValue(original: UInt64, rng: inout FuzzRNG) -> UInt64 {
        let m = mask
        switch kind {
        case .double:
            let d: [Double] = [0, -0.0, 1, -1, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
                               0.5, 1e-300, 768_000, 768_001, 999.999, 1_000, 384_000, 384_001, 44_100.5, Double(Int64.max), 4e9]
            return rng.pick(d).bitPattern & m
        case .fourCC:
            let codes = ["lpcm", "ima4", "alac", "ulaw", "alaw", "aac ", "opus", "\0\0\0\0", "NONE", "sowt", "fl32", "fl64", "in24", "in32", "raw ", "twos", "ima4", "GSM ", "ulaw"]
            let s = Array(rng.pick(codes).utf8)
            return UInt64(s[0]) << 24 | UInt64(s[1]) << 16 | UInt64(s[2]) << 8 | UInt64(s[3])
        case .integer, .bytes:
            let sign: UInt64 = width >= 64 ? 1 << 63 : 1 << UInt64(width - 1)
            let candidates: [UInt64] = [
                0, 1, 2, 3, m, m &- 1, sign, sign &- 1, sign &+ 1,
                original &+ 1, original &- 1, original << 1, original >> 1, original &* 64, original &+ 64,
                rng.next(), 7, 8, 64, 65, 255, 256, 65_535, 65_536, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF,
                0x1_0000_0000, 768_000, 384_001, 999, 1_000,
            ]
            return rng.pick(candidates) & m
        }
    }
}

/// Checksums that must hold for a mutation to get past a library's first check.
enum Checksums {
    /// Ogg's CRC-32 (polynomial 0x04C11DB7, no reflection, initial 0).
    static let oggTable: [UInt32] = (0..<256).map { (n: UInt32) -> UInt32 in
        var r = n << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    static func ogg(_ b: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0
        for byte in b { crc = (crc << 8) ^ oggTable[Int(UInt8(crc >> 24) ^ byte)] }
        return crc
    }

    /// FLAC's CRC-8 (polynomial 0x07) over a frame header.
    static func crc8(_ b: ArraySlice<UInt8>) -> UInt8 {
        var crc: UInt8 = 0
        for byte in b {
            crc ^= byte
            for _ in 0..<8 { crc = crc & 0x80 != 0 ? (crc << 1) ^ 0x07 : crc << 1 }
        }
        return crc
    }

    /// FLAC's CRC-16 (polynomial 0x8005) over a whole frame.
    static func crc16(_ b: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in b {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }
}

/// Byte helpers for building chunks.
enum Bytes {
    static func be(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> UInt64(8 * (n - 1 - $0))) } }
    static func le(_ v: UInt64, _ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: v >> UInt64(8 * $0)) } }
    static func readBE(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64? {
        guard at >= 0, at + n <= b.count else { return nil }
        var v: UInt64 = 0
        for i in 0..<n { v = v << 8 | UInt64(b[at + i]) }
        return v
    }
    static func readLE(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64? {
        guard at >= 0, at + n <= b.count else { return nil }
        var v: UInt64 = 0
        for i in 0..<n { v |= UInt64(b[at + i]) << UInt64(8 * i) }
        return v
    }
    static func tag(_ b: [UInt8], _ at: Int) -> String {
        guard at >= 0, at + 4 <= b.count else { return "" }
        return String(decoding: b[at..<(at + 4)], as: UTF8.self)
    }
}
