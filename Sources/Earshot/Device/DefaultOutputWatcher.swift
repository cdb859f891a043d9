import CPulse
import Foundation
import Logging
import Synchronization

/// Notices when the sound server's default output changes, or the output the engine plays on
/// goes away, and says so (for `routeChange` events).
///
/// OpenAL Soft 1.19.1 signals neither (no `ALC_SOFT_system_events`). The watcher subscribes to
/// the PulseAudio server's events in-process, through libpulse (which OpenAL Soft's own pulse
/// backend uses too; PipeWire serves the same protocol): libpulse's threaded main loop runs one
/// thread of its own, with every signal blocked, holding one client connection. On a server
/// change or a removed sink it reads the server's default sink (`pa_context_get_server_info`)
/// and the sink list (`pa_context_get_sink_info_list`) and compares them with the sink it
/// believes the engine is on. No child process is started — issue 23: a `pactl subscribe` child
/// used to outlive a game that exited without `shutdown()`, or whose engine was made on a thread
/// with SIGTERM blocked — and libpulse is told never to spawn a server (`PA_CONTEXT_NOAUTOSPAWN`).
///
/// Without a PulseAudio server the watcher reports nothing; it tries again after 0.5 s, doubling
/// up to 5 s, so a restarted sound server is watched again (the device-loss code reports that
/// route change itself). PulseAudio moves the stream itself (OpenAL's stream is movable when the
/// process follows the default: see `OpenALEnvironment`); the watcher only reports.
///
/// ``stop()`` stops the loop thread (joining it: a few milliseconds), then disconnects and frees
/// everything; a process that exits without it loses the thread and the connection with it.
final class DefaultOutputWatcher: @unchecked Sendable {
    // @unchecked Sendable: `loop` is written in start() and read in stop(), both serialised by
    // `lifecycle`; `watch` is touched only on libpulse's loop thread, or with the loop's lock
    // held (start), or after the loop thread was joined (stop); the rest are locks and atomics.
    /// What the watcher reports: the reason and the sink now in use.
    typealias Handler = @Sendable (AudioSession.RouteChangeReason, String) -> Void

    private let lifecycle = Locked<Phase>(.idle)
    private enum Phase { case idle, running, stopped }
    private var loop: OpaquePointer?
    private var watch: Watch?
    private let logger = EarshotLogging.logger("earshot.device")
    /// The sink the engine plays on, as far as the watcher knows (for tests and logs).
    let currentSink = Locked<String?>(nil)
    /// Connections made to the server so far (tests: the watcher is live).
    let connections = Locked<Int>(0)

    /// Starts the loop thread; `handler` is called on it for every change. Does nothing after
    /// ``stop()``, or when libpulse cannot make a main loop.
    func start(_ handler: @escaping Handler) {
        lifecycle.withLock { phase in
            guard phase == .idle else { return }
            phase = .stopped   // unless everything below works
            guard let loop = pa_threaded_mainloop_new() else {
                logger.debug("libpulse made no main loop: the default output is not watched")
                return
            }
            let watch = Watch(api: pa_threaded_mainloop_get_api(loop), handler: handler,
                              currentSink: currentSink, connections: connections, logger: logger)
            guard pa_threaded_mainloop_start(loop) >= 0 else {
                pa_threaded_mainloop_free(loop)
                logger.debug("libpulse's main loop did not start: the default output is not watched")
                return
            }
            self.loop = loop
            self.watch = watch
            phase = .running
            pa_threaded_mainloop_lock(loop)
            watch.connect()
            pa_threaded_mainloop_unlock(loop)
        }
    }

    /// Stops the loop thread and waits for it (libpulse joins it), then disconnects from the
    /// server and frees the loop. Idempotent.
    func stop() {
        lifecycle.withLock { phase in
            guard phase == .running, let loop else {
                phase = .stopped
                return
            }
            phase = .stopped
            let teardown = Teardown(loop: loop, watch: watch)
            self.loop = nil
            watch = nil
            if pa_threaded_mainloop_in_thread(loop) != 0 {
                // The engine's last reference went away inside a report (its deinit shuts it
                // down on this thread): the loop cannot join itself, so another thread does, as
                // soon as the report returns.
                Thread { teardown.run() }.start()
            } else {
                teardown.run()
            }
        }
    }

    /// Stopping the loop (joining its thread: no callback runs after that), then closing the
    /// connection and freeing the loop.
    private struct Teardown: @unchecked Sendable {
        // @unchecked Sendable: no lock, by ownership — stop() takes `loop` and `watch` out of the
        // watcher under its `lifecycle` lock (leaving nil there), so this value holds the only
        // references, and the one thread it is handed to is the only one that uses them; libpulse's
        // loop lock is not needed because pa_threaded_mainloop_stop joins the loop thread first.
        let loop: OpaquePointer
        let watch: Watch?
        func run() {
            pa_threaded_mainloop_stop(loop)
            watch?.close()
            pa_threaded_mainloop_free(loop)
        }
    }

    deinit { stop() }
}

