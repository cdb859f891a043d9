import Earshot
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The files one command writes, made to appear together and only on success.
///
/// Each output is written to the engine's ``PartialFile`` beside it (an unguessable name, created
/// exclusively; stale ones of dead processes swept). ``commit()`` first checks every target
/// (none may be a folder), then renames every temporary over its target; ``rollback()`` — or
/// releasing an uncommitted transaction, or an error during the commit — removes them all, so a
/// failed command leaves none of its outputs, and no partial file.
///
/// The CLI's and the scenes' (a render and its plot appear together); a game writes single
/// files, which ``AudioFileWriter`` commits itself, so this is not in the engine.
///
/// ```swift
/// let outputs = OutputTransaction()
/// let writer = try AudioFileWriter(path: "out/a.wav", sampleRate: 48_000, channels: 2, transaction: outputs)
/// try writer.write([Float](repeating: 0, count: 96_000))
/// try writer.close()                               // finished, still hidden
/// try outputs.write(Array("<svg/>".utf8), to: "out/a.svg")
/// try outputs.commit()                             // both appear now
/// ```
public final class OutputTransaction: OutputStaging {
    private var staged: [(temporary: String, target: String)] = []
    private var finished = false

    public init() {}

    /// Marks `temporary` (from ``PartialFile/create(for:)``, complete and closed) to be renamed over
    /// `target` at ``commit()``.
    public func stage(_ temporary: String, for target: String) {
        precondition(!finished, "OutputTransaction: stage after commit or rollback")   // trap: misuse
        staged.append((temporary, target))
    }

    /// Writes `bytes` as the whole content of `target` (staged, appears at ``commit()``). A short
    /// write (a full disk) throws ``EarshotError/writeFailed(path:reason:)`` and leaves nothing.
    public func write(_ bytes: [UInt8], to target: String) throws(EarshotError) {
        let (fd, temporary) = try PartialFile.create(for: target)
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
            PartialFile.discard(temporary)
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
        try PartialFile.commit(files)
    }

    /// Removes every staged file; nothing of the transaction is left.
    public func rollback() {
        guard !finished else { return }
        finished = true
        for f in staged { PartialFile.discard(f.temporary) }
        staged = []
    }

    deinit { rollback() }
}
