// The chunked containers of the structure-aware fuzzer: CAF (64-bit big-endian sizes), RIFF
// WAV (32-bit little-endian) and AIFF/AIFF-C (32-bit big-endian). Each walker lists the fields
// of a file it is given (robustly: the file may already be mutated) and the structural edits
// insert, duplicate, drop, swap and truncate whole chunks, and craft chunks the seeds lack
// (pakt, chan, info; fact, LIST/INFO, smpl, cue; MARK, INST, COMT …).

/// A chunk of an IFF-like file: header start, id, declared size, body start.
struct Chunk {
    var start: Int
    var id: String
    var size: UInt64
    var body: Int
    /// The end of the chunk in the file (clamped to the file, padding included).
    var end: Int
}

/// The container kinds the fuzzer writes.
enum Container: String, CaseIterable {
    case caf, wav, aiff, flac, ogg, mp3

    var seedExtensions: [String] {
        switch self {
        case .caf: return ["caf"]
        case .wav: return ["wav"]
        case .aiff: return ["aiff", "aifc"]
        case .flac: return ["flac"]
        case .ogg: return ["ogg", "opus"]
        case .mp3: return ["mp3"]
        }
    }
}

enum ChunkLayouts {
    // MARK: Walking

    /// The chunks from `first`, `sizeBytes`-byte sizes in the given order, `pad` to even (RIFF,
    /// AIFF) or not (CAF).
    static func chunks(_ b: [UInt8], first: Int, sizeBytes: Int, bigEndian: Bool, pad: Bool) -> [Chunk] {
        var out: [Chunk] = []
        var pos = first
        let header = 4 + sizeBytes
        while pos + header <= b.count, out.count < 64 {
            let size = (bigEndian ? Bytes.readBE(b, pos + 4, sizeBytes) : Bytes.readLE(b, pos + 4, sizeBytes)) ?? 0
            let body = pos + header
            let room = UInt64(b.count - body)
            var end = size > room ? b.count : body + Int(size)
            if pad, end < b.count, size & 1 == 1 { end += 1 }
            out.append(Chunk(start: pos, id: Bytes.tag(b, pos), size: size, body: body, end: end))
            pos = end
        }
        return out
    }

    static func chunks(_ b: [UInt8], _ c: Container) -> [Chunk] {
        switch c {
        case .caf: return chunks(b, first: 8, sizeBytes: 8, bigEndian: true, pad: false)
        case .wav: return chunks(b, first: 12, sizeBytes: 4, bigEndian: Bytes.tag(b, 0) == "RIFX", pad: true)
        default: return chunks(b, first: 12, sizeBytes: 4, bigEndian: true, pad: true)
        }
    }

    // MARK: Fields

