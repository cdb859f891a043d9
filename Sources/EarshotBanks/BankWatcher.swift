import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches a bank's files with inotify on a thread of its own and calls `changed` once the files
/// have been quiet for ``settle`` seconds after a change — an editor's save (written in place, or
/// written aside and renamed over the file) is one reload, not several.
///
/// It watches the *folders* of the files (a save by rename replaces the file's inode, which a
/// watch on the file itself would lose) and reacts to the watched names only. ``setFiles(_:)``
/// follows a bank whose includes changed. ``stop()`` ends the thread and returns once it has
/// ended, joined (from the thread itself — a reload that released the last reference — it only
/// asks, and the thread is detached).
final class BankWatcher: Sendable {
    /// Seconds without a further change before `changed` runs.
    static let settle = 0.05

    private struct State {
        var files: [String] = []
        var watches: [Int32: String] = [:]   // watch descriptor → folder
        var stopped = false
        /// The thread closed the descriptors (under the lock): nothing may use their numbers
        /// again, which the process may have handed out since.
        var closed = false
        var thread: pthread_t?
    }

    private let inotify: Int32
    /// A pipe: writing a byte to `wake[1]` wakes the thread (to stop, or to watch other files).
    private let wake: (Int32, Int32)
    private let changed: @Sendable () -> Void
    private let lock = NSLock()
    // Guarded by `lock` (a pthread mutex), never held while calling `changed`.
    nonisolated(unsafe) private var state = State()
    private let done = DispatchSemaphore(value: 0)
    /// Signalled by the thread once it runs (named): init returns then.
    private let started = DispatchSemaphore(value: 0)

    /// Starts watching `files`; nil when inotify is not available (the error's words).
    init(files: [String], changed: @escaping @Sendable () -> Void) throws(WatchError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw WatchError(reason: "inotify_init1: \(String(cString: strerror(errno)))") }
        var p: [Int32] = [0, 0]
        guard pipe(&p) == 0 else {
            close(fd)
            throw WatchError(reason: "pipe: \(String(cString: strerror(errno)))")
        }
        for end in p {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        inotify = fd
        wake = (p[0], p[1])
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
            close(p[0])
            close(p[1])
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

    /// Watches the folders of `files` (absolute or relative to the working directory).
    func setFiles(_ files: [String]) {
        let paths = files.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let folders = Set(paths.map { ($0 as NSString).deletingLastPathComponent })
        lock.lock()
        defer { lock.unlock() }
        guard !state.stopped, !state.closed else { return }
        state.files = paths
        for (wd, folder) in state.watches where !folders.contains(folder) {
            inotify_rm_watch(inotify, wd)
            state.watches[wd] = nil
        }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB)
        for folder in folders where !state.watches.values.contains(folder) {
            let wd = inotify_add_watch(inotify, folder, mask)
            if wd >= 0 { state.watches[wd] = folder }
        }
    }

    /// Ends the watch: the thread ends and its descriptors close. Waits for it unless called
    /// from it. Idempotent.
    func stop() {
        lock.lock()
        let first = !state.stopped
        state.stopped = true
        let thread = state.thread
        if first, !state.closed {
            var byte: UInt8 = 1
            _ = write(wake.1, &byte, 1)   // under the lock: the thread cannot have closed it
        }
        lock.unlock()
        guard first else { return }
        guard let thread else { return }
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)   // it ends after this call returns; nobody joins it
            return
        }
        done.wait()
        pthread_join(thread, nil)
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
            state.closed = true   // a poll error ends the watch too: stop() joins, neither writes after

            close(inotify)
            close(wake.0)
            close(wake.1)
            lock.unlock()
            done.signal()
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var pending = false
        while !isStopped {
            var fds = [pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.0, events: Int16(POLLIN), revents: 0)]
            // Waiting for a change: no timeout; a change seen: wait out the settle time.
            let timeout: Int32 = pending ? Int32(Self.settle * 1000) : -1
            let n = poll(&fds, 2, timeout)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 {
                var sink = [UInt8](repeating: 0, count: 64)
                _ = read(wake.0, &sink, sink.count)
                continue   // stop, or new files: the loop condition decides
            }
            if n == 0 {
                pending = false
                changed()
                continue
            }
            if fds[0].revents != 0, drain(&buffer) { pending = true }
        }
    }

    /// Reads the queued inotify events; whether one names a watched file.
    private func drain(_ buffer: inout [UInt8]) -> Bool {
        var hit = false
        while true {
            let got = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard got > 0 else { return hit }
            lock.lock()
            let watches = state.watches, files = Set(state.files)
            lock.unlock()
            var offset = 0
            buffer.withUnsafeBytes { raw in
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= got {
                    let wd = raw.load(fromByteOffset: offset, as: Int32.self)
                    let length = Int(raw.load(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameStart = offset + header
                    guard nameStart + length <= got else { break }
                    let nameBytes = raw[nameStart..<(nameStart + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    if let folder = watches[wd], files.contains((folder as NSString).appendingPathComponent(name)) { hit = true }
                    offset = nameStart + length
                }
            }
        }
    }
}
