#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file into memory with the same up-front checks as the decoders.
///
/// The read is bounded by what is read, not by what `stat` says: a `/proc` file reports a size of
/// 0 and may hold gigabytes (`/proc/self/pagemap`), a file may grow while it is read. At most
/// `limit + 1` bytes are ever read; a file with more is refused. A file that shrinks while being
/// read is returned as far as it was read.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Sounds/step-ima4.caf")
/// ```
public enum FileBytes {
    /// The default most bytes ``read(path:limit:setting:)`` reads into memory: 2 GiB + 1 MiB,
    /// what a clip within ``ClipDecoder/Options/maxBytesCeiling`` can need.
    public static let defaultLimit = Int(Int32.max) + (1 << 20)

    /// How much is read at a time past the size `stat` reports (1 MiB).
    static let chunkBytes = 1 << 20

    /// The file's bytes. Throws ``EarshotError/fileNotFound(path:)`` for a missing path and
    /// ``EarshotError/unreadableFile(path:reason:)`` for a directory or an unreadable file.
    ///
    /// A file larger than `limit` bytes throws ``EarshotError/tooLarge(name:what:size:limit:setting:)``
    /// (`setting` names where the limit comes from): before anything is allocated when `stat`
    /// says so, and as soon as byte `limit + 1` is read when it does not (a `/proc` file).
    public static func read(path: String, limit: Int = FileBytes.defaultLimit,
                            setting: String = "FileBytes.defaultLimit") throws(EarshotError) -> [UInt8] {
        try FileCheck.withOpenRegularFile(path) { (fd, size) throws(EarshotError) -> [UInt8] in
            try readAll(fd, size: size, path: path, limit: limit, setting: setting)
        }
    }

    /// The whole of the open file `fd`, whose `stat` size is `size`: that many bytes in one
    /// allocation (refused over `limit` first), then whatever follows in chunks, to at most
    /// `limit + 1` bytes in all.
    private static func readAll(
        _ fd: Int32, size: Int, path: String, limit: Int, setting: String
    ) throws(EarshotError) -> [UInt8] {
        guard size <= limit else {
            throw .tooLarge(name: path, what: "reading the file", size: size, limit: limit, setting: setting)
        }
        var bytes = [UInt8](repeating: 0, count: size)
        let done = try fill(fd, &bytes, path: path)
        if done < size {
            bytes.removeLast(size - done)
            return bytes
        }
        // All that stat promised was there: read on to the end, never past limit + 1 bytes.
        var more: [[UInt8]] = []
        var total = size
        while true {
            // A small first probe: a regular file ends here, and its end costs 4 KiB, not 1 MiB.
            let want = more.isEmpty ? 4_096 : chunkBytes
            var chunk = [UInt8](repeating: 0, count: limit - total < want ? limit - total + 1 : want)
            let got: Int
            do throws(EarshotError) { got = try fill(fd, &chunk, path: path) } catch {
                // A special file may refuse reads past what it holds (pagemap: EINVAL): say where.
                guard case .unreadableFile(_, let reason) = error else { throw error }
                throw .unreadableFile(
                    path: path, reason: "\(reason), after \(total) bytes where stat said \(size) (a special file?)")
            }
            if got == 0 { break }
            chunk.removeLast(chunk.count - got)
            total += got
            more.append(chunk)
            guard total <= limit else {
                throw .tooLarge(name: path, what: "reading the file (it has more bytes than stat reports)", size: total,
                                limit: limit, setting: setting)
            }
        }
        guard !more.isEmpty else { return bytes }
        bytes.reserveCapacity(total)
        for chunk in more { bytes += chunk }
        return bytes
    }

    /// Reads into `buffer` until it is full or the file ends; the bytes read.
    private static func fill(_ fd: Int32, _ buffer: inout [UInt8], path: String) throws(EarshotError) -> Int {
        var done = 0
        let failure: Int32? = buffer.withUnsafeMutableBytes { buf -> Int32? in
            guard let base = buf.baseAddress else { return nil }
            while done < buf.count {
                let got = Glibc.read(fd, base + done, buf.count - done)
                if got < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if got == 0 { break }
                done += got
            }
            return nil
        }
        if let failure { throw .unreadableFile(path: path, reason: String(cString: strerror(failure))) }
        return done
    }
}

extension FileBytes {
    /// Up to `count` bytes from the start of the file (fewer when the file is shorter), with the
    /// same checks and errors as ``read(path:limit:setting:)``.
    public static func readPrefix(path: String, count: Int) throws(EarshotError) -> [UInt8] {
        try FileCheck.requireRegularFile(path)
        let fd = RawPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, count) }
        guard got >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        bytes.removeLast(count - got)
        return bytes
    }
}
