// The stream containers of the structure-aware fuzzer: FLAC (metadata blocks and frame headers,
// bit fields, CRC-8/CRC-16 made true again after a mutation), Ogg (page headers, Vorbis/Opus
// identification, comment and setup headers, page CRCs made true again) and MP3 (ID3v2 and
// frame headers, the Xing/Info and LAME fields).

enum StreamLayouts {
    // MARK: FLAC

    struct Block { var start: Int; var type: Int; var length: Int; var last: Bool }

    static func flacBlocks(_ b: [UInt8]) -> [Block] {
        guard Bytes.tag(b, 0) == "fLaC" else { return [] }
        var out: [Block] = []
        var pos = 4
        while pos + 4 <= b.count, out.count < 32 {
            let len = Int(Bytes.readBE(b, pos + 1, 3) ?? 0)
            let block = Block(start: pos, type: Int(b[pos] & 0x7F), length: len, last: b[pos] & 0x80 != 0)
            out.append(block)
            pos += 4 + len
            if block.last { break }
        }
        return out
    }

    /// Frame starts: a sync code (0xFFF8 or 0xFFF9) after the metadata, at most `limit`.
    static func flacFrames(_ b: [UInt8], limit: Int = 16) -> [Int] {
        let blocks = flacBlocks(b)
        guard let last = blocks.last else { return [] }
        var out: [Int] = []
        var pos = last.start + 4 + last.length
        while pos + 6 <= b.count, out.count < limit {
            if b[pos] == 0xFF, b[pos + 1] & 0xFE == 0xF8 { out.append(pos); pos += 6 } else { pos += 1 }
        }
        return out
    }

    static func flacFields(_ b: [UInt8]) -> [Field] {
        var f: [Field] = []
        func add(_ name: String, _ at: Int, _ n: Int, shift: Int = 0, bits: Int? = nil, be: Bool = true) {
            if at >= 0, at + n <= b.count { f.append(Field(name: name, offset: at, bytes: n, bigEndian: be, shift: shift, bits: bits)) }
        }
        for block in flacBlocks(b) {
            let s = block.start + 4
            add("block.type", block.start, 1, bits: 7); add("block.last", block.start, 1, shift: 7, bits: 1); add("block.length", block.start + 1, 3)
            switch block.type {
            case 0:
                add("si.minBlock", s, 2); add("si.maxBlock", s + 2, 2); add("si.minFrame", s + 4, 3); add("si.maxFrame", s + 7, 3)
                add("si.rate", s + 10, 8, shift: 44, bits: 20); add("si.channels", s + 10, 8, shift: 41, bits: 3)
                add("si.bits", s + 10, 8, shift: 36, bits: 5); add("si.total", s + 10, 8, bits: 36)
            case 3:
                add("seek.sample", s, 8); add("seek.offset", s + 8, 8); add("seek.samples", s + 16, 2)
            case 4:
                add("comment.vendor", s, 4, be: false)
                let vendor = Int(Bytes.readLE(b, s, 4) ?? 0)
                if vendor < block.length { add("comment.count", s + 4 + vendor, 4, be: false); add("comment.length", s + 8 + vendor, 4, be: false) }
            case 5:
                add("cue.leadIn", s + 128, 8); add("cue.tracks", s + 395, 1)
            case 6:
                add("picture.type", s, 4); add("picture.mime", s + 4, 4)
                let mime = Int(Bytes.readBE(b, s + 4, 4) ?? 0)
                if mime < block.length { add("picture.description", s + 8 + mime, 4) }
            default: break
            }
        }
        for frame in flacFrames(b, limit: 4) {
            add("frame.blocking", frame + 1, 1, bits: 1)
            add("frame.blockSize", frame + 2, 1, shift: 4, bits: 4); add("frame.rate", frame + 2, 1, bits: 4)
            add("frame.channels", frame + 3, 1, shift: 4, bits: 4); add("frame.bits", frame + 3, 1, shift: 1, bits: 3)
            add("frame.number", frame + 4, 1)
        }
        return f
    }