    static func fields(_ b: [UInt8], _ c: Container) -> [Field] {
        let be = c != .wav || Bytes.tag(b, 0) == "RIFX"
        var f: [Field] = []
        func int(_ name: String, _ at: Int, _ n: Int) { if at + n <= b.count { f.append(Field(name: name, offset: at, bytes: n, bigEndian: be)) } }
        /// A CAFMarker: its type, its 64-bit float frame position, its id.
        func cafMarker(_ at: Int, _ chunk: String) {
            guard at + 28 <= b.count else { return }
            f.append(Field(name: "\(chunk).marker.type", offset: at, bytes: 4, bigEndian: true, kind: .fourCC))
            f.append(Field(name: "\(chunk).marker.frame", offset: at + 4, bytes: 8, bigEndian: true, kind: .double))
            int("\(chunk).marker.id", at + 12, 4)
        }
        if c == .caf {
            int("caff.version", 4, 2); int("caff.flags", 6, 2)
        } else {
            int("form.size", 4, 4)
        }
        for ch in chunks(b, c) {
            let s = ch.body
            int("\(ch.id).size", ch.start + 4, c == .caf ? 8 : 4)
            switch (c, ch.id) {
            case (.caf, "desc"):
                if s + 8 <= b.count { f.append(Field(name: "desc.rate", offset: s, bytes: 8, bigEndian: true, kind: .double)) }
                if s + 12 <= b.count { f.append(Field(name: "desc.format", offset: s + 8, bytes: 4, bigEndian: true, kind: .fourCC)) }
                for (i, n) in ["flags", "bytesPerPacket", "framesPerPacket", "channels", "bits"].enumerated() { int("desc.\(n)", s + 12 + 4 * i, 4) }
            case (.caf, "data"): int("data.edits", s, 4)
            case (.caf, "pakt"): int("pakt.packets", s, 8); int("pakt.valid", s + 8, 8); int("pakt.priming", s + 16, 4); int("pakt.remainder", s + 20, 4)
                for k in 0..<4 { int("pakt.entry\(k)", s + 24 + k, 1) }
            case (.caf, "chan"): int("chan.tag", s, 4); int("chan.bitmap", s + 4, 4); int("chan.count", s + 8, 4)
            case (.caf, "info"): int("info.count", s, 4)
            case (.wav, "fmt "):
                for (i, n) in [("tag", 2), ("channels", 2), ("rate", 4), ("byteRate", 4), ("blockAlign", 2), ("bits", 2), ("cbSize", 2), ("validBits", 2), ("mask", 4), ("subformat", 2)].enumerated() {
                    let at = [0, 2, 4, 8, 12, 14, 16, 18, 20, 24][i]
                    if UInt64(at + n.1) <= ch.size { int("fmt.\(n.0)", s + at, n.1) }
                }
            case (.wav, "fact"): int("fact.frames", s, 4)
            case (.wav, "LIST"):
                var sub = s + 4
                while sub + 8 <= min(ch.end, b.count), f.count < 200 {
                    int("LIST.sub.size", sub + 4, 4)
                    // adtl: the cue point id of labl/ltxt/note, the ltxt length, a name's bytes.
                    let id = Bytes.tag(b, sub)
                    if ["labl", "ltxt", "note"].contains(id) {
                        int("\(id).id", sub + 8, 4)
                        if id == "ltxt" { int("ltxt.length", sub + 12, 4) }
                        let text = sub + 8 + (id == "ltxt" ? 20 : 4)
                        for k in 0..<3 { int("\(id).name\(k)", text + k, 1) }
                    }
                    sub += 8 + Int(Bytes.readLE(b, sub + 4, 4) ?? 0)
                }
            case (.wav, "smpl"):
                int("smpl.loops", s + 28, 4); int("smpl.extra", s + 32, 4)
                for k in 0..<min(8, Int(Bytes.readLE(b, s + 28, 4) ?? 0)) {
                    let l = s + 36 + 24 * k
                    int("smpl.loop.id", l, 4); int("smpl.loop.type", l + 4, 4); int("smpl.loop.start", l + 8, 4); int("smpl.loop.end", l + 12, 4); int("smpl.loop.count", l + 20, 4)
                }
            case (.wav, "cue "):
                int("cue.count", s, 4)
                for k in 0..<min(8, Int(Bytes.readLE(b, s, 4) ?? 0)) {
                    let p = s + 4 + 24 * k
                    int("cue.id", p, 4); int("cue.position", p + 4, 4); int("cue.chunk", p + 8, 4)
                    int("cue.chunkStart", p + 12, 4); int("cue.blockStart", p + 16, 4); int("cue.sampleOffset", p + 20, 4)
                }
            case (.caf, "mark"):
                int("mark.timeType", s, 4); int("mark.count", s + 4, 4)
                for k in 0..<min(8, Int(Bytes.readBE(b, s + 4, 4) ?? 0)) { cafMarker(s + 8 + 28 * k, "mark") }
            case (.caf, "regn"):
                int("regn.count", s + 4, 4)
                var r = s + 8
                for _ in 0..<min(4, Int(Bytes.readBE(b, s + 4, 4) ?? 0)) {
                    int("regn.id", r, 4); int("regn.flags", r + 4, 4); int("regn.markers", r + 8, 4)
                    let n = Int(Bytes.readBE(b, r + 8, 4) ?? 0)
                    for k in 0..<min(4, n) { cafMarker(r + 12 + 28 * k, "regn") }
                    guard n <= 1_000 else { break }
                    r += 12 + 28 * n
                }
            case (.caf, "strg"):
                int("strg.count", s, 4)
                for k in 0..<min(8, Int(Bytes.readBE(b, s, 4) ?? 0)) { int("strg.id", s + 4 + 12 * k, 4); int("strg.offset", s + 8 + 12 * k, 8) }
            case (.wav, "PEAK"), (.aiff, "PEAK"): int("PEAK.version", s, 4)
            case (.aiff, "COMM"):
                int("COMM.channels", s, 2); int("COMM.frames", s + 2, 4); int("COMM.bits", s + 6, 2)
                int("COMM.exponent", s + 8, 2); int("COMM.mantissa", s + 10, 8)
                if s + 22 <= b.count { f.append(Field(name: "COMM.compression", offset: s + 18, bytes: 4, bigEndian: true, kind: .fourCC)) }
                int("COMM.pstring", s + 22, 1)
            case (.aiff, "SSND"): int("SSND.offset", s, 4); int("SSND.blockSize", s + 4, 4)
            case (.aiff, "MARK"): int("MARK.count", s, 2); int("MARK.position", s + 4, 4); int("MARK.name", s + 8, 1)
            case (.aiff, "INST"): int("INST.sustainStart", s + 10, 2); int("INST.sustainEnd", s + 12, 2); int("INST.releaseStart", s + 16, 2)
            case (.aiff, "COMT"): int("COMT.count", s, 2); int("COMT.length", s + 8, 2)
            default: break
            }
        }
        return f
    }

