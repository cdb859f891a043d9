import CPulse
import Logging

/// The subscription's state: lives on libpulse's loop thread (``PulseDefaultSinkWatcher`` makes
/// it, connects it with the loop's lock held, and closes it after joining the loop thread).
final class PulseSubscription {
    /// What the watcher's callers may read (under a leaf lock): the sink the process is on, and
    /// the connections made so far.
    struct Seen: Sendable {
        var sink: String?
        var connections = 0
    }

    let api: UnsafeMutablePointer<pa_mainloop_api>
    let handler: PulseDefaultSinkWatcher.Handler
    let seen: Guarded<Seen>
    let logger: Logger
    var context: OpaquePointer?
    var retry: OpaquePointer?
    var backoff = 0.5
    /// The sink the process is on (nil until the first look after connecting).
    var current: String?
    /// A look (server info, then the sink list) is under way; `again`: look once more after it.
    var looking = false
    var again = false
    var defaultSink: String?
    var sinks: Set<String> = []

    init(api: UnsafeMutablePointer<pa_mainloop_api>, handler: @escaping PulseDefaultSinkWatcher.Handler,
         seen: Guarded<Seen>, logger: Logger) {
        self.api = api
        self.handler = handler
        self.seen = seen
        self.logger = logger
    }

    var me: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }
    static func from(_ user: UnsafeMutableRawPointer?) -> PulseSubscription? {
        user.map { Unmanaged<PulseSubscription>.fromOpaque($0).takeUnretainedValue() }
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
            guard let watch = PulseSubscription.from(user), let c, c == watch.context else { return }
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
            seen.withLock { $0.connections += 1 }
            guard let c = context else { return }
            pa_context_set_subscribe_callback(c, { _, event, _, user in
                guard let watch = PulseSubscription.from(user), earshot_pa_event_is_relevant(event) != 0 else { return }
                watch.look()
            }, me)
            if let op = earshot_pa_subscribe_server_and_sinks(c) { pa_operation_unref(op) }
            look()   // the first look: where the process plays now
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
            guard let watch = PulseSubscription.from(user) else { return }
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
            guard let watch = PulseSubscription.from(user) else { return }
            watch.defaultSink = info?.pointee.default_sink_name.map { String(cString: $0) }
            watch.listSinks()
        }, me) else { return }
        looking = true
        pa_operation_unref(op)
    }

    private func listSinks() {
        sinks = []
        guard let c = context, let op = pa_context_get_sink_info_list(c, { _, info, eol, user in
            guard let watch = PulseSubscription.from(user) else { return }
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

    /// The sink the process was on is gone → ``PulseDefaultSinkWatcher/Change/currentRemoved``
    /// (now on the default); the default changed → ``PulseDefaultSinkWatcher/Change/defaultChanged``.
    ///
    /// A default that is not among the sinks is not one yet: PipeWire's `pipewire-pulse` names
    /// `@DEFAULT_SINK@` while WirePlumber has not picked a new default (after the default sink
    /// went away); the server reports again when it has, and that look decides.
    private func compare(sinksKnown: Bool) {
        looking = false
        let now = sinksKnown ? defaultSink.flatMap { sinks.contains($0) ? $0 : nil } : defaultSink
        if let was = current {
            if sinksKnown, !sinks.contains(was) {
                if let next = now {
                    current = next
                    seen.withLock { $0.sink = next }
                    handler(.currentRemoved, next)
                }
            } else if let now, now != was {
                current = now
                seen.withLock { $0.sink = now }
                handler(.defaultChanged, now)
            }
        } else if let now {
            current = now
            seen.withLock { $0.sink = now }
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
