#if canImport(Glibc)
import Glibc
#endif

/// A directory only its owner can enter (mode 0700): made when missing, refused when it is a
/// symbolic link, belongs to another user or lets others in. Where per-user sockets live.
package enum PrivateDirectory {
    /// Makes `path` (its parent must exist) or checks the one there. Throws when it cannot be
    /// made, is not a real directory, is not the effective user's, or has group/other bits.
    package static func ensure(_ path: String) throws(UnixSocketError) {
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw UnixSocketError(operation: "mkdir \(path)", code: errno)
        }
        try check(path)
    }

    /// Checks the directory at `path` without making it: throws when it is missing, is not a real
    /// directory (a symbolic link), is not the effective user's, or has group/other bits — a
    /// folder another user made first, where a fake server could wait.
    package static func check(_ path: String) throws(UnixSocketError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { throw UnixSocketError(operation: "lstat \(path)", code: errno) }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw UnixSocketError(operation: "\(path) is not a directory", code: ENOTDIR)
        }
        guard st.st_uid == geteuid() else {
            throw UnixSocketError(operation: "\(path) belongs to uid \(st.st_uid)", code: EPERM)
        }
        guard st.st_mode & 0o077 == 0 else {
            throw UnixSocketError(
                operation: "\(path) is open to other users (mode \(String(st.st_mode & 0o777, radix: 8)))", code: EPERM)
        }
    }

    /// The file mode bits (`& 0o7777`) of `path` without following a link, nil when absent.
    package static func mode(of path: String) -> UInt32? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return UInt32(st.st_mode & 0o7777)
    }
}
