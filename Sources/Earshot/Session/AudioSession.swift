import Foundation
import Logging
import Synchronization

/// The engine's policy towards everything else on the machine: the secondary-audio hint and
/// music ducking, interruptions, route changes and media-services resets, as one event stream.
///
/// Every engine owns one (``AudioEngine/session``). It does nothing until ``activate()``.
///
/// ## The secondary-audio hint
/// ``secondaryAudioShouldBeSilencedHint`` is on while another application plays media. It is
/// fed by *sources*: the game (or a scene) sets it by hand with
/// ``setSecondaryAudioHint(_:source:)``, and hint sources (``SecondaryAudioHintSource``) watch
/// the system — ``enableSystemHints(busAddress:)`` adds the system's own (on Linux,
/// ``MPRISHintSource``: media players on the session D-Bus). The hint is on
/// while any input is. Activation waits (at most ``initialScanTimeout``) for each source's first
/// report, so the value is right as soon as ``activate()`` returns, even with a player already
/// playing; if it is on, activation posts `.secondaryAudioHint(.begin)` too.
///
/// ## Categories
/// The ``category`` decides whether activation silences other players, and whether the hint
/// ducks the music: the table is in ``Category`` and in the <doc:AudioSessionPolicy> article.
///
/// ## Ducking
/// While the hint is on and the ``category`` lets the music yield (``Category/ambient``,
/// ``Category/soloAmbient``), the ``Bus/music`` bus ramps to ``duckLevel`` (default −∞ dB:
/// silent, as the hint asks) over ``attack`` (0.1 s); when it ends the bus returns over
/// ``release`` (0.5 s). Only the music bus's duck factor moves: effects, UI and dialogue are
/// untouched, and so are the bus's own gain and mute. Music started while the hint is on starts
/// ducked (activation lands on the ducked level at once rather than ramping, so a track started
/// right after ``activate()`` is never heard at full level).
///
/// The ramp is advanced by ``AudioEngine/update(deltaTime:)`` on the engine clock (samples
/// rendered on a loopback engine, the monotonic clock live): once per game frame, each step
/// smoothed by OpenAL's own gain interpolation. ``AudioEngine/render(into:)`` does not move it,
/// however the engine cuts the render into chunks: render with ``FrameLoop`` (which calls
/// `update` every frame) or call `update` between renders.
///
/// ## Interruptions
/// ``beginInterruption()`` pauses every voice on every bus and every playing music track,
/// keeping their positions: real voices fade out over the engine's `fadeTime` and give up their
/// sources; **virtual voices freeze** (their playheads stand still, as for a paused bus) so that
/// nothing has silently run on when the interruption ends. A voice played or a track started
/// during the interruption waits, paused, for its end. ``endInterruption(shouldResume:)`` posts
/// `.ended` and resumes when the ``interruptionPolicy`` says so; ``resume()`` lifts an
/// interruption at any time, so a *began* with no *ended* never wedges the engine. The game's
/// own pauses (``AudioEngine/setPaused(_:for:)``, ``MusicTrack/pause()``) are kept apart and
/// outlast the interruption.
///
/// ## Events
/// ``events`` delivers, in order: hint edges, interruption edges, route changes and
/// media-services resets. Every read of ``events`` returns a new stream that sees every event
/// (several consumers each get them all); a consumer that falls behind keeps its newest 256
/// events, older ones drop for it alone. The engine's ``AudioEngine/shutdown()`` finishes every
/// stream, and one read afterwards is finished at once.
///
/// ```swift
/// let session = engine.session
/// session.category = .soloAmbient
/// session.enableSystemHints()          // on Linux: MPRIS players on the session bus
/// session.activate()
/// if session.secondaryAudioShouldBeSilencedHint { print("the user's own music is playing") }
/// Task { for await event in session.events { print("session:", event) } }
/// ```
public final class AudioSession: @unchecked Sendable {
    // @unchecked Sendable: `engine` is a weak var written once, in init, before the session is
    // shared (weak loads are atomic); every other stored property is a lock, a constant or Sendable.
    private weak var engine: AudioEngine?
    private let state = Locked<State>(State())
    /// Serialises activation and interruption changes applied to the engine (taken before the
    /// music lock and the AL lock, never while holding them).
    private let control = Locked<Void>(())
    private let logger = EarshotLogging.logger("earshot.session")
    private let broadcast = EventBroadcast<Event>(capacity: 256)

