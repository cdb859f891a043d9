import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A line-oriented server on a listening Unix socket, run on a thread of its own: it accepts
/// connections of one user only (checked by `SO_PEERCRED`), greets each, reads the lines they
/// send (each answered by the owner's `answer`), and broadcasts what the owner's `next` hands it,
/// without ever blocking the owner: every socket is non-blocking and the owner talks to it
/// through closures called on the server's thread, and `wake()`, one byte into a pipe.
///
/// It knows nothing of Earshot: the engine's monitor (Sources/Earshot/Monitor/MonitorSubsystem.swift)
/// adapts it. Everything it holds is bounded (``Limits``): a client that sends a line longer than
/// ``Limits/maxLineBytes`` is sent the owner's `overlong` words and closed, as is one whose
/// `answer` says so; at most ``Limits/maxQueuedBytes`` ever wait for one client — replies
/// included: while more than half of that waits, its requests are left unread (in its socket,
/// where the kernel bounds them) and broadcasts skip it — and one that has read nothing for
/// ``Limits/stuckTimeout`` is closed; connections beyond ``Limits/maxClients`` and of other
/// users are closed at once. When `accept` fails for want of descriptors (`EMFILE`, `ENFILE`),
/// the listener is left alone for ``Limits/acceptBackoff`` instead of being polled again at once.
package final class LineServer: @unchecked Sendable {
    // @unchecked Sendable: the client table and the socket are only touched by the server's own
    // thread (`loop`); the owner's side uses the atomics, the `Guarded` thread handle and the
    // wake pipe (written with `write(2)`, safe from any thread).

    package struct Limits: Sendable {
        /// Connections served at once; later ones are closed at once.
        package var maxClients = 8
        /// The longest line a client may send (its newline included).
        package var maxLineBytes = 4_096
        /// Bytes that may wait for one client; broadcasts are skipped for it meanwhile.
        package var maxQueuedBytes = 4 << 20
        /// A client with bytes waiting that has read none for this long is closed, seconds.
        package var stuckTimeout = 5.0
        /// The longest the server sleeps between turns, seconds.
        package var tick = 0.25
        /// Seconds the listener is not polled after `accept` failed for want of descriptors
        /// (the waiting connection stays in the backlog until one is free).
        package var acceptBackoff = 0.1
        package init() {}
    }

    /// What to do with a line a client sent.
    package enum Answer: Sendable {
        /// Nothing to send back.
        case none
        /// Send these bytes to that client.
        case reply([UInt8])
        /// Stop (true) or resume (false) sending broadcasts to that client, with an optional reply.
        case mute(Bool, reply: [UInt8]?)
        /// Send these bytes (if any) and close the connection.
        case close([UInt8]?)
    }

    /// What the server did, since it started (for tests and the monitor's own report).
    package struct Counters: Sendable, Equatable {
        package var accepted = 0
        package var refusedOtherUser = 0
        package var refusedFull = 0
        package var closedForInput = 0
        package var closedStuck = 0
        package var skippedBroadcasts = 0
        package var broadcasts = 0
        package var bytesSent = 0
        /// The most bytes that ever waited for one client.
        package var peakQueuedBytes = 0
        /// `accept` failures other than "none waiting" (`EMFILE`, `ENFILE`, …).
        package var acceptFailures = 0
    }

    private final class Client {
        let socket: UnixSocket
        var input: [UInt8] = []
        var output: [UInt8] = []
        var outputStart = 0
        var muted = false
        var lastProgress: Double
        var closeWhenSent = false
        init(socket: UnixSocket, now: Double) {
            self.socket = socket
            self.lastProgress = now
        }
        var queued: Int { output.count - outputStart }
        /// More than half of the cap waits: no request is answered (nor read) until it drains,
        /// so replies — each far smaller than the other half — never take it past the cap.
        func isFull(_ limits: Limits) -> Bool { queued > limits.maxQueuedBytes / 2 }
    }

    package let limits: Limits
    private let listener: UnixSocket
    private let path: String
    private let allowedUID: UInt32
    private let greeting: @Sendable () -> [UInt8]
    private let answer: @Sendable (ArraySlice<UInt8>) -> Answer
    private let next: @Sendable () -> [UInt8]?
    private let overlong: @Sendable () -> [UInt8]?
    private let wakePipe: WakePipe
    private let stopping = Atomic<Bool>(false)
    private let clientTotal = Atomic<Int>(0)
    private let counterValues = Guarded(Counters())
    private let threadStarted = Guarded(false)
    private let done = DispatchSemaphore(value: 0)
    private var clients: [Client] = []
    /// The monotonic time before which the listener is not polled (after `EMFILE`).
    private var acceptPausedUntil = -Double.infinity

    /// Serves `listener` (bound at `path`, which ``stop()`` removes) to connections of `allowedUID`.
    /// `overlong` gives the words sent to a client before it is closed for a line longer than
    /// ``Limits/maxLineBytes`` (nil: none).
    package init(listener: UnixSocket, path: String, allowedUID: UInt32, limits: Limits = Limits(),
                 greeting: @escaping @Sendable () -> [UInt8],
                 answer: @escaping @Sendable (ArraySlice<UInt8>) -> Answer,
                 overlong: @escaping @Sendable () -> [UInt8]? = { nil },
                 next: @escaping @Sendable () -> [UInt8]?) throws(UnixSocketError) {
        wakePipe = try WakePipe()
        self.overlong = overlong
        self.listener = listener
        self.path = path
        self.allowedUID = allowedUID
        self.limits = limits
        self.greeting = greeting
        self.answer = answer
        self.next = next
    }

    /// Connections served now (read by the owner on every frame: one atomic load).
    package var clientCount: Int { clientTotal.load(ordering: .relaxed) }

    package var counters: Counters { counterValues.withLock { $0 } }

    /// Starts the thread (`name`); a second call does nothing.
    package func start(name: String) {
        let first = threadStarted.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let th = Thread { [self] in
            // Named on the thread itself, through /proc too (what `top -H`, debuggers and the
            // tests read): Foundation's `Thread.current.name` alone did not always reach the
            // kernel (seen for a monitor started after another monitor's thread had ended).
            Thread.current.name = name
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                _ = name.withCString { write(fd, $0, strlen($0)) }
                close(fd)
            }
            loop()
            done.signal()
        }
        th.name = name
        th.stackSize = 1 << 20
        th.start()
    }

    /// Asks the thread for a turn now (something to broadcast). Never blocks.
    package func wake() { wakePipe.wake() }

    /// Ends the thread, waits for it, closes every connection and removes the socket file.
    /// Idempotent; a server never started only closes.
    /// `lastWords` are sent to every client first, as far as each can take them without waiting.
    package func stop(lastWords: [UInt8] = []) {
        let started = threadStarted.withLock { $0 }
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if started {
            wake()
            done.wait()
        }
        for c in clients where c.socket.fd >= 0 && !lastWords.isEmpty {
            c.output += lastWords
            flush(c, now: 0)
        }
        for c in clients { c.socket.close() }
        clients.removeAll()
        clientTotal.store(0, ordering: .relaxed)
        listener.close()
        unlink(path)
    }

    // MARK: The server's thread

    private func count(_ body: (inout Counters) -> Void) { counterValues.withLock(body) }

    private func loop() {
        var fds: [pollfd] = []
        var scratch = [UInt8](repeating: 0, count: 65_536)
        while !stopping.load(ordering: .acquiring) {
            fds.removeAll(keepingCapacity: true)
            let before = monotonicNow()
            let listening = before >= acceptPausedUntil
            fds.append(pollfd(fd: wakePipe.readEnd, events: Int16(POLLIN), revents: 0))
            // fd -1: poll ignores the entry (the listener, while accepting is paused).
            fds.append(pollfd(fd: listening ? listener.fd : -1, events: Int16(POLLIN), revents: 0))
            for c in clients {
                // A client with too much waiting for it is not read: its requests stay in its socket.
                let reading = !c.closeWhenSent && !c.isFull(limits)
                fds.append(
                    pollfd(
                        fd: c.socket.fd, events: (reading ? Int16(POLLIN) : 0) | (c.queued > 0 ? Int16(POLLOUT) : 0),
                        revents: 0))
            }
            let sleep = listening ? limits.tick : min(limits.tick, max(0.001, acceptPausedUntil - before))
            let r = poll(&fds, nfds_t(fds.count), Int32((sleep * 1000).rounded(.up)))
            if stopping.load(ordering: .acquiring) { break }
            guard r >= 0 || errno == EINTR else { break }
            if fds[0].revents != 0 { wakePipe.drain() }
            let now = monotonicNow()
            // Clients first (their indices match fds[2...] only before accepting).
            for (i, c) in clients.enumerated() where fds[i + 2].revents != 0 {
                let events = fds[i + 2].revents
                if events & Int16(POLLHUP | POLLERR) != 0 && events & Int16(POLLIN) == 0 {
                    c.socket.close()   // gone (a peer that is not read would otherwise wake every poll)
                } else if events & Int16(POLLIN) != 0 {
                    read(c, &scratch)
                }
            }
            if fds[1].revents & Int16(POLLIN) != 0 { acceptWaiting(now: now) }
            if let bytes = next() { broadcast(bytes) }
            for c in clients {
                flush(c, now: now)
                answerWaitingLines(c)   // lines left while it was full, now that it has room
            }
            clients.removeAll { c in
                let stuck = c.queued > 0 && now - c.lastProgress > limits.stuckTimeout
                if stuck { count { $0.closedStuck += 1 } }
                let finished = c.socket.fd < 0 || stuck || (c.closeWhenSent && c.queued == 0)
                if finished { c.socket.close() }
                return finished
            }
            clientTotal.store(clients.count, ordering: .relaxed)
        }
    }

    private func acceptWaiting(now: Double) {
        for _ in 0..<64 {   // a flood is taken a bounded batch per turn
            let accepted: UnixSocket?
            do {
                accepted = try listener.accept()
            } catch {
                // Out of descriptors (EMFILE, ENFILE) or memory: the connection stays waiting and
                // the listener stays readable; polling it again at once would spin a core.
                count { $0.acceptFailures += 1 }
                acceptPausedUntil = now + limits.acceptBackoff
                return
            }
            guard let socket = accepted else { return }
            guard let peer = try? socket.peerCredentials(), peer.uid == allowedUID else {
                count { $0.refusedOtherUser += 1 }
                socket.close()
                continue
            }
            guard clients.count < limits.maxClients else {
                count { $0.refusedFull += 1 }
                socket.close()
                continue
            }
            let c = Client(socket: socket, now: now)
            c.output = greeting()
            notePeak(c)
            clients.append(c)
            count { $0.accepted += 1 }
        }
    }

    private func read(_ c: Client, _ scratch: inout [UInt8]) {
        guard c.socket.fd >= 0 else { return }
        let received: Int? = scratch.withUnsafeMutableBytes { raw in
            do { return try c.socket.receive(into: raw) } catch { return nil }
        }
        guard let n = received else {   // closed by the peer, or broken
            c.socket.close()
            return
        }
        guard n > 0, !c.closeWhenSent else { return }
        c.input.append(contentsOf: scratch[0..<n])
        answerWaitingLines(c)
    }

    /// Answers the client's complete lines while it has room for replies (the rest wait in
    /// `input`, and no more is read meanwhile); closes it, with the owner's words, for a line
    /// too long to be one.
    private func answerWaitingLines(_ c: Client) {
        guard c.socket.fd >= 0, !c.closeWhenSent else { return }
        while !c.isFull(limits), let newline = c.input.firstIndex(of: 0x0A) {
            guard newline < limits.maxLineBytes else { break }
            let line = c.input[0..<newline]
            let reply = answer(line)
            c.input.removeSubrange(0...newline)
            switch reply {
            case .none: break
            case .reply(let bytes): c.output += bytes
            case .mute(let muted, let bytes):
                c.muted = muted
                if let bytes { c.output += bytes }
            case .close(let bytes):
                if let bytes { c.output += bytes }
                c.closeWhenSent = true
                c.input.removeAll()
                count { $0.closedForInput += 1 }
            }
            notePeak(c)
            if c.closeWhenSent { return }
        }
        // A line too long to be one (complete or not): nothing more is read.
        let firstLine = c.input.firstIndex(of: 0x0A) ?? c.input.count
        if firstLine >= limits.maxLineBytes {
            if let words = overlong() { c.output += words }
            c.closeWhenSent = true
            c.input.removeAll()
            count { $0.closedForInput += 1 }
            notePeak(c)
        }
    }

    private func notePeak(_ c: Client) {
        let q = c.queued
        if q > counterValues.withLock({ $0.peakQueuedBytes }) {
            count { $0.peakQueuedBytes = max($0.peakQueuedBytes, q) }
        }
    }

    private func broadcast(_ bytes: [UInt8]) {
        count { $0.broadcasts += 1 }
        for c in clients where !c.muted && !c.closeWhenSent && c.socket.fd >= 0 {
            guard c.queued + bytes.count <= limits.maxQueuedBytes else {
                count { $0.skippedBroadcasts += 1 }
                continue
            }
            if c.outputStart > 0 && c.outputStart == c.output.count {
                c.output.removeAll(keepingCapacity: true)
                c.outputStart = 0
            }
            c.output += bytes
            notePeak(c)
        }
    }

    private func flush(_ c: Client, now: Double) {
        guard c.socket.fd >= 0, c.queued > 0 else {
            c.lastProgress = now
            return
        }
        let sent: Int? = c.output.withUnsafeBytes { raw in
            try? c.socket.send(UnsafeRawBufferPointer(rebasing: raw[c.outputStart...]))
        }
        guard let sent else {
            c.socket.close()
            return
        }
        if sent > 0 {
            c.outputStart += sent
            c.lastProgress = now
            count { $0.bytesSent += sent }
        }
        if c.outputStart == c.output.count {
            c.output.removeAll(keepingCapacity: c.output.capacity <= 1 << 20)
            c.outputStart = 0
        } else if c.outputStart > 1 << 20 {
            c.output.removeSubrange(0..<c.outputStart)
            c.outputStart = 0
        }
    }

    private func monotonicNow() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
