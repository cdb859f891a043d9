/// Reads the markers of a RIFF WAV file (RIFF, RIFX, RF64): `cue ` points, their `labl` names and
/// `ltxt` lengths from `LIST`/`adtl`, and `smpl` loops. The chunks are found by ``RIFFCheck``'s
/// walk (the same walk that guards libsndfile), so a file is walked one way only. See
/// ``MarkerReader`` for the rules and limits.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Sounds/beep.wav")
/// let raw = try RIFFMarkerReader.read(name: "beep.wav", length: bytes.count) { offset, count in
///     Array(bytes[offset..<min(bytes.count, offset + count)])
/// }
/// ```
enum RIFFMarkerReader {
    /// Bytes of one `cue ` point: id, position, chunk id, chunk start, block start, sample offset.
    static let cuePointBytes = 24
    /// Bytes of the `smpl` header before its loops.
    static let samplerHeaderBytes = 36
    /// Bytes of one `smpl` loop: cue point id, type, start, end, fraction, play count.
    static let loopBytes = 24

    /// The file's markers, unsorted and unchecked against the audio's length
    /// (``MarkerReader/finish(_:frameCount:leftOut:)`` does that).
    static func read(name: String, length: Int, read: (Int, Int) -> [UInt8]) throws(EarshotError) -> [Marker] {
        let start = try RIFFCheck.audioStart(name: name, length: length, read: read)
        let magic = String(decoding: read(start, 4), as: UTF8.self)
        guard magic == "RIFF" || magic == "RIFX" || magic == "RF64" else { return [] }
        let bigEndian = magic == "RIFX"

        var found: [RIFFCheck.Chunk] = []
        try RIFFCheck.validate(name: name, length: length, read: read) { (chunk) throws(EarshotError) in
            switch (chunk.id, chunk.list) {
            case ("cue ", nil), ("smpl", nil), ("labl", "adtl"), ("ltxt", "adtl"):
                guard found.count < MarkerReader.maxMarkers * 3 else {
                    throw .malformedFile("\(name): more than \(MarkerReader.maxMarkers * 3) marker chunks")
                }
                found.append(chunk)
            default: break
            }
        }

        /// The whole body of a marker chunk, or a typed error when it is too large or cut short.
        func body(_ c: RIFFCheck.Chunk, limit: Int? = nil) throws(EarshotError) -> [UInt8] {
            let what = c.list.map { "\($0) '\(c.id)'" } ?? "'\(c.id)'"
            let wanted = limit.map { min($0, c.size) } ?? c.size
            try MarkerReader.checkChunkSize(wanted, what, name: name)
            let b = read(c.body, wanted)
            guard b.count == wanted else {
                throw .malformedFile(
                    "\(name): truncated: the \(what) chunk claims \(c.size) bytes but the file holds \(b.count)")
            }
            return b
        }
        func u32(_ b: [UInt8], _ at: Int) -> Int {
            let v = bigEndian
                ? UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
                : UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
            return Int(v)
        }

        // Names and lengths first (the labels of loops refer to cue points too).
        var labels: [Int: String] = [:]
        var texts: [Int: String] = [:]
        var lengths: [Int: Int] = [:]
        for c in found where c.list == "adtl" {
            // Only the id, the ltxt fields and a name's worth of text are read.
            let b = try body(c, limit: 20 + MarkerReader.maxNameBytes + 1)
            if c.id == "labl" {
                guard b.count >= 4 else {
                    throw .malformedFile("\(name): a labl chunk of \(b.count) bytes cannot hold its cue point id")
                }
                labels[u32(b, 0)] = MarkerReader.name(b[4...])
            } else {
                guard b.count >= 20 else {
                    throw .malformedFile("\(name): an ltxt chunk of \(b.count) bytes (needs 20)")
                }
                let id = u32(b, 0)
                if u32(b, 4) > 0 { lengths[id] = u32(b, 4) }
                texts[id] = MarkerReader.name(b[20...])
            }
        }
        func label(_ id: Int) -> String { labels[id] ?? texts[id] ?? "" }

        var markers: [Marker] = []
        for c in found where c.list == nil {
            let b = try body(c)
            if c.id == "cue " {
                guard b.count >= 4 else {
                    throw .malformedFile("\(name): a cue chunk of \(b.count) bytes cannot hold its count")
                }
                let count = u32(b, 0)
                try MarkerReader.checkCount(
                    count, entryBytes: cuePointBytes, room: b.count - 4, "the cue chunk", name: name)
                try checkTotal(markers.count, count, name: name)
                for i in 0..<count {
                    let p = 4 + i * cuePointBytes
                    let id = u32(b, p), position = u32(b, p + 4), offset = u32(b, p + 20)
                    markers.append(
                        Marker(name: label(id), frame: offset != 0 ? offset : position, length: lengths[id], id: id))
                }
            } else {   // smpl
                guard b.count >= samplerHeaderBytes else {
                    throw .malformedFile("\(name): a smpl chunk of \(b.count) bytes (needs \(samplerHeaderBytes))")
                }
                let count = u32(b, 28)
                try MarkerReader.checkCount(
                    count, entryBytes: loopBytes, room: b.count - samplerHeaderBytes, "the smpl chunk", name: name)
                try checkTotal(markers.count, count, name: name)
                for i in 0..<count {
                    let p = samplerHeaderBytes + i * loopBytes
                    let id = u32(b, p), first = u32(b, p + 8), last = u32(b, p + 12)
                    // The end frame is inclusive; a loop that ends before it starts is given a
                    // negative length and left out by finish.
                    markers.append(Marker(name: label(id), frame: first, length: last - first + 1, kind: .loop, id: id))
                }
            }
        }
        return markers
    }

    /// Throws when `adding` more markers to `have` would pass ``MarkerReader/maxMarkers``.
    static func checkTotal(_ have: Int, _ adding: Int, name: String) throws(EarshotError) {
        guard adding <= MarkerReader.maxMarkers - have else {
            throw .malformedFile("\(name): more than \(MarkerReader.maxMarkers) markers (MarkerReader.maxMarkers)")
        }
    }
}
