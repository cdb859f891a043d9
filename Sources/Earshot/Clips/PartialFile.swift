import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The hidden file an output is written to until it is complete, then renamed over its target:
/// what lets ``AudioFileWriter`` (and so ``FrameLoop/render(seconds:to:format:_:)`` and
/// ``Recorder``) leave a whole file or none. The CLI's multi-file commits (`OutputTransaction`,
/// in the EarshotOutputs target) are built on it.
///
/// Each temporary is named `.NAME.partial-PID-RANDOM` (sixteen random hex digits) beside its
/// target and created exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`): a planted file or symlink
/// at any name can neither be guessed nor followed. Temporaries of a process that died without
/// cleaning up (a kill -9, a power cut) are swept the next time an output is written to their
/// folder: only files whose name matches the pattern exactly, that are regular files of this
/// user, and whose process id is not alive.
///
/// ```swift
/// let (fd, temporary) = try PartialFile.create(for: "out/a.txt")
/// _ = "hello".withCString { write(fd, $0, 5) }
/// close(fd)
/// try PartialFile.commit([(temporary, "out/a.txt")])    // appears now, whole
/// ```
public enum PartialFile {
    /// The temporaries of this process not yet committed or discarded, for a process that is
    /// about to exit on a signal.
    private static let registry = Locked<Registry>(Registry())
    private struct Registry {
        var temporaries: Set<String> = []
        var committed = 0
    }

    /// Creates a temporary file for `target`, exclusively, in `target`'s folder (after sweeping
    /// the folder's stale partials), and returns its open descriptor and path. The caller writes
    /// through the descriptor, then ``commit(_:)``s or ``discard(_:)``s the path.
    ///
    /// A target whose name holds bytes that are not UTF-8 (``RawPath`` escapes: names given on the
    /// command line) is refused with ``EarshotError/writeFailed(path:reason:)``: Earshot reads files
    /// of any name but writes UTF-8 names only (Foundation would write another name, silently).
    public static func create(for target: String) throws(EarshotError) -> (fd: Int32, path: String) {
        if target.unicodeScalars.contains(where: RawPath.isEscape) {
            throw .writeFailed(
                path: target,
                reason: "not a UTF-8 file name: Earshot reads files of any name but writes UTF-8 names only")
        }
        let (folder, prefix, name) = split(target)
        sweepStalePartials(in: folder)
        // The name is cut so the temporary's stays within NAME_MAX (255 bytes).
        var short = name
        while short.utf8.count > 200 { short.removeLast() }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8 {
            let random = String(generator.next() as UInt64, radix: 16)
            let suffix = String(repeating: "0", count: 16 - random.count) + random
            let path = prefix + ".\(short).partial-\(getpid())-\(suffix)"
            // Created and registered under the registry's lock: a signal's clean-up (which takes
            // it) sees the file registered or not yet made, never made and unregistered.
            let (fd, code): (Int32, Int32) = registry.withLock { r in
                let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
                if fd >= 0 { r.temporaries.insert(path) }
                return (fd, fd >= 0 ? 0 : errno)
            }
            if fd >= 0 { return (fd, path) }
            if code == EEXIST { continue }
            throw .writeFailed(path: target, reason: String(cString: strerror(code)))
        }
        throw .writeFailed(path: target, reason: "could not create a temporary file beside it (eight names taken)")
    }

    /// Removes a temporary file (an abandoned output).
    public static func discard(_ temporary: String) {
        unlink(temporary)
        registry.withLock { _ = $0.temporaries.remove(temporary) }
    }

