import CPulse
import Foundation
import Logging

/// Notices when the PulseAudio server's default sink changes, or the sink the process plays on
/// goes away, and says so. Knows nothing of Earshot: Earshot's `PulseDefaultOutputSource` adapts
/// it to the engine's `DefaultOutputSource` (the session's `routeChange` events).
///
/// OpenAL Soft 1.19.1 signals neither (no `ALC_SOFT_system_events`). The watcher subscribes to
/// the PulseAudio server's events in-process, through libpulse (which OpenAL Soft's own pulse
/// backend uses too; PipeWire serves the same protocol): libpulse's threaded main loop runs one
/// thread of its own, with every signal blocked, holding one client connection. On a server
/// change or a removed sink it reads the server's default sink (`pa_context_get_server_info`)
/// and the sink list (`pa_context_get_sink_info_list`) and compares them with the sink it
/// believes the process is on (see ``PulseSubscription``). No child process is started (a
/// `pactl subscribe` child could outlive a game that exits without `shutdown()`, or whose engine
/// was made on a thread with SIGTERM blocked), and libpulse is told never to spawn a server
/// (`PA_CONTEXT_NOAUTOSPAWN`).
///
/// Without a PulseAudio server the watcher reports nothing; it tries again after 0.5 s, doubling
/// up to 5 s, so a restarted sound server is watched again (Earshot's device-loss code reports
/// that route change itself). PulseAudio moves the stream itself (OpenAL's stream is movable when
/// the process follows the default: see Earshot's `OpenALEnvironment`); the watcher only reports.
///
/// ``stop()`` stops the loop thread (joining it: a few milliseconds), then disconnects and frees
/// everything; a process that exits without it loses the thread and the connection with it.
package final class PulseDefaultSinkWatcher: @unchecked Sendable {
    // @unchecked Sendable: `loop` is written in start() and read in stop(), both serialised by
    // `lifecycle`; `watch` is touched only on libpulse's loop thread, or with the loop's lock
    // held (start), or after the loop thread was joined (stop); the rest are locks and constants.

    /// What changed.
    package enum Change: Sendable, Equatable {
        /// The server's default sink changed (the process's stream follows it).
        case defaultChanged
        /// The sink the process was on went away (it is on the default now).
        case currentRemoved
    }

    /// What the watcher reports: what changed, and the sink now in use.
    package typealias Handler = @Sendable (Change, String) -> Void

    private let lifecycle = Guarded<Phase>(.idle)
    private enum Phase { case idle, running, stopped }
    private var loop: OpaquePointer?
    private var watch: PulseSubscription?
    private let logger: Logger
    private let state = Guarded<PulseSubscription.Seen>(PulseSubscription.Seen())

    /// - Parameter logger: where the watcher says that it cannot watch (at `.debug`).
    package init(logger: Logger) {
        self.logger = logger
    }

    /// The sink the process plays on, as far as the watcher knows (for tests and logs).
    package var currentSink: String? { state.withLock { $0.sink } }
    /// Connections made to the server so far (tests: the watcher is live).
    package var connections: Int { state.withLock { $0.connections } }

    /// Starts the loop thread; `handler` is called on it for every change. Does nothing after
    /// ``stop()``, or when libpulse cannot make a main loop.
    package func start(_ handler: @escaping Handler) {
        lifecycle.withLock { phase in
            guard phase == .idle else { return }
            phase = .stopped   // unless everything below works
            guard let loop = pa_threaded_mainloop_new() else {
                logger.debug("libpulse made no main loop: the default output is not watched")
                return
            }
            let watch = PulseSubscription(
                api: pa_threaded_mainloop_get_api(loop), handler: handler, seen: state, logger: logger)
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
    package func stop() {
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
                // Stopped from inside a report (an engine whose last reference went away there
                // shuts down on this thread): the loop cannot join itself, so another thread
                // does, as soon as the report returns.
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
        let watch: PulseSubscription?
        func run() {
            pa_threaded_mainloop_stop(loop)
            watch?.close()
            pa_threaded_mainloop_free(loop)
        }
    }

    deinit { stop() }
}
