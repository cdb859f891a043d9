import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices when the sound server's default output changes, or the output the engine plays on
/// goes away, and says so (for `routeChange` events).
///
/// OpenAL Soft 1.19.1 signals neither (no `ALC_SOFT_system_events`), and Earshot does not link
/// libpulse. The watcher runs `pactl subscribe` (PulseAudio's own client, also served by
/// PipeWire's PulseAudio server; Debian package `pulseaudio-utils`) as a child process and reads
/// its event lines on its own thread: on a server change or a removed sink it reads
/// `pactl info` (the default sink) and `pactl list short sinks` again and compares them with the
/// sink it believes the engine is on. Why a child process: no new library dependency, the
/// events are the server's own (no polling), and the child is a plain client that goes away
/// with its pipe. Without `pactl` or a PulseAudio server the watcher does nothing.
///
/// PulseAudio moves the stream itself (OpenAL's stream is movable when the process follows the
/// default: see `OpenALEnvironment`); the watcher only reports. The child is stopped by its PID
/// in ``stop()``.
final class DefaultOutputWatcher: @unchecked Sendable {
    // @unchecked Sendable: every stored property is itself thread-safe — the child behind `Locked`,
    // flags in `Atomic`, semaphores, a `Logger` (Sendable) — and none is reassigned after init.
    /// What the watcher reports: the reason and the sink now in use.
    typealias Handler = @Sendable (AudioSession.RouteChangeReason, String) -> Void

    private let child = Locked<Process?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Signalled by ``stop()`` to cut a retry wait short.
    private let wake = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let logger = EarshotLogging.logger("earshot.device")
    /// The sink the engine plays on, as far as the watcher knows (for tests and logs).
    let currentSink = Locked<String?>(nil)

    /// Starts the watcher thread; `handler` is called on it for every change.
    func start(_ handler: @escaping Handler) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            run(handler)
            finished.signal()
        }
        thread.name = "earshot.route"
        thread.start()
    }

    /// Stops the child process (by its PID) and waits at most 2 s for the thread to end.
    func stop() {
        guard started.load(ordering: .acquiring), !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        child.withLock { p in
            if let p, p.isRunning { kill(p.processIdentifier, SIGTERM) }
        }
        if finished.wait(timeout: .now() + 2) == .timedOut {
            logger.warning("the default-output watcher did not stop within 2 s")
        }
    }

    /// Watches until stopped: when the server goes away (`pactl subscribe` ends) it looks again
    /// after 0.5 s, doubling up to 5 s, so a restarted sound server is watched again (the
    /// device-loss code reports that route change itself).
    private func run(_ handler: Handler) {
        guard let pactl = Self.pactl() else {
            logger.debug("no pactl: the default output is not watched")
            return
        }
        var backoff = 0.5
        while !stopped.load(ordering: .acquiring) {
            if watchOnce(pactl, handler) { backoff = 0.5 }
            guard wake.wait(timeout: .now() + backoff) == .timedOut else { break }
            backoff = min(backoff * 2, 5)
        }
    }

    /// One subscription; returns whether it got as far as subscribing.
    private func watchOnce(_ pactl: URL, _ handler: Handler) -> Bool {
        guard var current = Self.defaultSink(pactl) else {
            logger.debug("no PulseAudio server answers: the default output is not watched for now")
            return false
        }
        currentSink.withLock { $0 = current }
        let process = Process()
        process.executableURL = pactl
        process.arguments = ["subscribe"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            logger.debug("pactl subscribe did not start: \(error)")
            return false
        }
        child.withLock { $0 = process }
        if stopped.load(ordering: .acquiring) { kill(process.processIdentifier, SIGTERM) }
        let reading = pipe.fileHandleForReading
        func check() {
            guard !stopped.load(ordering: .acquiring) else { return }
            let sinks = Self.sinkNames(pactl)
            let now = Self.defaultSink(pactl)
            if let sinks, !sinks.contains(current) {
                let next = now ?? current
                current = next
                currentSink.withLock { $0 = next }
                handler(.oldDeviceUnavailable, next)
            } else if let now, now != current {
                current = now
                currentSink.withLock { $0 = now }
                handler(.newDeviceAvailable, now)
            }
        }
        check()   // a change between the first look and the subscription is not missed
        var pending = Data()
        while true {
            let data = reading.availableData
            if data.isEmpty { break }
            pending.append(data)
            var relevant = false
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                if line.contains("on server") || (line.contains("'remove'") && line.contains("on sink")) { relevant = true }
            }
            if pending.count > 65_536 { pending.removeAll() }   // no line that long: drop it
            if relevant { check() }
        }
        process.waitUntilExit()
        child.withLock { $0 = nil }
        return true
    }

    // MARK: pactl

    private static func pactl() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/pactl"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }

    /// Runs `pactl arguments` (at most 2 s); its stdout, nil when it fails.
    private static func output(_ pactl: URL, _ arguments: [String]) -> String? {
        let p = Process()
        p.executableURL = pactl
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return nil }
        let reader = out.fileHandleForReading
        var data = Data()
        let deadline = Date().addingTimeInterval(2)
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
            if data.count > 1 << 20 || Date() > deadline { break }
        }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The server's default sink (`pactl info`, "Default Sink: NAME").
    static func defaultSink(_ pactl: URL) -> String? {
        guard let info = output(pactl, ["info"]) else { return nil }
        for line in info.split(separator: "\n") where line.hasPrefix("Default Sink: ") {
            return String(line.dropFirst("Default Sink: ".count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The names of the server's sinks (`pactl list short sinks`, second column).
    static func sinkNames(_ pactl: URL) -> Set<String>? {
        guard let list = output(pactl, ["list", "short", "sinks"]) else { return nil }
        return Set(list.split(separator: "\n").compactMap { line in
            let columns = line.split(separator: "\t")
            return columns.count > 1 ? String(columns[1]) : nil
        })
    }
}