    // MARK: Structure

    /// One structural edit of a chunked file; the outer size is then made true most of the time.
    static func restructure(_ b: inout [UInt8], _ c: Container, rng: inout FuzzRNG) {
        let list = chunks(b, c)
        guard !list.isEmpty else { return }
        let one = list[rng.below(list.count)]
        let range = one.start..<min(one.end, b.count)
        switch rng.below(7) {
        case 0: b.insert(contentsOf: b[range], at: range.upperBound)                   // duplicate
        case 1: b.removeSubrange(range)                                                   // drop
        case 2:                                                                           // swap with another
            let other = list[rng.below(list.count)]
            let r2 = other.start..<min(other.end, b.count)
            if r2.lowerBound >= range.upperBound {
                let a = Array(b[range]), bb = Array(b[r2])
                b.replaceSubrange(r2, with: a)
                b.replaceSubrange(range, with: bb)
            }
        case 3: b.removeSubrange(rng.below(b.count)..<b.count)                             // truncate
        default:                                                                          // insert a crafted chunk
            let at = rng.chance(50) ? one.start : range.upperBound
            b.insert(contentsOf: crafted(c, rng: &rng), at: min(at, b.count))
        }
        if c != .caf, rng.chance(80), b.count >= 8 {
            let size = UInt64(b.count - 8)
            let bytes = c == .wav && Bytes.tag(b, 0) != "RIFX" ? Bytes.le(size, 4) : Bytes.be(size, 4)
            b.replaceSubrange(4..<8, with: bytes)
        }
    }

    static func edge32(_ rng: inout FuzzRNG) -> UInt64 { rng.pick([0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE, 64, 4096, rng.next() & 0xFFFF_FFFF]) }
    static func edge64(_ rng: inout FuzzRNG) -> UInt64 { rng.pick([0, 1, .max, .max - 1, 1 << 63, (1 << 63) - 1, 64, 63, 128, 129, rng.next()]) }

