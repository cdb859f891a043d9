/// Reads the markers of a CAF file: `mark` markers and `regn` regions, named by the `strg`
/// chunk (Apple's Core Audio Format Specification). The chunks are found by ``CAFReader``'s
/// chunk walk (``CAFReader/walkChunks(name:length:read:shortData:_:)``, which checks every chunk's size
/// against the file) whatever the audio's encoding — `lpcm`, `ima4`, or the `alac`, `ulaw` and
/// `alaw` that libsndfile decodes. See ``MarkerReader`` for the rules and limits.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Sounds/step-ima4.caf")
/// let raw = try CAFMarkerReader.read(name: "step-ima4.caf", length: bytes.count) { offset, count in
///     Array(bytes[offset..<min(bytes.count, offset + count)])
/// }
/// ```
enum CAFMarkerReader {
    /// Bytes of one `CAFMarker`: type, 64-bit float frame position, id, SMPTE time (8), channel.
    static let markerBytes = 28
    /// Bytes of a `CAFRegion` before its markers: id, flags, marker count.
    static let regionHeaderBytes = 12
    /// Bytes of one `strg` entry: string id, 64-bit offset.
    static let stringEntryBytes = 12

    /// The file's markers, unsorted and unchecked against the audio's length
    /// (``MarkerReader/finish(_:frameCount:leftOut:)`` does that); positions that are negative,
    /// not finite or beyond ``ClipFileInfo/maxPlausibleFrames`` are given frame −1 (left out).
    static func read(name: String, length: Int, read: (Int, Int) -> [UInt8]) throws(EarshotError) -> [Marker] {
        var chunks: [(type: String, body: Int, size: Int)] = []
        try CAFReader.walkChunks(name: name, length: length, read: read) { (type, body, size) throws(EarshotError) in
            let t = CAFReader.fourCCString(type)
            guard t == "mark" || t == "regn" || t == "strg" else { return }
            guard chunks.count < 3 * MarkerReader.maxMarkers else {
                throw .malformedFile("\(name): more than \(3 * MarkerReader.maxMarkers) marker chunks")
            }
            chunks.append((t, body, size))
        }
        func body(_ c: (type: String, body: Int, size: Int)) throws(EarshotError) -> [UInt8] {
            try MarkerReader.checkChunkSize(c.size, "'\(c.type)'", name: name)
            let b = read(c.body, c.size)
            guard b.count == c.size else {
                throw .malformedFile(
                    "\(name): truncated: the '\(c.type)' chunk at offset \(c.body - 12) could not be read whole")
            }
            return b
        }

        var strings: [Int: String] = [:]
        for c in chunks where c.type == "strg" {
            let b = try body(c)
            try strings.merge(parseStrings(b, name: name)) { first, _ in first }
        }

        var markers: [Marker] = []
        for c in chunks where c.type != "strg" {
            let b = try body(c)
            guard b.count >= 8 else {
                throw .malformedFile("\(name): a '\(c.type)' chunk of \(b.count) bytes cannot hold its count")
            }
            let count = Int(b.withUnsafeBytes { CAFReader.readU32($0, 4) })
            if c.type == "mark" {
                try MarkerReader.checkCount(
                    count, entryBytes: markerBytes, room: b.count - 8, "the mark chunk", name: name)
                try RIFFMarkerReader.checkTotal(markers.count, count, name: name)
                for i in 0..<count {
                    let (frame, id) = marker(b, 8 + i * markerBytes)
                    markers.append(Marker(name: strings[id] ?? "", frame: frame, kind: .cue, id: id))
                }
            } else {
                // Regions differ in size: the count is checked against the smallest region first.
                try MarkerReader.checkCount(
                    count, entryBytes: regionHeaderBytes, room: b.count - 8, "the regn chunk", name: name)
                try RIFFMarkerReader.checkTotal(markers.count, count, name: name)
                var p = 8
                for _ in 0..<count {
                    guard b.count - p >= regionHeaderBytes else {
                        throw .malformedFile("\(name): the regn chunk ends inside a region (\(b.count - p) bytes left)")
                    }
                    let (id, n) = b.withUnsafeBytes {
                        (Int(CAFReader.readU32($0, p)), Int(CAFReader.readU32($0, p + 8)))
                    }
                    p += regionHeaderBytes
                    try MarkerReader.checkCount(
                        n, entryBytes: markerBytes, room: b.count - p, "region \(id) of the regn chunk", name: name)
                    var start: Int?, end: Int?, low = Int.max, high = -1, bad = n == 0
                    for k in 0..<n {
                        let at = p + k * markerBytes
                        let (frame, _) = marker(b, at)
                        if frame < 0 { bad = true; continue }
                        let type = b.withUnsafeBytes { CAFReader.fourCCString(CAFReader.readU32($0, at)) }
                        if type == "rbeg", start == nil { start = frame }
                        if type == "rend", end == nil { end = frame }
                        low = min(low, frame)
                        high = max(high, frame)
                    }
                    p += n * markerBytes   // n × 28 <= the room left: checked above
                    let first = start ?? low, last = end ?? high
                    // A region without a usable marker, or ending before it starts, is left out.
                    if bad || first > last {
                        markers.append(Marker(name: strings[id] ?? "", frame: -1, length: 0, kind: .region, id: id))
                    } else {
                        markers.append(
                            Marker(name: strings[id] ?? "", frame: first, length: last - first, kind: .region, id: id))
                    }
                }
            }
        }
        return markers
    }

    /// The frame (−1 when unusable) and id of the `CAFMarker` at `at` (28 bytes there: checked
    /// by the caller).
    static func marker(_ b: [UInt8], _ at: Int) -> (frame: Int, id: Int) {
        b.withUnsafeBytes { m in
            let position = Double(bitPattern: CAFReader.readU64(m, at + 4)).rounded()
            let id = Int(Int32(bitPattern: CAFReader.readU32(m, at + 12)))
            guard position.isFinite, position >= 0, position <= Double(ClipFileInfo.maxPlausibleFrames) else {
                return (-1, id)
            }
            return (Int(position), id)
        }
    }

    /// The `strg` chunk: id → string. Offsets are from the start of the string data, after the
    /// entries; each must lie inside the chunk.
    static func parseStrings(_ b: [UInt8], name: String) throws(EarshotError) -> [Int: String] {
        guard b.count >= 4 else {
            throw .malformedFile("\(name): a strg chunk of \(b.count) bytes cannot hold its count")
        }
        let count = Int(b.withUnsafeBytes { CAFReader.readU32($0, 0) })
        try MarkerReader.checkCount(
            count, entryBytes: stringEntryBytes, room: b.count - 4, "the strg chunk", name: name)
        let data = 4 + count * stringEntryBytes  // <= b.count: checked above
        var out: [Int: String] = [:]
        for i in 0..<count {
            let p = 4 + i * stringEntryBytes
            let (id, offset) = b.withUnsafeBytes {
                (Int(Int32(bitPattern: CAFReader.readU32($0, p))), Int64(bitPattern: CAFReader.readU64($0, p + 4)))
            }
            guard offset >= 0, offset < Int64(b.count - data) else {
                throw .malformedFile(
                    "\(name): strg entry \(i) starts at offset \(offset), outside its \(b.count - data) bytes of strings"
                )
            }
            if out[id] == nil { out[id] = MarkerReader.name(b[(data + Int(offset))...]) }
        }
        return out
    }
}
