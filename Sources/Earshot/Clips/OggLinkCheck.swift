#if canImport(Glibc)
import Glibc
#endif

/// A check of every link of an Ogg stream before libvorbisfile opens it.
///
/// libvorbisfile 1.3.7 leaks the whole `vorbis_info` of a Vorbis link (24,661 bytes for a small
/// file, growing with its codebooks) every time it opens a chained stream whose next link is not
/// Vorbis — an Ogg Opus stream after an Ogg Vorbis one (found by the structure-aware fuzzer,
/// 2026-11-24). Earshot cannot play such a link anyway, so it refuses the file before vorbisfile
/// sees it: every page that begins a logical stream (its BOS flag set), wherever it is — libogg
/// finds pages by their capture pattern, past any junk — must begin a Vorbis stream.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Music/theme.ogg")
/// try bytes.withUnsafeBytes { try OggLinkCheck.validate($0, name: "theme.ogg") }
/// ```
enum OggLinkCheck {
    /// Bytes scanned per read.
    static let window = 1 << 16
    /// Bytes a page needs past its start to show its first packet's codec: the 27-byte header,
    /// up to 255 lacing values and the 7-byte `\u{1}vorbis` identification.
    static let lookahead = 27 + 255 + 7

    /// Walks the file whose bytes `read(offset, count)` returns (fewer at its end).
    static func validate(name: String, length: Int, read: (Int, Int) -> [UInt8]) throws(EarshotError) {
        var base = 0
        while base < length {
            let chunk = read(base, window + lookahead)
            guard chunk.count >= 4 else { return }
            let owned = min(chunk.count - 3, window)   // positions this window answers for
            var i = 0
            while i < owned {
                defer { i += 1 }
                guard chunk[i] == 0x4F, chunk[i + 1] == 0x67, chunk[i + 2] == 0x67, chunk[i + 3] == 0x53,
                      base + i > 0, i + 27 <= chunk.count, chunk[i + 5] & 2 != 0 else { continue }
                let packet = i + 27 + Int(chunk[i + 26])
                guard packet + 7 <= chunk.count else { continue }   // cut by the end of the file
                let vorbis: [UInt8] = [0x01, 0x76, 0x6F, 0x72, 0x62, 0x69, 0x73]
                if !(0..<7).allSatisfy({ chunk[packet + $0] == vorbis[$0] }) {
                    throw .unreadableFile(path: name, reason: "a chained or multiplexed Ogg stream with a link that is not Vorbis at byte \(base + i) (Earshot plays Ogg Vorbis links only)")
                }
            }
            base += window
        }
    }

    /// ``validate(name:length:read:)`` on bytes in memory.
    static func validate(_ bytes: UnsafeRawBufferPointer, name: String) throws(EarshotError) {
        try validate(name: name, length: bytes.count) { offset, count in
            guard offset < bytes.count else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// ``validate(name:length:read:)`` on a file (`pread`, a window at a time).
    static func validate(path: String) throws(EarshotError) {
        let fd = RawPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return }   // the decoder reports why it cannot be opened
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        try validate(name: path, length: Int(st.st_size)) { offset, count in CAFReader.preadAll(fd, offset, count) }
    }
}