    /// Session events as they happen: a new stream on every read, each seeing every event (see
    /// the type's discussion). The engine's ``AudioEngine/shutdown()`` finishes them all.
    public var events: AsyncStream<Event> { broadcast.stream() }

    struct SourceEntry {
        let source: any SecondaryAudioHintSource
        let key: String
        var sink: HintSink?
    }

    struct State {
        var category: Category = .soloAmbient
        var hint = HintStateMachine()
        var duckLevel: Double = -.infinity
        var attack = 0.1
        var release = 0.5
        var ramp = DuckRamp()
        /// The duck factor last written to the music bus.
        var appliedDuck: Float = 1
        var interrupted = false
        var policy: InterruptionPolicy = .resumeIfAllowed
        var sources: [SourceEntry] = []
        var nextSourceKey = 0
        var initialScanTimeout = 0.5
        var pausesWhenOutputGoesAway = false

        var duckTarget: Float {
            hint.isActive && category.musicYieldsToHint && hint.value ? DuckRamp.gain(decibels: duckLevel) : 1
        }
    }

    init(engine: AudioEngine) {
        self.engine = engine
    }

    deinit {
        let entries = state.withLock { $0.sources }
        for e in entries where e.sink != nil {
            e.sink?.invalidate()
            e.source.stop()
        }
        broadcast.finish()
    }

    /// Ends every ``events`` stream (the engine's shutdown); later events are dropped.
    func finishEvents() { broadcast.finish() }

    // MARK: Category and ducking

    /// What the game's audio is for (default ``Category/soloAmbient``). Changing it while the
    /// hint is on ramps the music to its new level (attack or release).
    public var category: Category {
        get { state.withLock { $0.category } }
        set { state.withLock { $0.category = newValue } }
    }

    /// The music bus's level while ducked, in dB (≤ 0; default −∞: silent). NaN and positive
    /// values are ignored.
    public var duckLevel: Double {
        get { state.withLock { $0.duckLevel } }
        set {
            guard !newValue.isNaN, newValue <= 0 else { return }
            state.withLock { $0.duckLevel = newValue }
        }
    }

    /// How long the music takes to duck, in seconds (default 0.1; 0…10, other values ignored).
    public var attack: Double {
        get { state.withLock { $0.attack } }
        set {
            guard newValue.isFinite, (0...10).contains(newValue) else { return }
            state.withLock { $0.attack = newValue }
        }
    }

    /// How long the music takes to come back, in seconds (default 0.5; 0…10, other values ignored).
    public var release: Double {
        get { state.withLock { $0.release } }
        set {
            guard newValue.isFinite, (0...10).contains(newValue) else { return }
            state.withLock { $0.release = newValue }
        }
    }

    /// The duck factor on the music bus now (1: not ducked, 0: silent), as last applied by
    /// ``AudioEngine/update(deltaTime:)``.
    public var musicDuckGain: Float {
        state.withLock { $0.appliedDuck }
    }

    // MARK: Activation

    /// Whether ``activate()`` is in force.
    public var isActive: Bool { state.withLock { $0.hint.isActive } }

    /// How long ``activate()`` waits for its hint sources' first reports (seconds, default 0.5;
    /// 0…5, other values ignored). A source that has not reported by then counts as "nothing
    /// playing" until it does.
    public var initialScanTimeout: Double {
        get { state.withLock { $0.initialScanTimeout } }
        set {
            guard newValue.isFinite, (0...5).contains(newValue) else { return }
            state.withLock { $0.initialScanTimeout = newValue }
        }
    }

