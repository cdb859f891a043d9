#if canImport(Glibc)
import Glibc
#endif

/// A read cursor over bytes in memory, handed to C libraries' virtual I/O callbacks
/// (libsndfile's `SF_VIRTUAL_IO`, vorbisfile's `ov_callbacks`) as their user pointer.
///
/// The bytes are borrowed: the source must not outlive the buffer it reads. Reads and seeks are
/// clamped to the buffer, so a library can never read outside it.
final class MemorySource {
    let bytes: UnsafeRawBufferPointer
    private(set) var position = 0

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var length: Int { bytes.count }

    /// Copies up to `count` bytes to `destination`; returns how many were copied.
    func read(into destination: UnsafeMutableRawPointer?, count: Int) -> Int {
        guard let destination, count > 0, position < bytes.count, let base = bytes.baseAddress else { return 0 }
        let n = min(count, bytes.count - position)
        destination.copyMemory(from: base + position, byteCount: n)
        position += n
        return n
    }

    /// Moves the cursor like `lseek`; returns the new position, or nil (cursor unchanged) when
    /// the target is before the start, past the end, or `whence` is unknown.
    func seek(offset: Int64, whence: Int32) -> Int? {
        let origin: Int64
        switch whence {
        case SEEK_SET: origin = 0
        case SEEK_CUR: origin = Int64(position)
        case SEEK_END: origin = Int64(bytes.count)
        default: return nil
        }
        let (target, overflow) = origin.addingReportingOverflow(offset)
        guard !overflow, target >= 0, target <= Int64(bytes.count) else { return nil }
        position = Int(target)
        return position
    }

    /// Runs `body` with an unretained pointer to a source over `bytes`, valid only inside.
    static func with<R>(
        _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeMutableRawPointer) throws(EarshotError) -> R
    ) throws(EarshotError) -> R {
        let source = MemorySource(bytes)
        return try withExtendedLifetime(source) { () throws(EarshotError) -> R in
            try body(Unmanaged.passUnretained(source).toOpaque())
        }
    }

    static func from(_ user: UnsafeMutableRawPointer?) -> MemorySource? {
        guard let user else { return nil }
        return Unmanaged<MemorySource>.fromOpaque(user).takeUnretainedValue()
    }
}
