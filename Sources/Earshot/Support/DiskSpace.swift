#if canImport(Glibc)
import Glibc
#endif

/// Free space on a file system, for refusing an output before writing it.
enum DiskSpace {
    /// Bytes available to this user in the file system holding `folder`, or nil when unknown.
    static func available(atFolder folder: String) -> Int? {
        var st = statvfs()
        guard statvfs(folder, &st) == 0 else { return nil }
        let (bytes, overflow) = Int(st.f_bavail).multipliedReportingOverflow(by: Int(st.f_frsize))
        return overflow ? Int.max : bytes
    }
}