    /// Starts the session: starts the hint sources, waits briefly for their first reports, in a
    /// category that does not mix with others (``Category/mixesWithOthers``) asks the sources to
    /// silence the other players and waits as briefly for them to stop, applies the hint at once
    /// (music ducked if it is on, without a ramp) and posts `.secondaryAudioHint(.begin)` if it
    /// is on. Does nothing when already active.
    public func activate() {
        control.withLock { _ in
            let started = state.withLock { s -> [(any SecondaryAudioHintSource, HintSink)]? in
                guard !s.hint.isActive else { return nil }
                var started: [(any SecondaryAudioHintSource, HintSink)] = []
                for i in s.sources.indices {
                    let sink = HintSink(key: s.sources[i].key, session: self)
                    s.sources[i].sink = sink
                    started.append((s.sources[i].source, sink))
                }
                return started
            }
            guard let started else { return }
            for (source, sink) in started { source.start(reportingTo: sink) }
            let timeout = state.withLock { $0.initialScanTimeout }
            let deadline = Clocks.monotonic() + timeout
            while started.contains(where: { !$0.1.snapshot.ready }), Clocks.monotonic() < deadline {
                usleep(2_000)
            }
            for (source, sink) in started where !sink.snapshot.ready {
                logger.warning(
                    "hint source \(source.name) did not report within \(timeout) s; counted as nothing playing")
            }
            // A category that does not mix silences the others (iOS interrupts them), then waits as
            // long again for the sources to see them stop, so the music does not start ducked.
            if !state.withLock({ $0.category.mixesWithOthers }) {
                let keys = Set(started.map { $0.1.key })
                var asked = false
                for (source, sink) in started
                where sink.snapshot.ready && (state.withLock { $0.hint.inputs[sink.key] } ?? false) {
                    source.silenceOthers()
                    asked = true
                }
                let quietBy = Clocks.monotonic() + timeout
                while asked, state.withLock({ s in keys.contains { s.hint.inputs[$0] == true } }),
                    Clocks.monotonic() < quietBy
                {
                    usleep(2_000)
                }
            }
            let duck = state.withLock { s -> Float in
                if let edge = s.hint.activate() { broadcast.send(.secondaryAudioHint(edge)) }
                s.ramp.jump(to: s.duckTarget)
                s.appliedDuck = s.ramp.target
                return s.ramp.target
            }
            if let engine { writeMusicDuck(duck, on: engine, now: true) }   // playing tracks take the level now
        }
    }

    /// Stops the session: stops the hint sources (their inputs are dropped; manual inputs stay),
    /// and the music returns over ``release``. No hint events are posted while inactive; an
    /// interruption in force stays until it ends or ``resume()``.
    public func deactivate() {
        control.withLock { _ in
            let stopping = state.withLock { s -> [(any SecondaryAudioHintSource, HintSink)] in
                guard s.hint.isActive else { return [] }
                s.hint.deactivate()
                var stopping: [(any SecondaryAudioHintSource, HintSink)] = []
                for i in s.sources.indices {
                    if let sink = s.sources[i].sink { stopping.append((s.sources[i].source, sink)) }
                    s.sources[i].sink = nil
                    _ = s.hint.remove(s.sources[i].key)
                }
                return stopping
            }
            for (source, sink) in stopping {
                sink.invalidate()
                source.stop()
            }
        }
    }

    // MARK: The secondary-audio hint

    /// Whether another application is playing media (any manual input or source says so).
    public var secondaryAudioShouldBeSilencedHint: Bool { state.withLock { $0.hint.value } }

    /// Sets a manual input of the hint: the game, or one of its scenes, says whether other audio
    /// is playing. Inputs are named so that several parts of a game can hold the hint
    /// independently; the hint is on while any input is.
    public func setSecondaryAudioHint(_ otherAudioPlaying: Bool, source: String = "manual") {
        state.withLock { s in
            if let edge = s.hint.set("manual:" + source, otherAudioPlaying) {
                broadcast.send(.secondaryAudioHint(edge))
            }
        }
    }

    /// Adds a hint source; it runs while the session is active (started now if it already is).
    public func addHintSource(_ source: any SecondaryAudioHintSource) {
        control.withLock { _ in
            let sink = state.withLock { s -> HintSink? in
                guard !s.sources.contains(where: { $0.source === source }) else { return nil }
                let key = "source:\(s.nextSourceKey)"
                s.nextSourceKey += 1
                let sink = s.hint.isActive ? HintSink(key: key, session: self) : nil
                s.sources.append(SourceEntry(source: source, key: key, sink: sink))
                return sink
            }
            if let sink { source.start(reportingTo: sink) }
        }
    }