/// The subscription's state: lives on libpulse's loop thread (see ``DefaultOutputWatcher``).
private final class Watch {
    let api: UnsafeMutablePointer<pa_mainloop_api>
    let handler: DefaultOutputWatcher.Handler
    let currentSink: Locked<String?>
    let connections: Locked<Int>
    let logger: Logger
    var context: OpaquePointer?
    var retry: OpaquePointer?
    var backoff = 0.5
    /// The sink the engine is on (nil until the first look after connecting).
    var current: String?
    /// A look (server info, then the sink list) is under way; `again`: look once more after it.
    var looking = false
    var again = false
    var defaultSink: String?
    var sinks: Set<String> = []

    init(api: UnsafeMutablePointer<pa_mainloop_api>, handler: @escaping DefaultOutputWatcher.Handler,
         currentSink: Locked<String?>, connections: Locked<Int>, logger: Logger) {
        self.api = api
        self.handler = handler
        self.currentSink = currentSink
        self.connections = connections
        self.logger = logger
    }

    var me: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ user: UnsafeMutableRawPointer?) -> Watch? {
        user.map { Unmanaged<Watch>.fromOpaque($0).takeUnretainedValue() }
    }

    /// A new connection (the last one dropped).
    func connect() {
        dropContext()
        guard let c = pa_context_new(api, "Earshot default-output watcher") else {
            retryLater()
            return
        }
        context = c
        current = nil
        looking = false
        again = false
        pa_context_set_state_callback(c, { c, user in
            guard let watch = Watch.from(user), let c, c == watch.context else { return }
            watch.stateChanged(pa_context_get_state(c))
        }, me)
        if earshot_pa_connect(c) < 0 {
            logger.debug("no PulseAudio server answers: the default output is not watched for now")
            retryLater()
        }
    }

    func stateChanged(_ state: pa_context_state_t) {
        switch state {
        case PA_CONTEXT_READY:
            backoff = 0.5
            connections.withLock { $0 += 1 }
            guard let c = context else { return }
            pa_context_set_subscribe_callback(c, { _, event, _, user in
                guard let watch = Watch.from(user), earshot_pa_event_is_relevant(event) != 0 else { return }
                watch.look()
            }, me)
            if let op = earshot_pa_subscribe_server_and_sinks(c) { pa_operation_unref(op) }
            look()   // the first look: where the engine is now
        case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED:
            logger.debug("the PulseAudio connection ended: the default output is not watched for now")
            retryLater()
        default:
            break
        }
    }

    /// Connects again after the backoff (0.5 s doubling to 5 s).
    func retryLater() {
        guard retry == nil else { return }
        let delay = backoff
        backoff = min(backoff * 2, 5)
        retry = earshot_pa_after(api, pa_usec_t(delay * 1e6), { api, event, _, user in
            guard let watch = Watch.from(user) else { return }
            if let event, let api { earshot_pa_time_free(api, event) }
            watch.retry = nil
            watch.connect()
        }, me)
    }

    /// Reads the default sink and the sink list, then compares (one look at a time).
    func look() {
        guard let c = context else { return }
        guard !looking else {
            again = true
            return
        }
        guard let op = pa_context_get_server_info(c, { _, info, user in
            guard let watch = Watch.from(user) else { return }
            watch.defaultSink = info?.pointee.default_sink_name.map { String(cString: $0) }
            watch.listSinks()
        }, me) else { return }
        looking = true
        pa_operation_unref(op)
    }

    private func listSinks() {
        sinks = []
        guard let c = context, let op = pa_context_get_sink_info_list(c, { _, info, eol, user in
            guard let watch = Watch.from(user) else { return }
            if eol == 0, let name = info?.pointee.name {
                watch.sinks.insert(String(cString: name))
            } else if eol != 0 {
                watch.compare(sinksKnown: eol > 0)
            }
        }, me) else {
            compare(sinksKnown: false)
            return
        }
        pa_operation_unref(op)
    }

    /// The same rule as ever: the sink the engine was on is gone → `oldDeviceUnavailable` (now on
    /// the default); the default changed → `newDeviceAvailable`.
    private func compare(sinksKnown: Bool) {
        looking = false
        let now = defaultSink
        if let was = current {
            if sinksKnown, !sinks.contains(was) {
                let next = now ?? was
                current = next
                currentSink.withLock { $0 = next }
                handler(.oldDeviceUnavailable, next)
            } else if let now, now != was {
                current = now
                currentSink.withLock { $0 = now }
                handler(.newDeviceAvailable, now)
            }
        } else if let now {
            current = now
            currentSink.withLock { $0 = now }
        }
        if again {
            again = false
            look()
        }
    }

    private func dropContext() {
        guard let c = context else { return }
        context = nil
        pa_context_set_state_callback(c, nil, nil)
        pa_context_set_subscribe_callback(c, nil, nil)
        pa_context_disconnect(c)
        pa_context_unref(c)
    }

    /// After the loop thread is joined: the connection and the retry timer go.
    func close() {
        if let retry {
            earshot_pa_time_free(api, retry)
            self.retry = nil
        }
        dropContext()
    }
}