    /// Makes every frame's CRC-8 (header) and CRC-16 (frame) true again.
    static func flacFixCRCs(_ b: inout [UInt8]) {
        let frames = flacFrames(b, limit: 64)
        for (i, start) in frames.enumerated() {
            let end = i + 1 < frames.count ? frames[i + 1] : b.count
            var h = start + 4
            guard h < end else { continue }
            let lead = b[h]
            var n = 1
            if lead & 0x80 != 0 { n = 0; var m: UInt8 = 0x80; while lead & m != 0, n < 8 { n += 1; m >>= 1 } }
            h += n
            let bs = b[start + 2] >> 4, rate = b[start + 2] & 0xF
            h += bs == 6 ? 1 : bs == 7 ? 2 : 0
            h += rate == 12 ? 1 : (rate == 13 || rate == 14) ? 2 : 0
            guard h < end - 2 else { continue }
            b[h] = Checksums.crc8(b[start..<h])
            let crc = Checksums.crc16(b[start..<(end - 2)])
            b[end - 2] = UInt8(crc >> 8); b[end - 1] = UInt8(crc & 0xFF)
        }
    }

    static func flacRestructure(_ b: inout [UInt8], rng: inout FuzzRNG) {
        let blocks = flacBlocks(b)
        guard let first = blocks.first else { return }
        let afterInfo = first.start + 4 + first.length
        switch rng.below(6) {
        case 0:   // a crafted metadata block after STREAMINFO
            let type = rng.pick([1, 2, 3, 4, 5, 6, 7, 126, 127])
            var body: [UInt8]
            switch type {
            case 3: body = Bytes.be(ChunkLayouts.edge64(&rng), 8) + Bytes.be(ChunkLayouts.edge64(&rng), 8) + Bytes.be(ChunkLayouts.edge32(&rng) & 0xFFFF, 2)
            case 4: body = Bytes.le(rng.chance(50) ? 1 : ChunkLayouts.edge32(&rng), 4) + [0x61] + Bytes.le(ChunkLayouts.edge32(&rng), 4) + Bytes.le(3, 4) + Array("a=b".utf8)
            case 5: body = [UInt8](repeating: 0, count: 395) + [UInt8(rng.below(256))] + [UInt8](repeating: 0, count: rng.below(40))
            case 6: body = Bytes.be(3, 4) + Bytes.be(rng.chance(50) ? 9 : ChunkLayouts.edge32(&rng), 4) + Array("image/png".utf8) + Bytes.be(ChunkLayouts.edge32(&rng), 4) + [UInt8](repeating: 0, count: 16) + Bytes.be(ChunkLayouts.edge32(&rng), 4)
            default: body = [UInt8](repeating: 0, count: rng.below(64))
            }
            let length = rng.chance(15) ? ChunkLayouts.edge32(&rng) & 0xFF_FFFF : UInt64(body.count)
            b.insert(contentsOf: [UInt8(type)] + Bytes.be(length, 3) + body, at: min(afterInfo, b.count))
            if first.last, afterInfo <= b.count { b[first.start] &= 0x7F }   // STREAMINFO is no longer last
        case 1:   // drop or duplicate a metadata block
            let one = blocks[rng.below(blocks.count)]
            let r = one.start..<min(b.count, one.start + 4 + one.length)
            if rng.chance(50) { b.removeSubrange(r) } else { b.insert(contentsOf: b[r], at: r.upperBound) }
        case 2:   // clear or set a last flag
            let one = blocks[rng.below(blocks.count)]
            b[one.start] ^= 0x80
        case 3:   // drop or duplicate a frame
            let frames = flacFrames(b)
            guard frames.count > 1 else { return }
            let i = rng.below(frames.count - 1)
            let r = frames[i]..<frames[i + 1]
            if rng.chance(50) { b.removeSubrange(r) } else { b.insert(contentsOf: b[r], at: r.upperBound) }
        default:
            b.removeSubrange(rng.below(b.count)..<b.count)
        }
    }

    // MARK: Ogg

    struct Page { var start: Int; var segments: Int; var length: Int }

    static func oggPages(_ b: [UInt8]) -> [Page] {
        var out: [Page] = []
        var pos = 0
        while pos + 27 <= b.count, Bytes.tag(b, pos) == "OggS", out.count < 256 {
            let n = Int(b[pos + 26])
            guard pos + 27 + n <= b.count else { break }
            var len = 27 + n
            for i in 0..<n { len += Int(b[pos + 27 + i]) }
            guard pos + len <= b.count else { break }   // a page cut by the end of the file
            out.append(Page(start: pos, segments: n, length: len))
            pos += len
        }
        return out
    }