    /// Removes a hint source, stopping it; its input leaves the hint (which may end).
    public func removeHintSource(_ source: any SecondaryAudioHintSource) {
        control.withLock { _ in
            let sink = state.withLock { s -> HintSink?? in
                guard let i = s.sources.firstIndex(where: { $0.source === source }) else { return nil }
                let entry = s.sources.remove(at: i)
                if let edge = s.hint.remove(entry.key) { broadcast.send(.secondaryAudioHint(edge)) }
                return .some(entry.sink)
            }
            if let sink = sink ?? nil {
                sink.invalidate()
                source.stop()
            }
        }
    }

    /// The hint sources and how they are doing.
    public var hintSources: [HintSourceStatus] {
        state.withLock { s in
            s.sources.map { e in
                let snap = e.sink?.snapshot
                return HintSourceStatus(name: e.source.name, isRunning: e.sink != nil, isReady: snap?.ready ?? false,
                                        isAvailable: snap?.available ?? true, detail: snap?.detail ?? "",
                                        reportsOtherAudio: s.hint.inputs[e.key] ?? false)
            }
        }
    }

    /// A source's report (from ``HintSink``, any thread).
    func sourceReported(key: String, playing: Bool) {
        state.withLock { s in
            guard s.sources.contains(where: { $0.key == key && $0.sink != nil }) else { return }
            if let edge = s.hint.set(key, playing) { broadcast.send(.secondaryAudioHint(edge)) }
        }
    }

    /// A source lost its means of watching: its input drops to "nothing playing".
    func sourceBecameUnavailable(key: String, reason: String) {
        let name = state.withLock { s -> String? in
            guard let e = s.sources.first(where: { $0.key == key && $0.sink != nil }) else { return nil }
            if let edge = s.hint.set(key, false) { broadcast.send(.secondaryAudioHint(edge)) }
            return e.source.name
        }
        // Reported through `hintSources` too; the engine plays on: a notice, not a warning.
        if let name { logger.notice("hint source \(name) unavailable: \(reason)") }
    }

    // MARK: Interruptions

    /// What ``endInterruption(shouldResume:)`` does (default ``InterruptionPolicy/resumeIfAllowed``).
    public var interruptionPolicy: InterruptionPolicy {
        get { state.withLock { $0.policy } }
        set { state.withLock { $0.policy = newValue } }
    }

    /// Whether an interruption holds the engine's audio.
    public var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// A competing use of the output began: pauses every voice (virtual voices freeze) and every
    /// playing track, keeping positions, then posts `.interruption(.began)`. A second call while
    /// interrupted does nothing.
    public func beginInterruption() {
        control.withLock { _ in
            guard holdAudio() else { return }
            broadcast.send(.interruption(.began))
        }
    }

    /// Marks the session interrupted and pauses the engine's voices and playing tracks; false
    /// (nothing done) when an interruption already holds them. The caller holds `control`.
    private func holdAudio() -> Bool {
        let began = state.withLock { s -> Bool in
            guard !s.interrupted else { return false }
            s.interrupted = true
            return true
        }
        guard began else { return false }
        if let engine { applyInterruptionHold(true, on: engine) }
        return true
    }

    /// The interruption is over: posts `.interruption(.ended(shouldResume:))`, then resumes if
    /// the ``interruptionPolicy`` says so (otherwise the audio stays paused until ``resume()``).
    /// Without an interruption in force it does nothing.
    public func endInterruption(shouldResume: Bool) {
        control.withLock { _ in
            guard let policy = state.withLock({ $0.interrupted ? $0.policy : nil }) else { return }
            broadcast.send(.interruption(.ended(shouldResume: shouldResume)))
            if policy.resumes(shouldResume: shouldResume) { resumeLocked() }
        }
    }

    /// Lifts an interruption whether or not it ended: voices fade back in where they were and
    /// the tracks it paused play on. Does nothing when not interrupted.
    public func resume() {
        control.withLock { _ in
            resumeLocked()
        }
    }