    /// A chunk the seeds do not have, with fields at edges.
    static func crafted(_ c: Container, rng: inout FuzzRNG) -> [UInt8] {
        let lie = rng.chance(15)
        func chunk(_ id: String, _ body: [UInt8], be: Bool, sizeBytes: Int = 4, lie: Bool = false) -> [UInt8] {
            let size = lie ? edge32(&rng) : UInt64(body.count)
            var out = Array(id.utf8) + (be ? Bytes.be(size, sizeBytes) : Bytes.le(size, sizeBytes)) + body
            if sizeBytes == 4, body.count & 1 == 1 { out.append(0) }
            return out
        }
        switch c {
        case .caf:
            if rng.chance(40) { return MarkerChunks.caf(rng: &rng, lie: lie) }
            switch rng.below(6) {
            case 0: return chunk("pakt", Bytes.be(edge64(&rng), 8) + Bytes.be(edge64(&rng), 8) + Bytes.be(edge32(&rng), 4) + Bytes.be(edge32(&rng), 4) + [0x81, 0x00, 0x40], be: true, sizeBytes: 8)
            case 1: let n = rng.below(4); return chunk("chan", Bytes.be(edge32(&rng), 4) + Bytes.be(0, 4) + Bytes.be(rng.chance(50) ? UInt64(n) : edge32(&rng), 4) + [UInt8](repeating: 0, count: 20 * n), be: true, sizeBytes: 8)
            case 2: return chunk("info", Bytes.be(edge32(&rng), 4) + Array("title\0x\0".utf8), be: true, sizeBytes: 8)
            case 3: return chunk("kuki", [UInt8](repeating: 7, count: rng.below(40)), be: true, sizeBytes: 8)
            case 4: return chunk("free", [], be: true, sizeBytes: 8)
            default:
                let body = Bytes.be(rng.pick([44_100.0, 8_000, 1, 768_000]).bitPattern, 8) + Array(rng.pick(["lpcm", "ima4"]).utf8)
                    + Bytes.be(UInt64(rng.below(4)), 4) + Bytes.be(edge32(&rng) & 0xFF, 4) + Bytes.be(rng.pick([1, 64]), 4) + Bytes.be(UInt64(rng.below(65)), 4) + Bytes.be(rng.pick([4, 8, 16, 24, 32, 64]), 4)
                return chunk("desc", body, be: true, sizeBytes: 8)
            }
        case .wav:
            if rng.chance(40) { return MarkerChunks.wav(rng: &rng, lie: lie) }
            switch rng.below(7) {
            case 0: return chunk("fact", Bytes.le(edge32(&rng), 4), be: false, lie: lie)
            case 1:
                let sub = Array("INAM".utf8) + Bytes.le(rng.chance(50) ? 3 : edge32(&rng), 4) + Array("ab\0".utf8) + [0]
                return chunk("LIST", Array("INFO".utf8) + sub, be: false, lie: lie)
            case 2:
                let loops = rng.chance(50) ? 1 : edge32(&rng)
                let head = [UInt8](repeating: 0, count: 28) + Bytes.le(loops, 4) + Bytes.le(0, 4)
                let loop = Bytes.le(0, 4) + Bytes.le(0, 4) + Bytes.le(edge32(&rng), 4) + Bytes.le(edge32(&rng), 4) + Bytes.le(0, 4) + Bytes.le(edge32(&rng), 4)
                return chunk("smpl", head + loop, be: false, lie: lie)
            case 3: return chunk("cue ", Bytes.le(rng.chance(50) ? 1 : edge32(&rng), 4) + Bytes.le(1, 4) + Bytes.le(edge32(&rng), 4) + Array("data".utf8) + Bytes.le(0, 8), be: false, lie: lie)
            case 4: return chunk("PEAK", Bytes.le(1, 4) + Bytes.le(0, 4) + Bytes.le(0, 8), be: false, lie: lie)
            case 5: return chunk("inst", [60, 0, 0, 0, 127, 0, 127], be: false, lie: lie)
            default: return chunk("acid", Bytes.le(edge32(&rng), 4) + [UInt8](repeating: 0, count: 20), be: false, lie: lie)
            }
        default:
            switch rng.below(6) {
            case 0: return chunk("MARK", Bytes.be(rng.chance(50) ? 1 : edge32(&rng) & 0xFFFF, 2) + Bytes.be(1, 2) + Bytes.be(edge32(&rng), 4) + [1, 0x61], be: true, lie: lie)
            case 1: return chunk("INST", [60, 0, 127, 0, 127, 0, 0] + Bytes.be(1, 2) + Bytes.be(edge32(&rng) & 0xFFFF, 2) + Bytes.be(1, 2) + Bytes.be(1, 2) + Bytes.be(2, 2) + Bytes.be(0, 2) + [0], be: true, lie: lie)
            case 2: return chunk("COMT", Bytes.be(rng.chance(50) ? 1 : 0xFFFF, 2) + Bytes.be(0, 4) + Bytes.be(0, 2) + Bytes.be(edge32(&rng) & 0xFFFF, 2) + [0x61, 0x62], be: true, lie: lie)
            case 3: return chunk("APPL", Array("pdos".utf8) + [0, 0], be: true, lie: lie)
            case 4: return chunk("ID3 ", Array("ID3".utf8) + [4, 0, 0] + Bytes.be(edge32(&rng) & 0x7F7F_7F7F, 4), be: true, lie: lie)
            default: return chunk("basc", Bytes.be(1, 4) + Bytes.be(edge32(&rng), 4) + [UInt8](repeating: 0, count: 76), be: true, lie: lie)
            }
        }
    }
}
