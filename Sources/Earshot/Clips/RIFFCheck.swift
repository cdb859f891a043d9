#if canImport(Glibc)
import Glibc
#endif

/// A structural check of RIFF/RIFX/RF64 files before libsndfile sees them.
///
/// libsndfile 1.2.0 never returns from `sf_open` on a WAV whose `LIST` chunk holds a sub-chunk
/// claiming more bytes than the `LIST` itself (upstream issue #1118, still open in 1.2.2): a
/// 115-byte file spins for minutes. This walk reads only chunk headers (a few bytes
/// each, never the audio) and refuses such a file with ``EarshotError/malformedFile(_:)``. Chunks
/// that run past the end of the file at the top level are left to libsndfile (streamed WAVs
/// state no length); a `LIST` must hold its type and whole sub-chunks, each of which must fit in
/// it, and a `fact` chunk must hold its 4-byte count — libsndfile reads past both otherwise, out
/// of step with the file, and can spin on each.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Sounds/beep.wav")
/// try RIFFCheck.validate(name: "beep.wav", length: bytes.count) { offset, count in
///     Array(bytes[offset..<min(bytes.count, offset + count)])
/// }
/// ```
enum RIFFCheck {
    /// The most chunk headers walked (a file of millions of empty chunks is refused too).
    static let maxChunks = 100_000

    /// The most ID3v2 tags skipped in front of the audio (libsndfile skips any number).
    static let maxID3Tags = 1_000

    /// Where libsndfile 1.2.0 starts parsing: past the ID3v2 tags in front of the file, as its
    /// `id3_skip` does (`ID3`, version 2, 3 or 4, a 28-bit size; skipped while what follows is
    /// still inside the file), so that what it parses is what these checks see. A tag of under 2
    /// bytes is refused: libsndfile would go on reading from byte 12, not from the tag's end.
    static func audioStart(name: String, length: Int, read: (Int, Int) -> [UInt8]) throws(EarshotError) -> Int {
        var offset = 0
        for _ in 0..<maxID3Tags {
            let tag = read(offset, 10)
            guard tag.count == 10, tag[0] == 0x49, tag[1] == 0x44, tag[2] == 0x33, (2...4).contains(tag[3]) else {
                return offset
            }
            var size = 0
            for k in 6..<10 { size = size << 7 | Int(tag[k] & 0x7f) }
            guard offset + size + 10 < length else { return offset }
            // libsndfile has already read 12 bytes when it skips a tag; behind one of 10 or 11
            // bytes it goes on from byte 12, not from the tag's end, and parses from a place these
            // checks cannot follow (an Ogg stream two bytes behind an empty tag leaks that way).
            // A tag that small holds no frame: refuse it.
            guard size >= 2 else {
                throw .malformedFile("\(name): an empty ID3 tag (\(size) bytes) in front of the audio")
            }
            offset += size + 10
        }
        throw .malformedFile("\(name): more than \(maxID3Tags) ID3 tags in front of the audio")
    }

    /// A chunk the walk passes: its id, where its body starts, its declared size (which a
    /// top-level chunk may state past the end of the file), and the type of the `LIST` that holds
    /// it (nil at the top level).
    struct Chunk {
        var id: String
        var body: Int
        var size: Int
        var list: String?
    }

