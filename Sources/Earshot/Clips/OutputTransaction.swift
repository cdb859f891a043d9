import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files one command writes, made to appear together and only on success.
///
/// Each output is written to a temporary file beside it, named `.NAME.partial-PID-RANDOM`
/// (sixteen random hex digits) and created exclusively (`O_CREAT | O_EXCL | O_NOFOLLOW`): a
/// planted file or symlink at any name can neither be guessed nor followed. ``commit()`` first
/// checks every target (none may be a folder), then renames every temporary over its target;
/// ``rollback()`` — or releasing an uncommitted transaction, or an error during the commit —
/// removes them all, so a failed command leaves none of its outputs, and no partial file.
///
/// Temporary files of a process that died without cleaning up (a kill -9, a power cut) are swept
/// the next time an output is written to their folder: only files whose name matches the pattern
/// exactly, that are regular files of this user, and whose process id is not alive.
///
/// ```swift
/// let outputs = OutputTransaction()
/// let writer = try AudioFileWriter(path: "out/a.wav", sampleRate: 48_000, channels: 2, transaction: outputs)
/// try writer.write([Float](repeating: 0, count: 96_000))
/// try writer.close()                               // finished, still hidden
/// try outputs.write(Array("<svg/>".utf8), to: "out/a.svg")
/// try outputs.commit()                             // both appear now
/// ```
public final class OutputTransaction {
    private var staged: [(temporary: String, target: String)] = []
    private var open: Set<String> = []
    private var finished = false

    public init() {}

    /// The temporaries of every open transaction and writer in this process, for a process that
    /// is about to exit on a signal.
    private static let registry = Locked<Registry>(Registry())
    private struct Registry {
        var temporaries: Set<String> = []
        var committed = 0
    }

    // MARK: Temporary files

    /// Creates a temporary file for `target`, exclusively, in `target`'s folder (after sweeping
    /// the folder's stale partials), and returns its open descriptor and path. The caller writes
    /// through the descriptor, then ``stage(_:for:)``s the path or ``discard(_:)``s it.
    ///
    /// A target whose name holds bytes that are not UTF-8 (``RawPath`` escapes: names given on the
    /// command line) is refused with ``EarshotError/writeFailed(path:reason:)``: Earshot reads files
    /// of any name but writes UTF-8 names only (Foundation would write another name, silently).
    public static func createTemporary(for target: String) throws(EarshotError) -> (fd: Int32, path: String) {
        if target.unicodeScalars.contains(where: RawPath.isEscape) {
            throw .writeFailed(path: target, reason: "not a UTF-8 file name: Earshot reads files of any name but writes UTF-8 names only")
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

    /// Marks `temporary` (from ``createTemporary(for:)``, complete and closed) to be renamed over
    /// `target` at ``commit()``.
    public func stage(_ temporary: String, for target: String) {
        precondition(!finished, "OutputTransaction: stage after commit or rollback")   // trap: misuse
        staged.append((temporary, target))
    }

    /// Writes `bytes` as the whole content of `target` (staged, appears at ``commit()``). A short
    /// write (a full disk) throws ``EarshotError/writeFailed(path:reason:)`` and leaves nothing.
    public func write(_ bytes: [UInt8], to target: String) throws(EarshotError) {
        let (fd, temporary) = try Self.createTemporary(for: target)
        var done = 0
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                done += n
            }
        }
        if failure == 0, fsync(fd) != 0, errno != EINVAL { failure = errno }
        if Glibc.close(fd) != 0, failure == 0 { failure = errno }
        guard failure == 0 else {
            Self.discard(temporary)
            throw .writeFailed(path: target, reason: String(cString: strerror(failure)))
        }
        stage(temporary, for: target)
    }

    // MARK: Commit

    /// Puts every staged file at its target, after checking that none of the targets is a folder
    /// (or anything but a file or a symlink, which is replaced, never followed). On any failure
    /// every temporary and every target already renamed is removed, and the error thrown.
    public func commit() throws(EarshotError) {
        precondition(!finished, "OutputTransaction: commit twice")   // trap: misuse
        finished = true
        let files = staged
        staged = []
        for (_, target) in files {
            var st = stat()
            if lstat(target, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG, (st.st_mode & S_IFMT) != S_IFLNK {
                for f in files { Self.discard(f.temporary) }
                throw .writeFailed(path: target, reason: (st.st_mode & S_IFMT) == S_IFDIR ? "it is a folder" : "it is not a regular file")
            }
        }
        // Under the registry's lock: a signal's clean-up waits for the renames to end.
        let failure: (String, String)? = Self.registry.withLock { r in
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

    /// Removes every staged file; nothing of the transaction is left.
    public func rollback() {
        guard !finished else { return }
        finished = true
        for f in staged { Self.discard(f.temporary) }
        staged = []
    }

    deinit { rollback() }

    // MARK: Signals and stale files

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
            guard hex.count == 16, hex.allSatisfy({ $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }) else { return nil }
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
