internal import EarshotLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches a bank's files with inotify on a thread of its own and calls `changed` once the files
/// have been quiet for ``settle`` seconds after a change — an editor's save (written in place, or
/// written aside and renamed over the file) is one reload, not several.
///
/// It watches the *folders* of the files (a save by rename replaces the file's inode, which a
/// watch on the file itself would lose) and reacts to the watched names only. A file that is a
/// symbolic link is watched at both ends: the link's folder (the link re-pointed) and the folder
/// of the file it leads to (that file saved). A watched folder that is deleted or moved away is
/// looked for again by its path every ``retry`` seconds; once it is back, the files are read
/// again (a change). ``setFiles(_:)`` follows a bank whose includes changed.
///
/// `changed` says whether the files were complete: false (an empty file: an editor's
/// truncate-then-write seen half-way) has it called again after another ``settle``, at most
/// ``maxRetries`` times, the last with `lastTry` true.
///
/// ``stop()`` never waits long, by construction: the thread polls with a timeout (``retry``)
/// as well as the wake pipe, it closes its descriptors after it has signalled that it left its
/// loop and outside every lock, and ``stop()`` waits at most ``stopWait`` for it before
/// detaching it (a reload still running in `changed` ends on its own, and nothing after it).
final class BankWatcher: Sendable {
    /// Seconds without a further change before `changed` runs.
    static let settle = 0.05
    /// Seconds between looks for a watched folder that is gone; the longest the thread sleeps.
    static let retry = 0.25
    /// Calls of `changed` for one change while it reports the files incomplete (0.5 s at ``settle``).
    static let maxRetries = 10
    /// The longest ``stop()`` waits for the thread to end before it detaches it, seconds.
    static let stopWait = 1.0

    private struct State {
        /// Every name watched: the files, and where each that is a link leads.
        var files: Set<String> = []
        var folders: Set<String> = []
        var watches: [Int32: String] = [:]   // watch descriptor → folder
        var stopped = false
        /// The thread left its loop: nothing may use the descriptors (it closes them next).
        var closed = false
        var thread: pthread_t?
    }

    private let inotify: Int32
    /// Wakes the thread (to stop, or to watch other files).
    private let wake: WakePipe
    private let changed: @Sendable (_ lastTry: Bool) -> Bool
    private let lock = NSLock()
    // Guarded by `lock` (a pthread mutex), never held while calling `changed` or closing.
    nonisolated(unsafe) private var state = State()
    /// Signalled by the thread after its descriptors are closed, just before it returns.
    private let done = DispatchSemaphore(value: 0)
    /// Signalled by the thread once it runs (named): init returns then.
    private let started = DispatchSemaphore(value: 0)