    /// Walks the chunks of the file whose bytes `read(offset, count)` returns (fewer at its end),
    /// from where libsndfile starts (``audioStart(name:length:read:)``). Behind ID3 tags, an Ogg
    /// stream is refused (libsndfile cannot read it there, and 1.2.0 leaks 5,784 bytes on
    /// finding that out when the stream is Vorbis).
    ///
    /// `visit` sees every chunk walked, top-level and inside `LIST`s (``MarkerReader`` finds the
    /// marker chunks through it). In an RF64 file, a chunk whose size is 0xFFFFFFFF (the `data`
    /// chunk) takes the size its `ds64` chunk states, so that the chunks after the audio are
    /// walked too.
    static func validate(name: String, length: Int, read: (Int, Int) -> [UInt8],
                         visit: (Chunk) throws(EarshotError) -> Void = { _ in }) throws(EarshotError) {
        let start = try audioStart(name: name, length: length, read: read)
        let head = read(start, 12)
        guard head.count == 12 else { return }
        let magic = String(decoding: head[0..<4], as: UTF8.self)
        if start > 0, magic == "OggS" {
            throw .unreadableFile(
                path: name, reason: "an Ogg stream behind an ID3 tag (Ogg cannot carry one; remove the tag)")
        }
        guard magic == "RIFF" || magic == "RIFX" || magic == "RF64" else { return }
        if start > 0, magic == "RF64" {
            throw .unreadableFile(
                path: name, reason: "an RF64 file behind an ID3 tag (libsndfile reads RF64 only at the start)")
        }
        let bigEndian = magic == "RIFX"
        func size(_ b: [UInt8], _ at: Int) -> Int {
            let v = bigEndian
                ? UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
                : UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
            return Int(v)
        }
        // Behind a tag, libsndfile takes the file to end where the RIFF size says (wav.c sets its
        // length to RIFFsize + 8, or keeps the whole file's length counted from the tag's end,
        // past the real end): check against that end, and refuse a RIFF that runs past the file.
        var length = length
        if start > 0 {
            let riffEnd = start + size(head, 4) + 8
            guard riffEnd <= length else {
                throw .malformedFile(
                    "\(name): a WAV behind an ID3 tag whose RIFF size runs \(riffEnd - length) bytes past the end of the file"
                )
            }
            length = riffEnd
        }
        var offset = start + 12, walked = 0
        var rf64DataSize: Int?
        while offset + 8 <= length {
            walked += 1
            guard walked <= maxChunks else { throw .malformedFile("\(name): more than \(maxChunks) RIFF chunks") }
            let header = read(offset, 8)
            guard header.count == 8 else { return }
            let id = String(decoding: header[0..<4], as: UTF8.self)
            var chunkSize = size(header, 4)
            let body = offset + 8
            if magic == "RF64", id == "ds64", chunkSize >= 16 {
                // The 64-bit RIFF size, then the 64-bit data size (little-endian).
                let d = read(body + 8, 8)
                if d.count == 8 {
                    let v = d.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    rf64DataSize = v <= UInt64(Int.max) ? Int(v) : nil
                }
            }
            if magic == "RF64", id == "data", chunkSize == 0xFFFF_FFFF, let rf64DataSize { chunkSize = rf64DataSize }
            try visit(Chunk(id: id, body: body, size: chunkSize, list: nil))
            if id == "fact", chunkSize < 4 {
                // libsndfile reads the 4-byte sample count whatever the size says, and from there
                // walks the chunks out of step with the file (it never returned on one such).
                throw .malformedFile("\(name): a fact chunk of \(chunkSize) bytes cannot hold its 4-byte sample count")
            }
            if id == "LIST" {
                let end = body + chunkSize
                guard end <= length else {
                    throw .malformedFile("\(name): a LIST chunk of \(chunkSize) bytes runs past the end of the file")
                }
                guard chunkSize >= 4 else {
                    throw .malformedFile("\(name): a LIST chunk of \(chunkSize) bytes cannot hold its 4-byte type")
                }
                // The list's type (4 bytes), then sub-chunks that must each fit inside it.
                let type = read(body, 4)
                let listType = String(decoding: type, as: UTF8.self)
                var sub = body + 4
                while sub + 8 <= end {
                    walked += 1
                    guard walked <= maxChunks else {
                        throw .malformedFile("\(name): more than \(maxChunks) RIFF chunks")
                    }
                    let subHeader = read(sub, 8)
                    guard subHeader.count == 8 else { break }
                    let subSize = size(subHeader, 4)
                    guard sub + 8 + subSize <= end else {
                        throw .malformedFile(
                            "\(name): a chunk inside LIST claims \(subSize) bytes, more than the LIST holds")
                    }
                    try visit(
                        Chunk(
                            id: String(decoding: subHeader[0..<4], as: UTF8.self), body: sub + 8, size: subSize,
                            list: listType))
                    sub += 8 + subSize + (subSize & 1)
                }
                // Bytes left that cannot hold a sub-chunk header: libsndfile reads a header there
                // anyway, past the LIST, and never returned on one such.
                guard sub >= end || end - sub >= 8 else {
                    throw .malformedFile("\(name): a LIST chunk ends \(end - sub) bytes into a sub-chunk header")
                }
            }
            guard chunkSize < length - start else { return }   // a top-level chunk to the end: libsndfile's to read
            offset = body + chunkSize + (chunkSize & 1)
        }
    }

    /// Data sizes that say "unknown length" rather than a length: a WAV written to a pipe states
    /// 0xFFFFFFFF (ffmpeg), 0x7FFFF000 (sox) or 0 for its `data` chunk.
    static let streamedDataSizes: Set<Int> = [0, 0xFFFF_FFFF, 0x7FFF_F000]

    /// ``validate(name:length:read:visit:)``, and the truncation of a file whose `data` chunk
    /// states more bytes than the file holds (nil when it holds them, or states no length): frames
    /// expected and found by the `fmt ` chunk's block size (PCM, float, A-law, µ-law and
    /// extensible formats; IMA ADPCM by its frames per block; other encodings in proportion to
    /// the bytes).
    static func truncation(name: String, length: Int, read: (Int, Int) -> [UInt8]) throws(EarshotError) -> Truncation? {
        var format: (tag: Int, blockAlign: Int, framesPerBlock: Int)?
        var data: (body: Int, size: Int)?
        try validate(name: name, length: length, read: read) { (chunk) throws(EarshotError) in
            guard chunk.list == nil else { return }
            if chunk.id == "fmt ", format == nil {
                let b = read(chunk.body, 20)
                guard b.count >= 14 else { return }
                let tag = Int(b[0]) | Int(b[1]) << 8
                let blockAlign = Int(b[12]) | Int(b[13]) << 8
                let perBlock = tag == 0x11 && b.count >= 20 ? Int(b[18]) | Int(b[19]) << 8 : 1
                format = (tag, blockAlign, max(1, perBlock))
            } else if chunk.id == "data", data == nil {
                data = (chunk.body, chunk.size)
            }
        }
        guard let data, let format, format.blockAlign > 0, !streamedDataSizes.contains(data.size) else { return nil }
        let there = max(0, length - data.body)
        guard data.size > there else { return nil }
        let detail = "the data chunk states \(data.size) bytes, \(there) are there"
        if [1, 3, 6, 7, 0x11, 0xFFFE].contains(format.tag) {
            return Truncation(expectedFrames: data.size / format.blockAlign * format.framesPerBlock,
                              foundFrames: there / format.blockAlign * format.framesPerBlock, detail: detail)
        }
        return Truncation(expectedFrames: nil, foundFrames: 0, detail: detail)
    }

    /// ``validate(name:length:read:)`` on bytes in memory.
    static func validate(_ bytes: UnsafeRawBufferPointer, name: String) throws(EarshotError) {
        try HeaderScan.memory(bytes) { (length, read) throws(EarshotError) in
            try validate(name: name, length: length, read: read)
        }
    }

    /// ``validate(name:length:read:)`` on a file, reading only chunk headers (`pread`).
    static func validate(path: String) throws(EarshotError) {
        try HeaderScan.file(path) { (length, read) throws(EarshotError) in
            try validate(name: path, length: length, read: read)
        }
    }
}