    static func oggFields(_ b: [UInt8]) -> [Field] {
        var f: [Field] = []
        func add(_ name: String, _ at: Int, _ n: Int, shift: Int = 0, bits: Int? = nil, be: Bool = false) {
            if at >= 0, at + n <= b.count { f.append(Field(name: name, offset: at, bytes: n, bigEndian: be, shift: shift, bits: bits)) }
        }
        let pages = oggPages(b)
        for (i, p) in pages.enumerated() where i < 6 || i == pages.count - 1 {
            add("page.version", p.start + 4, 1); add("page.type", p.start + 5, 1); add("page.granule", p.start + 6, 8)
            add("page.serial", p.start + 14, 4); add("page.sequence", p.start + 18, 4); add("page.segments", p.start + 26, 1)
            for k in 0..<min(3, p.segments) { add("page.lacing", p.start + 27 + k, 1) }
        }
        func find(_ pattern: [UInt8]) -> Int? {
            guard b.count >= pattern.count else { return nil }
            for i in 0...(b.count - pattern.count) where b[i] == pattern[0] && Array(b[i..<(i + pattern.count)]) == pattern { return i }
            return nil
        }
        if let v = find([1] + Array("vorbis".utf8)) {
            add("vorbis.version", v + 7, 4); add("vorbis.channels", v + 11, 1); add("vorbis.rate", v + 12, 4)
            add("vorbis.bitrate", v + 20, 4); add("vorbis.block0", v + 28, 1, bits: 4); add("vorbis.block1", v + 28, 1, shift: 4, bits: 4); add("vorbis.framing", v + 29, 1)
        }
        if let c = find([3] + Array("vorbis".utf8)) {
            add("comment.vendor", c + 7, 4)
            let vendor = Int(Bytes.readLE(b, c + 7, 4) ?? 0)
            if vendor < 4096 { add("comment.count", c + 11 + vendor, 4); add("comment.length", c + 15 + vendor, 4) }
        }
        if let s = find([5] + Array("vorbis".utf8)) {
            add("setup.codebooks", s + 7, 1); add("setup.dimensions", s + 11, 2); add("setup.entries", s + 13, 3); add("setup.ordered", s + 16, 1)
        }
        if let o = find(Array("OpusHead".utf8)) {
            add("opus.version", o + 8, 1); add("opus.channels", o + 9, 1); add("opus.preskip", o + 10, 2); add("opus.rate", o + 12, 4)
            add("opus.gain", o + 16, 2); add("opus.family", o + 18, 1)
        }
        if let t = find(Array("OpusTags".utf8)) { add("opustags.vendor", t + 8, 4) }
        return f
    }

    static func oggFixCRCs(_ b: inout [UInt8]) {
        for p in oggPages(b) {
            b[p.start + 22] = 0; b[p.start + 23] = 0; b[p.start + 24] = 0; b[p.start + 25] = 0
            let crc = Checksums.ogg(b[p.start..<(p.start + p.length)])
            for k in 0..<4 { b[p.start + 22 + k] = UInt8(truncatingIfNeeded: crc >> UInt32(8 * k)) }
        }
    }

    static func oggRestructure(_ b: inout [UInt8], others: [[UInt8]], rng: inout FuzzRNG) {
        let pages = oggPages(b)
        guard !pages.isEmpty else { return }
        let p = pages[rng.below(pages.count)]
        let r = p.start..<(p.start + p.length)
        switch rng.below(5) {
        case 0: b.removeSubrange(r)
        case 1: b.insert(contentsOf: b[r], at: r.upperBound)
        case 2:   // another stream after this one: a chain (its format may differ)
            if let other = others.isEmpty ? nil : others[rng.below(others.count)] { b += other }
        case 3:   // move a page to the front
            let page = Array(b[r]); b.removeSubrange(r); b.insert(contentsOf: page, at: 0)
        default: b.removeSubrange(rng.below(b.count)..<b.count)
        }
    }

    // MARK: MP3

    static func id3Length(_ b: [UInt8]) -> Int {
        guard b.count >= 10, Bytes.tag(b, 0).hasPrefix("ID3") else { return 0 }
        var size = 0
        for k in 6..<10 { size = size << 7 | Int(b[k] & 0x7F) }
        return 10 + size
    }