    /// Starts watching `files`; throws when inotify is not available (the error's words).
    init(files: [String], changed: @escaping @Sendable (_ lastTry: Bool) -> Bool) throws(WatchError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError(reason: "inotify_init1: \(String(cString: strerror(errno)))") }
        do {
            wake = try WakePipe()
        } catch {
            close(fd)
            throw WatchError(reason: error.description)
        }
        inotify = fd
        self.changed = changed
        setFiles(files)
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { arg in
            guard let arg else { return nil }
            let watcher = Unmanaged<BankWatcher>.fromOpaque(arg).takeRetainedValue()
            watcher.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            close(fd)
            wake.close()
            throw WatchError(reason: "pthread_create: \(rc)")
        }
        lock.lock()
        state.thread = thread
        lock.unlock()
        started.wait()
    }

    struct WatchError: Error {
        var reason: String
    }

    /// The names to watch for `files` (absolute or relative to the working directory): each
    /// file's own path and, for a symbolic link (or a path through one), the file it leads to.
    static func names(_ files: [String]) -> Set<String> {
        var out: Set<String> = []
        for f in files {
            let path = URL(fileURLWithPath: f).standardizedFileURL.path
            out.insert(path)
            if let real = realpath(path, nil) {
                out.insert(String(cString: real))
                free(real)
            }
        }
        return out
    }

    /// Watches the folders of `files` (absolute or relative to the working directory).
    func setFiles(_ files: [String]) {
        let names = Self.names(files)
        let folders = Set(names.map { ($0 as NSString).deletingLastPathComponent })
        lock.lock()
        defer { lock.unlock() }
        guard !state.stopped, !state.closed else { return }
        state.files = names
        state.folders = folders
        for (wd, folder) in state.watches where !folders.contains(folder) {
            inotify_rm_watch(inotify, wd)
            state.watches[wd] = nil
        }
        _ = addMissingWatches()
    }

    private static let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_FROM
                                      | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Adds a watch for each folder that has none (under `lock`); whether one was added. A folder
    /// that does not exist (yet, or again) is tried again at the next turn.
    private func addMissingWatches() -> Bool {
        var added = false
        for folder in state.folders where !state.watches.values.contains(folder) {
            let wd = inotify_add_watch(inotify, folder, Self.mask)
            guard wd >= 0 else { continue }
            state.watches[wd] = folder
            added = true
        }
        return added
    }

    /// Whether some watched folder has no watch (it is gone, or was never there).
    private var missingFolders: Bool {
        state.folders.contains { f in !state.watches.values.contains(f) }
    }

    /// Ends the watch: the thread ends and its descriptors close. Waits at most ``stopWait`` for
    /// it (it is then detached: it ends by itself once a `changed` that runs returns), and not at
    /// all when called from it. Idempotent.
    func stop() {
        lock.lock()
        let first = !state.stopped
        state.stopped = true
        let thread = state.thread
        if first, !state.closed { wake.wake() }   // under the lock: the thread has not closed it
        lock.unlock()
        guard first, let thread else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)   // it ends after this call returns; nobody joins it
            return
        }
        if done.wait(timeout: .now() + Self.stopWait) == .success {
            pthread_join(thread, nil)   // it signalled just before returning: at once
        } else {
            pthread_detach(thread)
        }
    }

    private var isStopped: Bool {
        lock.lock()
        defer { lock.unlock() }
        return state.stopped
    }

    /// The thread's name (`/proc/self/task/*/comm`): at most 15 bytes.
    static let threadName = "earshot-bankwat"

    private func run() {
        // Its name, as pthread_setname_np sets it (not in Swift's Glibc module): for `top -H`,
        // debuggers and the tests that count watch threads.
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if fd >= 0 {
            _ = Self.threadName.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        started.signal()
        defer {
            lock.lock()
            state.closed = true   // a poll error ends the watch too: nobody writes to them after
            lock.unlock()
            // Outside the lock: closing an inotify descriptor may wait for the kernel (RCU) and
            // must hold up nobody.
            close(inotify)
            wake.close()
            done.signal()
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var pending = false
        var retries = 0
        while !isStopped {
            var fds = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            // A change seen: wait out the settle time; otherwise look again for missing folders
            // (and at the stop flag) every `retry`.
            let timeout = Int32((pending ? Self.settle : Self.retry) * 1000)
            let n = poll(&fds, 2, timeout)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 {
                wake.drain()
                continue   // stop, or new files: the loop condition decides
            }
            if fds[0].revents != 0, drain(&buffer) {
                pending = true
                retries = 0
                continue
            }
            lock.lock()
            let back = !state.stopped && missingFolders && addMissingWatches()
            lock.unlock()
            if back {   // a folder came back: what is in it now is a change
                pending = true
                retries = 0
                continue
            }
            if n == 0, pending {
                retries += 1
                let complete = changed(retries > Self.maxRetries)
                pending = !complete && retries <= Self.maxRetries
                if !pending { retries = 0 }
            }
        }
    }

    /// Reads the queued inotify events; whether one names a watched file (or a watched folder
    /// went away: its watch is dropped, to be added again when the folder is back).
    private func drain(_ buffer: inout [UInt8]) -> Bool {
        var hit = false
        while true {
            let got = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard got > 0 else { return hit }
            lock.lock()
            defer { lock.unlock() }
            var offset = 0
            buffer.withUnsafeBytes { raw in
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= got {
                    let wd = raw.load(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.load(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + header
                    guard nameStart + length <= got else { break }
                    let nameBytes = raw[nameStart..<(nameStart + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                        // The folder itself went (deleted, or moved: the watch would follow it to
                        // its new name). Its files are gone from their paths: a change.
                        if state.watches[wd] != nil {
                            if mask & UInt32(IN_IGNORED) == 0 { inotify_rm_watch(inotify, wd) }
                            state.watches[wd] = nil
                            hit = true
                        }
                    } else if let folder = state.watches[wd],
                        state.files.contains((folder as NSString).appendingPathComponent(name))
                    {
                        hit = true
                    }
                    offset = nameStart + length
                }
            }
        }
    }
}
