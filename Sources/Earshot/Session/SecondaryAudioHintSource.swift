import Synchronization

/// Something that knows whether another application is playing media: a feed of the audio
/// session's secondary-audio hint.
///
/// The session starts a source when it is activated (or when the source is added to an active
/// session) and stops it when deactivated. A source reports through the ``HintSink`` it was
/// started with, from any thread; its first report (or ``HintSink/reportUnavailable(_:)``) marks
/// it *ready*, which ``AudioSession/activate()`` waits for, briefly, so that the hint is right
/// the moment activation returns. A source must never block the caller of `start` or `stop` for
/// long and must do its work (I/O, IPC) on its own thread, never on the game's or the mixer's.
///
/// Earshot ships one for Linux, ``MPRISHintSource`` (media players on the session D-Bus; see
/// ``AudioSession/enableSystemHints(busAddress:)``). Another platform or a test supplies its own
/// (a small class with `start` and `stop`); a game can also set the hint by hand with
/// ``AudioSession/setSecondaryAudioHint(_:source:)``.
///
/// ```swift
/// import Synchronization
///
/// // A source fed by the game's own voice-chat layer: reports from any thread.
/// final class VoiceChatHint: SecondaryAudioHintSource {
///     let name = "voice-chat"
///     private let sink = Mutex<HintSink?>(nil)
///     func start(reportingTo sink: HintSink) { self.sink.withLock { $0 = sink } }
///     func stop() { sink.withLock { $0 = nil } }
///     func chatChanged(active: Bool) { sink.withLock { $0?.report(otherAudioPlaying: active) } }
/// }
/// engine.session.addHintSource(VoiceChatHint())
/// ```
public protocol SecondaryAudioHintSource: AnyObject, Sendable {
    /// A short name for logs and the CLI (`"mpris"`).
    var name: String { get }
    /// Starts watching; reports go to `sink` until ``stop()``.
    func start(reportingTo sink: HintSink)
    /// Stops watching and releases what `start` acquired (bounded: never hangs).
    func stop()
    /// Asks the other applications this source reports to stop playing (see the default
    /// implementation below; it does nothing).
    func silenceOthers()
}

extension SecondaryAudioHintSource {
    /// Asks the other applications this source watches to stop playing: called by
    /// ``AudioSession/activate()`` in a category that does not mix with others
    /// (``AudioSession/Category/mixesWithOthers``), as iOS interrupts other audio when such a
    /// session activates. Runs on the caller's thread and must not block: do the work on the
    /// source's own thread. This default does nothing.
    public func silenceOthers() {}
}

/// Where a ``SecondaryAudioHintSource`` reports. Thread-safe; reports after the session stopped
/// the source are ignored.
///
/// ```swift
/// func reportFromWatcherThread(_ sink: HintSink, playing: Bool?) {
///     if let playing { sink.report(otherAudioPlaying: playing) } else { sink.reportUnavailable("no bus") }
/// }
/// ```
public final class HintSink: Sendable {
    /// The key of the source's input in the session's hint.
    let key: String
    private let session: WeakSession
    private let state = Locked<State>(State())

    struct State {
        var live = true
        var ready = false
        var available = true
        var detail = ""
    }

    private struct WeakSession: Sendable {
        weak var value: AudioSession?
    }

    init(key: String, session: AudioSession) {
        self.key = key
        self.session = WeakSession(value: session)
    }

    /// Reports whether other audio is playing now. The first report marks the source ready
    /// and available.
    public func report(otherAudioPlaying: Bool) {
        let live = state.withLock { s -> Bool in
            guard s.live else { return false }
            s.ready = true
            s.available = true
            s.detail = ""
            return true
        }
        guard live else { return }
        session.value?.sourceReported(key: key, playing: otherAudioPlaying)
    }

    /// Reports that the source cannot watch (no bus, no daemon): its input counts as "nothing
    /// playing" and the engine runs on. It marks the source ready; a later ``report(otherAudioPlaying:)``
    /// makes it available again.
    public func reportUnavailable(_ reason: String) {
        let changed = state.withLock { s -> Bool in
            guard s.live else { return false }
            let changed = s.available || !s.ready || s.detail != reason
            s.ready = true
            s.available = false
            s.detail = reason
            return changed
        }
        guard changed else { return }
        session.value?.sourceBecameUnavailable(key: key, reason: reason)
    }

    var snapshot: State { state.withLock { $0 } }

    /// Stops accepting reports (the session stopped the source).
    func invalidate() { state.withLock { $0.live = false } }
}

/// How one hint source of a session is doing, for logs and status displays.
///
/// ```swift
/// for s in engine.session.hintSources where !s.isAvailable { print("\(s.name): \(s.detail)") }
/// ```
public struct HintSourceStatus: Sendable, Equatable {
    /// The source's ``SecondaryAudioHintSource/name``.
    public var name: String
    /// Whether the session is running it (it is active).
    public var isRunning: Bool
    /// Whether it has reported since it started.
    public var isReady: Bool
    /// Whether it can watch (false: no bus, for example; ``detail`` says why).
    public var isAvailable: Bool
    /// Why it is unavailable ("" when available).
    public var detail: String
    /// Whether it last reported other audio playing.
    public var reportsOtherAudio: Bool
}