    /// Puts every temporary at its target, after checking that none of the targets is a folder
    /// (or anything but a file or a symlink, which is replaced, never followed). On any failure
    /// every temporary and every target already renamed is removed, and the error thrown.
    public static func commit(_ files: [(temporary: String, target: String)]) throws(EarshotError) {
        for (_, target) in files {
            var st = stat()
            if lstat(target, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG, (st.st_mode & S_IFMT) != S_IFLNK {
                for f in files { discard(f.temporary) }
                throw .writeFailed(
                    path: target,
                    reason: (st.st_mode & S_IFMT) == S_IFDIR ? "it is a folder" : "it is not a regular file")
            }
        }
        // Under the registry's lock: a signal's clean-up waits for the renames to end.
        let failure: (String, String)? = registry.withLock { r in
            var renamed: [String] = []
            for (temporary, target) in files {
                if rename(temporary, target) != 0 {
                    let reason = String(cString: strerror(errno))
                    for f in files { unlink(f.temporary); r.temporaries.remove(f.temporary) }
                    for t in renamed { unlink(t) }
                    return (target, reason)
                }
                r.temporaries.remove(temporary)
                renamed.append(target)
            }
            r.committed += files.count
            return nil
        }
        if let (target, reason) = failure { throw .writeFailed(path: target, reason: reason) }
    }

    /// Removes every temporary file of this process (for a signal handler about to `_exit`), and
    /// says whether some outputs had already been committed.
    @discardableResult
    public static func removeTemporaries() -> (removed: Int, committed: Int) {
        registry.withLock { r in
            for p in r.temporaries { unlink(p) }
            let n = r.temporaries.count
            r.temporaries.removeAll()
            return (n, r.committed)
        }
    }

    /// Folders already swept by this process.
    private static let swept = Locked<Set<String>>([])

    /// Removes the partial files of dead processes in `folder`: names `.NAME.partial-PID` or
    /// `.NAME.partial-PID-XXXXXXXXXXXXXXXX` (16 hex digits), regular files (not symlinks) owned
    /// by this user, whose PID is not a live process. Once per folder per process.
    public static func sweepStalePartials(in folder: String) {
        guard swept.withLock({ $0.insert(folder).inserted }) else { return }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names {
            guard let pid = stalePartialPID(name), pid != getpid() else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }   // alive (or not ours to ask)
            let path = folder + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, st.st_uid == getuid() else { continue }
            unlink(path)
        }
    }

    /// The process id in a partial file's name, or nil when `name` is not exactly one.
    static func stalePartialPID(_ name: String) -> pid_t? {
        guard name.hasPrefix("."), let range = name.range(of: ".partial-", options: .backwards),
              range.lowerBound > name.index(after: name.startIndex) else { return nil }
        let tail = name[range.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard tail.count == 1 || tail.count == 2 else { return nil }
        let digits = tail[0]
        guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
              let pid = pid_t(digits), pid > 1 else { return nil }
        if tail.count == 2 {
            let hex = tail[1]
            guard hex.count == 16, hex.allSatisfy({ $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }) else {
                return nil
            }
        }
        return pid
    }

    /// `path`'s folder (for listing), the prefix that puts a name in it, and its last component.
    private static func split(_ path: String) -> (folder: String, prefix: String, name: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let name = parts.last.map(String.init) ?? path
        guard parts.count > 1 else { return (".", "", name) }
        let folder = parts.dropLast().joined(separator: "/")
        return (folder.isEmpty ? "/" : folder, folder + "/", name)
    }
}

/// Where a finished ``AudioFileWriter`` leaves its file to appear with a command's other
/// outputs: at ``AudioFileWriter/close()`` the writer hands over its complete, closed temporary
/// (from ``PartialFile/create(for:)``) instead of renaming it. The CLI's `OutputTransaction`
/// (EarshotOutputs) is one.
///
/// ```swift
/// final class Later: OutputStaging {
///     var files: [(temporary: String, target: String)] = []
///     func stage(_ temporary: String, for target: String) { files.append((temporary, target)) }
/// }
/// ```
public protocol OutputStaging: AnyObject {
    /// Takes `temporary` (complete and closed) to be put at `target` later, or discarded.
    func stage(_ temporary: String, for target: String)
}
