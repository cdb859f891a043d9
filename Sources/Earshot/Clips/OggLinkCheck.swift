#if canImport(Glibc)
import Glibc
#endif

/// A check of the page structure of an Ogg stream before libvorbisfile opens it.
///
/// libvorbisfile 1.3.7 leaks a link's whole `vorbis_info` (18–25 KB for a small file, growing
/// with its codebooks) each time it opens a chained stream it then gives up on: a Vorbis stream
/// followed by an Ogg Opus one, or by pages of a logical stream that never began. Earshot cannot
/// play such files anyway, so it refuses them before vorbisfile sees them. The pages are found
/// as libogg finds them — a page where one starts with `OggS`, a whole header and body, and a
/// CRC that holds; otherwise the next `OggS` — and every page found must:
/// - if it begins a logical stream (its BOS flag), begin a Vorbis stream (`\u{1}vorbis`);
/// - otherwise belong to a logical stream that began earlier in the file;
/// - if it begins a new link (a BOS page after other pages), come after audio (a page with a
///   positive granule position) of every stream begun before: vorbisfile fails such a chain with
///   a read error and leaks the audio-less link's `vorbis_info` (18,566 bytes per open).
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Music/theme.ogg")
/// try bytes.withUnsafeBytes { try OggLinkCheck.validate($0, name: "theme.ogg") }
/// ```
enum OggLinkCheck {
    /// The longest Ogg page: a 27-byte header, 255 lacing values, 255 × 255 bytes of data.
    static let maxPage = 27 + 255 + 255 * 255

    /// How the stream ended, as the walk found it: whether it was cut short.
    struct End: Equatable {
        /// Every logical stream that began also ended (a page with the EOS flag), and the file
        /// does not stop inside a page.
        var ended = true
        /// The file ends inside a page whose header is whole.
        var cutInsidePage = false
        /// The frames that page's granule position says the stream reaches (at least), or nil.
        var cutPageFrames: Int?
        /// The frames the last whole page's granule position says (of the first stream).
        var lastFrames = 0
    }

