#if canImport(Glibc)
import Glibc
#endif

/// Where a structural check (``RIFFCheck``, ``OggLinkCheck``) reads from: each check walks its
/// container through `read(offset, count)` — a few header bytes at a time, never the audio — and
/// this runs it on bytes in memory or on a file read by `pread`.
///
/// ```swift
/// try HeaderScan.file("theme.ogg") { (length, read) throws(EarshotError) in
///     try OggLinkCheck.validate(name: "theme.ogg", length: length, read: read)
/// }
/// ```
enum HeaderScan {
    /// Runs `check` on bytes in memory.
    static func memory(_ bytes: UnsafeRawBufferPointer,
                       _ check: (Int, (Int, Int) -> [UInt8]) throws(EarshotError) -> Void) throws(EarshotError) {
        try check(bytes.count) { offset, count in
            guard offset >= 0, offset < bytes.count, count > 0 else { return [] }
            return Array(bytes[offset..<min(bytes.count, offset + count)])
        }
    }

    /// Runs `check` on the file at `path`; a file that cannot be opened is left alone (the
    /// decoder that opens it next reports why).
    static func file(_ path: String,
                     _ check: (Int, (Int, Int) -> [UInt8]) throws(EarshotError) -> Void) throws(EarshotError) {
        let fd = RawPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return }
        try check(Int(st.st_size)) { offset, count in CAFReader.preadAll(fd, offset, count) }
    }
}
