// Marker chunks for the structure-aware fuzzer: WAV `cue ` + `LIST`/`adtl` (`labl`, `ltxt`,
// `note`) + `smpl`, CAF `mark` + `regn` + `strg` — valid structures whose values are drawn from
// combinations of valid ones (ids that match or not, frames at 0, inside, at the end and past
// it, regions that end before they start, names that are UTF-8, Latin-1, empty, unterminated or
// over the name limit) and, some of the time, counts and sizes at their edges.

enum MarkerChunks {
    /// A frame: mostly where the seeds' audio is (0 … 400 frames at 8 kHz), sometimes at an edge.
    static func frame(_ rng: inout FuzzRNG) -> UInt64 {
        rng.chance(75) ? rng.pick([0, 1, 100, 200, 399, 400, 401, 4_000, UInt64(rng.below(450))]) : ChunkLayouts.edge32(&rng)
    }

    static func id(_ rng: inout FuzzRNG) -> UInt64 { rng.chance(80) ? UInt64(rng.below(4)) : ChunkLayouts.edge32(&rng) }

    /// Name bytes: ASCII, UTF-8, Latin-1, a cut UTF-8 sequence, empty, long, unterminated.
    static func name(_ rng: inout FuzzRNG) -> [UInt8] {
        switch rng.below(8) {
        case 0: return Array("hit".utf8) + [0]
        case 1: return Array("läuft".utf8) + [0]
        case 2: return [0x63, 0x61, 0x66, 0xE9, 0]                     // Latin-1
        case 3: return [0x61, 0xC3, 0]                                  // a cut sequence
        case 4: return [0]
        case 5: return [UInt8](repeating: 0xC3, count: 1) + [UInt8](repeating: 0xA9, count: 1) + Array(String(repeating: "é", count: 520).utf8) + [0]
        case 6: return Array("no terminator".utf8)
        default: return [UInt8](repeating: 0x41, count: 1_100) + [0]
        }
    }

    /// `cue ` with 1…5 points, a `LIST`/`adtl` naming some, and often a `smpl` with loops.
    static func wav(rng: inout FuzzRNG, lie: Bool) -> [UInt8] {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            let size = lie && rng.chance(30) ? ChunkLayouts.edge32(&rng) : UInt64(body.count)
            return Array(id.utf8) + Bytes.le(size, 4) + body + (body.count & 1 == 1 ? [0] : [])
        }
        let n = 1 + rng.below(5)
        var ids: [UInt64] = []
        var cue = Bytes.le(lie && rng.chance(50) ? ChunkLayouts.edge32(&rng) : UInt64(n), 4)
        for _ in 0..<n {
            let i = id(&rng), f = frame(&rng)
            ids.append(i)
            let positionOnly = rng.chance(20)
            cue += Bytes.le(i, 4) + Bytes.le(f, 4) + Array(rng.pick(["data", "slnt", "\0\0\0\0"]).utf8) + Bytes.le(0, 4) + Bytes.le(0, 4) + Bytes.le(positionOnly ? 0 : f, 4)
        }
        var out = chunk("cue ", cue)
        if rng.chance(80) {
            var adtl = Array("adtl".utf8)
            for _ in 0..<(1 + rng.below(4)) {
                let target = rng.chance(80) ? rng.pick(ids) : id(&rng)
                switch rng.below(3) {
                case 0: adtl += chunk("labl", Bytes.le(target, 4) + name(&rng))
                case 1: adtl += chunk("ltxt", Bytes.le(target, 4) + Bytes.le(frame(&rng), 4) + Array("rgn ".utf8) + [UInt8](repeating: 0, count: 8) + (rng.chance(50) ? name(&rng) : []))
                default: adtl += chunk("note", Bytes.le(target, 4) + name(&rng))
                }
            }
            out += chunk("LIST", adtl)
        }
        if rng.chance(50) {
            let loops = rng.below(4)
            var smpl = [UInt8](repeating: 0, count: 28) + Bytes.le(lie && rng.chance(50) ? ChunkLayouts.edge32(&rng) : UInt64(loops), 4) + Bytes.le(0, 4)
            for _ in 0..<loops {
                smpl += Bytes.le(rng.chance(70) ? rng.pick(ids) : id(&rng), 4) + Bytes.le(UInt64(rng.below(3)), 4) + Bytes.le(frame(&rng), 4) + Bytes.le(frame(&rng), 4) + Bytes.le(0, 4) + Bytes.le(0, 4)
            }
            out += chunk("smpl", smpl)
        }
        return out
    }

    /// `mark` and/or `regn` with 1…4 entries, and a `strg` naming some of their ids.
    static func caf(rng: inout FuzzRNG, lie: Bool) -> [UInt8] {
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            let size = lie && rng.chance(30) ? ChunkLayouts.edge64(&rng) : UInt64(body.count)
            return Array(id.utf8) + Bytes.be(size, 8) + body
        }
        func position(_ rng: inout FuzzRNG) -> UInt64 {
            rng.chance(80) ? Double(frame(&rng)).bitPattern : rng.pick([Double.nan, .infinity, -1, -0.0, 1e300, 0.5, 399.5, Double(Int64.max)]).bitPattern
        }
        func marker(_ type: String, _ i: UInt64, _ rng: inout FuzzRNG) -> [UInt8] {
            Array(type.utf8) + Bytes.be(position(&rng), 8) + Bytes.be(i, 4) + [UInt8](repeating: 0, count: 8) + Bytes.be(0, 4)
        }
        var ids: [UInt64] = []
        var out: [UInt8] = []
        if rng.chance(70) {
            let n = 1 + rng.below(4)
            var mark = Bytes.be(0, 4) + Bytes.be(lie && rng.chance(50) ? ChunkLayouts.edge32(&rng) : UInt64(n), 4)
            for _ in 0..<n {
                let i = id(&rng)
                ids.append(i)
                mark += marker(rng.pick(["\0\0\0\0", "rbeg", "lbeg", "indx"]), i, &rng)
            }
            out += chunk("mark", mark)
        }
        if rng.chance(60) {
            let n = 1 + rng.below(3)
            var regn = Bytes.be(0, 4) + Bytes.be(lie && rng.chance(50) ? ChunkLayouts.edge32(&rng) : UInt64(n), 4)
            for _ in 0..<n {
                let i = id(&rng), markers = rng.below(4)
                ids.append(i)
                regn += Bytes.be(i, 4) + Bytes.be(0, 4) + Bytes.be(lie && rng.chance(30) ? ChunkLayouts.edge32(&rng) : UInt64(markers), 4)
                for k in 0..<markers { regn += marker(rng.chance(80) ? (k == 0 ? "rbeg" : "rend") : "rsyc", i, &rng) }
            }
            out += chunk("regn", regn)
        }
        if rng.chance(80) {
            let n = 1 + rng.below(4)
            var entries: [UInt8] = [], text: [UInt8] = []
            for _ in 0..<n {
                let offset = rng.chance(85) ? UInt64(text.count) : ChunkLayouts.edge64(&rng)
                entries += Bytes.be(rng.chance(80) && !ids.isEmpty ? rng.pick(ids) : id(&rng), 4) + Bytes.be(offset, 8)
                text += name(&rng)
            }
            out += chunk("strg", Bytes.be(lie && rng.chance(50) ? ChunkLayouts.edge32(&rng) : UInt64(n), 4) + entries + text)
        }
        return out.isEmpty ? chunk("mark", Bytes.be(0, 4) + Bytes.be(0, 4)) : out
    }
}