    /// Walks the file of `length` bytes whose bytes `read(offset, count)` returns (fewer at its
    /// end), through a window of twice the longest page; says how the stream ended. With
    /// `vorbisLinks` false (Opus and FLAC in Ogg, which libsndfile reads), a later link need not be
    /// Vorbis. Granule positions become frames as Vorbis counts them, or for Opus less its
    /// pre-skip and at its input rate (48 kHz when that is not one of Opus's rates).
    @discardableResult
    static func validate(
        name: String, length: Int, read: (Int, Int) -> [UInt8], vorbisLinks: Bool = true
    ) throws(EarshotError) -> End {
        var window: [UInt8] = []
        var windowStart = 0
        /// Up to `count` bytes at `offset`, from the window (refilled when it does not hold them).
        func bytes(_ offset: Int, _ count: Int) -> ArraySlice<UInt8> {
            if offset < windowStart || offset + count > windowStart + window.count {
                windowStart = offset
                window = read(offset, max(count, 2 * maxPage))
            }
            let from = offset - windowStart
            return window[(windowStart + from - windowStart)..<min(window.count, from + count)]
        }
        var streams = Streams()
        var end = End()
        var firstSerial: UInt32?
        var opus: (preSkip: Int, rate: Int)?
        /// A granule position as frames of the first stream.
        func frames(_ granule: Int64) -> Int {
            guard let opus else { return Int(max(0, granule)) }
            return Int(max(0, granule - Int64(opus.preSkip))) / 48_000 * opus.rate
                + Int(max(0, granule - Int64(opus.preSkip))) % 48_000 * opus.rate / 48_000
        }
        func finish() -> End {
            // Cut short: a stream began and did not end, or the file stops inside a page after
            // whole ones. Without one whole page it is not an Ogg stream at all (left to the decoders).
            end.ended = pages == 0 || (!end.cutInsidePage && streams.begun.isSubset(of: streams.ended))
            return end
        }
        var pos = 0
        var pages = 0
        while pos + 27 <= length {
            let head = bytes(pos, 27)
            guard head.count == 27 else { return finish() }
            let h = head.startIndex
            // libogg's sync layer takes any version byte (only ogg_stream_pagein refuses one), so
            // vorbisfile sees such a page's serial: so does this walk.
            if head[h] == 0x4F, head[h + 1] == 0x67, head[h + 2] == 0x67, head[h + 3] == 0x53,
               let page = Optional(bytes(pos, 27 + Int(head[h + 26]))), page.count == 27 + Int(head[h + 26]) {
                var total = page.count
                for k in 27..<page.count { total += Int(page[page.startIndex + k]) }
                let whole = bytes(pos, total)
                let s = whole.startIndex
                let serial =
                    UInt32(head[h + 14]) | UInt32(head[h + 15]) << 8 | UInt32(head[h + 16]) << 16 | UInt32(head[h + 17])
                    << 24
                let granule = Int64(
                    bitPattern: (0..<8).reduce(UInt64(0)) { $0 | UInt64(head[h + 6 + $1]) << (8 * UInt64($1)) })
                if whole.count == total, crcHolds(whole) {
                    pages += 1
                    try check(whole, at: pos, streams: &streams, name: name, vorbisLinks: vorbisLinks)
                    if firstSerial == nil {
                        firstSerial = serial
                        let packet = s + 27 + Int(whole[s + 26])
                        let tag = Array("OpusHead".utf8)
                        if packet + 16 <= whole.endIndex, (0..<8).allSatisfy({ whole[packet + $0] == tag[$0] }) {
                            let preSkip = Int(whole[packet + 10]) | Int(whole[packet + 11]) << 8
                            let input =
                                Int(whole[packet + 12]) | Int(whole[packet + 13]) << 8 | Int(whole[packet + 14]) << 16
                                | Int(whole[packet + 15]) << 24
                            opus = (preSkip, [8_000, 12_000, 16_000, 24_000, 48_000].contains(input) ? input : 48_000)
                        }
                    }
                    if whole[s + 5] & 4 != 0 { streams.ended.insert(serial) }
                    if serial == firstSerial, granule >= 0 { end.lastFrames = frames(granule) }
                    pos += total
                    continue
                }
                if pos + total > length, whole.count == length - pos {
                    // The file ends inside this page: what it would have reached, at least.
                    end.cutInsidePage = true
                    if serial == firstSerial, granule > 0 { end.cutPageFrames = frames(granule) }
                    return finish()
                }
            }
            // Not a page here: libogg looks for the next capture pattern.
            guard let next = nextCapture(after: pos, length: length, bytes) else { return finish() }
            pos = next
        }
        return finish()
    }

    /// What the walk knows of the logical streams so far.
    struct Streams {
        /// Streams that began (a BOS page).
        var begun = Set<UInt32>()
        /// Streams that have had an audio page: not BOS, with a positive granule position (header
        /// pages carry 0; −1, "no packet ends here", does not count: a link whose only audio
        /// page says −1 fails and leaks the same way).
        var withAudio = Set<UInt32>()
        /// Whether a page that is not BOS came after the last BOS page (a BOS page now starts a
        /// new link rather than joining the group at the start of one).
        var pastBOSGroup = false
        /// Streams that ended (an EOS page).
        var ended = Set<UInt32>()
    }