    /// Frame starts after the ID3 tag: walked by the frame length the header states, at most 8.
    static func mp3Frames(_ b: [UInt8]) -> [Int] {
        var out: [Int] = []
        var pos = id3Length(b)
        while pos + 4 <= b.count, out.count < 8 {
            guard b[pos] == 0xFF, b[pos + 1] & 0xE0 == 0xE0 else { pos += 1; continue }
            out.append(pos)
            let version = (b[pos + 1] >> 3) & 3, brIndex = Int(b[pos + 2] >> 4), srIndex = Int((b[pos + 2] >> 2) & 3)
            let mpeg1 = version == 3
            let rates1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0]
            let rates2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160, 0]
            let base = [44_100, 48_000, 32_000, 0][srIndex]
            let sr = version == 3 ? base : version == 2 ? base / 2 : base / 4
            let br = (mpeg1 ? rates1 : rates2)[brIndex] * 1_000
            guard sr > 0, br > 0 else { pos += 4; continue }
            pos += (mpeg1 ? 144 : 72) * br / sr + Int((b[pos + 2] >> 1) & 1)
        }
        return out
    }

    static func mp3Fields(_ b: [UInt8]) -> [Field] {
        var f: [Field] = []
        func add(_ name: String, _ at: Int, _ n: Int, shift: Int = 0, bits: Int? = nil) {
            if at >= 0, at + n <= b.count { f.append(Field(name: name, offset: at, bytes: n, bigEndian: true, shift: shift, bits: bits)) }
        }
        if id3Length(b) > 0 { add("id3.version", 3, 1); add("id3.flags", 5, 1); add("id3.size", 6, 4); add("id3.frameSize", 14, 4) }
        for frame in mp3Frames(b).prefix(4) {
            add("frame.version", frame + 1, 1, shift: 3, bits: 2); add("frame.layer", frame + 1, 1, shift: 1, bits: 2)
            add("frame.bitrate", frame + 2, 1, shift: 4, bits: 4); add("frame.rate", frame + 2, 1, shift: 2, bits: 2)
            add("frame.padding", frame + 2, 1, shift: 1, bits: 1); add("frame.mode", frame + 3, 1, shift: 6, bits: 2)
        }
        if let first = mp3Frames(b).first {
            for i in first..<min(b.count - 4, first + 64) where ["Xing", "Info", "VBRI"].contains(Bytes.tag(b, i)) {
                add("xing.flags", i + 4, 4); add("xing.frames", i + 8, 4); add("xing.bytes", i + 12, 4)
                add("lame.delayPadding", i + 141, 3); add("lame.delay", i + 141, 3, shift: 12, bits: 12)
                break
            }
        }
        return f
    }

    static func mp3Restructure(_ b: inout [UInt8], rng: inout FuzzRNG) {
        let frames = mp3Frames(b)
        switch rng.below(6) {
        case 0:   // an ID3v2 tag in front (sizes at edges; several tags)
            let size = rng.chance(50) ? UInt64(rng.below(64)) : ChunkLayouts.edge32(&rng) & 0x7F7F_7F7F
            let body = [UInt8](repeating: 0, count: min(Int(size & 0x7F), 64))
            b.insert(contentsOf: Array("ID3".utf8) + [UInt8(rng.pick([2, 3, 4, 5])), 0, UInt8(rng.below(256))] + Bytes.be(size, 4) + body, at: 0)
        case 1:   // ID3v1 or APE tag at the end
            if rng.chance(50) { b += Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125) } else {
                b += Array("APETAGEX".utf8) + Bytes.le(2000, 4) + Bytes.le(ChunkLayouts.edge32(&rng), 4) + Bytes.le(ChunkLayouts.edge32(&rng), 4) + [UInt8](repeating: 0, count: 12)
            }
        case 2, 3:   // drop or duplicate a frame
            guard frames.count > 1 else { return }
            let i = rng.below(frames.count - 1)
            let r = frames[i]..<frames[i + 1]
            if rng.chance(50) { b.removeSubrange(r) } else { b.insert(contentsOf: b[r], at: r.upperBound) }
        case 4:   // junk between frames
            let at = frames.isEmpty ? 0 : frames[rng.below(frames.count)]
            b.insert(contentsOf: [UInt8](repeating: UInt8(rng.pick([0, 0xFF])), count: 1 + rng.below(300)), at: at)
        default: b.removeSubrange(rng.below(b.count)..<b.count)
        }
    }
}
