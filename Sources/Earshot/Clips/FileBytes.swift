#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file into memory with the same up-front checks as the decoders.
///
/// The allocation is the file's size as `fstat` reports it, never a size read from the file's
/// contents; a file that shrinks while being read is returned as far as it was read.
///
/// ```swift
/// let bytes = try FileBytes.read(path: "Assets/Sounds/step-ima4.caf")
/// ```
public enum FileBytes {
    /// The default most bytes ``read(path:limit:setting:)`` reads into memory: 2 GiB + 1 MiB,
    /// what a clip within ``ClipDecoder/Options/maxBytesCeiling`` can need.
    public static let defaultLimit = Int(Int32.max) + (1 << 20)

    /// The file's bytes. Throws ``EarshotError/fileNotFound(path:)`` for a missing path and
    /// ``EarshotError/unreadableFile(path:reason:)`` for a directory or an unreadable file.
    ///
    /// A file larger than `limit` bytes throws ``EarshotError/tooLarge(name:what:size:limit:setting:)``
    /// (`setting` names where the limit comes from) before anything is allocated.
    public static func read(path: String, limit: Int = FileBytes.defaultLimit,
                            setting: String = "FileBytes.defaultLimit") throws(EarshotError) -> [UInt8] {
        try FileCheck.withOpenRegularFile(path) { (fd, size) throws(EarshotError) -> [UInt8] in
            try readAll(fd, size: size, path: path, limit: limit, setting: setting)
        }
    }

    /// The whole of the open file `fd` of `size` bytes, refused over `limit` before allocating.
    private static func readAll(_ fd: Int32, size: Int, path: String, limit: Int, setting: String) throws(EarshotError) -> [UInt8] {
        guard size <= limit else {
            throw .tooLarge(name: path, what: "reading the file", size: size, limit: limit, setting: setting)
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        let failure: Int32? = bytes.withUnsafeMutableBytes { buf -> Int32? in
            guard let base = buf.baseAddress else { return nil }
            while done < size {
                let got = Glibc.read(fd, base + done, size - done)
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
        if done < size { bytes.removeLast(size - done) }
        return bytes
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