    /// The rules for one whole page at `offset` with a good CRC.
    private static func check(_ page: ArraySlice<UInt8>, at offset: Int, streams: inout Streams, name: String,
                              vorbisLinks: Bool) throws(EarshotError) {
        let s = page.startIndex
        let serial =
            UInt32(page[s + 14]) | UInt32(page[s + 15]) << 8 | UInt32(page[s + 16]) << 16 | UInt32(page[s + 17]) << 24
        if page[s + 5] & 2 != 0 {
            if vorbisLinks, streams.pastBOSGroup, let silent = streams.begun.subtracting(streams.withAudio).min() {
                throw .malformedFile(
                    "\(name): a chained Ogg link begins at byte \(offset) after a link without audio (serial \(silent))"
                )
            }
            streams.pastBOSGroup = false
            let packet = s + 27 + Int(page[s + 26])
            let vorbis: [UInt8] = [0x01, 0x76, 0x6F, 0x72, 0x62, 0x69, 0x73]
            let isVorbis = packet + 7 <= page.endIndex && (0..<7).allSatisfy { page[packet + $0] == vorbis[$0] }
            // The first stream's codec was judged by the route (vorbisfile refuses it cleanly).
            if vorbisLinks, offset > 0, !isVorbis {
                throw .unreadableFile(
                    path: name,
                    reason:
                        "a chained or multiplexed Ogg stream with a link that is not Vorbis at byte \(offset) (Earshot plays Ogg Vorbis links only)"
                )
            }
            streams.begun.insert(serial)
        } else if !streams.begun.contains(serial) {
            throw .malformedFile(
                "\(name): a page at byte \(offset) belongs to an Ogg stream that never began (serial \(serial))")
        } else {
            streams.pastBOSGroup = true
            let granule = (0..<8).reduce(UInt64(0)) { $0 | UInt64(page[s + 6 + $1]) << (8 * UInt64($1)) }
            if Int64(bitPattern: granule) > 0 { streams.withAudio.insert(serial) }
        }
    }

    /// Whether the page's stored CRC-32 matches (computed with the CRC field as zeros).
    private static func crcHolds(_ page: ArraySlice<UInt8>) -> Bool {
        let s = page.startIndex
        var crc: UInt32 = 0
        var i = s
        while i < page.endIndex {
            let byte: UInt8 = (i - s >= 22 && i - s < 26) ? 0 : page[i]
            crc = (crc << 8) ^ crcTable[Int(UInt8(crc >> 24) ^ byte)]
            i += 1
        }
        let stored =
            UInt32(page[s + 22]) | UInt32(page[s + 23]) << 8 | UInt32(page[s + 24]) << 16 | UInt32(page[s + 25]) << 24
        return crc == stored
    }

    private static let crcTable: [UInt32] = (0..<256).map { (n: UInt32) -> UInt32 in
        var r = n << 24
        for _ in 0..<8 { r = r & 0x8000_0000 != 0 ? (r << 1) ^ 0x04C1_1DB7 : r << 1 }
        return r
    }

    /// The offset of the next `OggS` after `pos`, or nil.
    private static func nextCapture(after pos: Int, length: Int, _ bytes: (Int, Int) -> ArraySlice<UInt8>) -> Int? {
        var at = pos + 1
        while at + 4 <= length {
            let chunk = bytes(at, maxPage)
            guard chunk.count >= 4 else { return nil }
            var i = chunk.startIndex
            while i + 3 < chunk.endIndex {
                if chunk[i] == 0x4F, chunk[i + 1] == 0x67, chunk[i + 2] == 0x67, chunk[i + 3] == 0x53 {
                    return at + (i - chunk.startIndex)
                }
                i += 1
            }
            at += chunk.count - 3
        }
        return nil
    }

    /// ``validate(name:length:read:vorbisLinks:)`` on bytes in memory.
    @discardableResult
    static func validate(
        _ bytes: UnsafeRawBufferPointer, name: String, vorbisLinks: Bool = true
    ) throws(EarshotError) -> End {
        var end = End()
        try HeaderScan.memory(bytes) { (length, read) throws(EarshotError) in
            end = try validate(name: name, length: length, read: read, vorbisLinks: vorbisLinks)
        }
        return end
    }

    /// ``validate(name:length:read:vorbisLinks:)`` on a file (`pread`, a window at a time).
    @discardableResult
    static func validate(path: String, vorbisLinks: Bool = true) throws(EarshotError) -> End {
        var end = End()
        try HeaderScan.file(path) { (length, read) throws(EarshotError) in
            end = try validate(name: path, length: length, read: read, vorbisLinks: vorbisLinks)
        }
        return end
    }
}