    private func resumeLocked() {
        let was = state.withLock { s -> Bool in
            defer { s.interrupted = false }
            return s.interrupted
        }
        guard was, let engine else { return }
        applyInterruptionHold(false, on: engine)
    }

    // MARK: Route changes and resets (called by the engine's device-loss code)

    /// Posts `.routeChange(reason)`. Called by the engine when its output goes away or comes
    /// back, or the default output changes; safe from any thread, holding no engine lock or the
    /// AL lock (it takes them to pause when ``pausesWhenOutputGoesAway`` says so).
    func noteRouteChange(_ reason: RouteChangeReason) {
        logger.notice("route change: \(reason)")
        broadcast.send(.routeChange(reason))
        if reason == .oldDeviceUnavailable, state.withLock({ $0.pausesWhenOutputGoesAway }) { holdForLostOutput() }
    }

    /// Whether the game's audio pauses when the output it played on goes away (headphones
    /// unplugged, the chosen sink removed, the device lost): iOS's rule for media players,
    /// which a game may choose. Default false: a game carries on on the new output. When true,
    /// every voice and playing track is held as during an interruption (``isInterrupted``
    /// reads true; no interruption event is posted) until ``resume()``.
    public var pausesWhenOutputGoesAway: Bool {
        get { state.withLock { $0.pausesWhenOutputGoesAway } }
        set { state.withLock { $0.pausesWhenOutputGoesAway = newValue } }
    }

    /// Holds the audio after the output went away (see ``pausesWhenOutputGoesAway``).
    private func holdForLostOutput() {
        control.withLock { _ in
            _ = holdAudio()   // no interruption event: the route change was just posted
        }
    }

    /// Posts `.mediaServicesWereReset`. Called by the engine once it has rebuilt everything on a
    /// reopened device; safe from any thread, holding no engine lock or the AL lock (it takes none).
    ///
    /// Nothing of the session's needs applying again: the rebuild keeps the engine core — its
    /// buses with the music bus's duck factor, and an interruption's hold — and pushes them to
    /// the new sources itself (`EngineCore.syncBuses()`).
    func noteMediaServicesWereReset() {
        logger.notice("media services were reset")
        broadcast.send(.mediaServicesWereReset)
    }

    // MARK: Frame

    /// Once per game frame (from ``AudioEngine/update(deltaTime:)``): retargets and advances the
    /// duck ramp on the engine clock and writes the music bus's duck factor when it moved; stops
    /// the sources after engine shutdown.
    func tick(engine: AudioEngine) {
        guard let now = engine.withAL({ engine.core.isShutDown ? nil : engine.core.now }) else {
            if state.withLock({ $0.hint.isActive }) { deactivate() }
            return
        }
        let duck = state.withLock { s -> Float? in
            let target = s.duckTarget
            if target != s.ramp.target {
                let down = target < s.ramp.value(at: now)
                s.ramp.retarget(target, duration: down ? s.attack : s.release, now: now)
            }
            let g = s.ramp.value(at: now)
            guard g != s.appliedDuck else { return nil }
            s.appliedDuck = g
            return g
        }
        if let duck { writeMusicDuck(duck, on: engine, now: false) }   // music takes it at the end of this frame
    }

    /// Holds or releases every bus's voices and tracks, buses added later included (the engine
    /// core keeps the hold, the subsystems — music — hear of it at once; nothing once the engine
    /// is shut down). Takes the AL lock: call it without holding it.
    private func applyInterruptionHold(_ hold: Bool, on engine: AudioEngine) {
        engine.changingBuses {
            guard !engine.core.isShutDown else { return }
            engine.core.setInterruptionHold(hold)
        }
    }

    /// Writes the duck factor to the music bus (nothing once the engine is shut down). Takes the
    /// AL lock: call it without holding it. `now`: the subsystems (music tracks) take the level
    /// at once; otherwise at the end of the frame under way (the per-frame ramp, from
    /// ``AudioEngine/update(deltaTime:)``'s first step).
    private func writeMusicDuck(_ duck: Float, on engine: AudioEngine, now: Bool) {
        let write = {
            guard !engine.core.isShutDown else { return }
            engine.core.setBusDuck(duck, on: .music)
        }
        if now { engine.changingBuses(write) } else { engine.withAL(write) }
    }
}
