import COpenAL
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The engine's streamer: every stream's buffer queue (a ``MusicTrack``, an ``AudioStream``, each
/// channel of a split one), refilled ahead of need. ``MusicSystem`` is this plus music's sets;
/// the engine reaches it through ``EngineSubsystem`` (Music/MusicSystem+Subsystem.swift), and it
/// reaches the engine only through ``StreamHost``.
///
/// ## Streaming design
/// The stream system makes its own sources when the engine attaches it
/// (``AudioEngine/Configuration/musicSources``, never the voice pool's) and again on a new device.
/// Each playing track holds one of them and a queue of OpenAL buffers of decoded float samples,
/// ``defaultBufferDuration`` (125 ms) each, kept ``defaultBufferCount`` (4) deep: half a second
/// ahead of the play position. A *pump* unqueues the buffers OpenAL has finished, decodes new
/// chunks (outside the AL lock), queues them (inside it), re-applies the track's gain
/// (`volume × fade × the track bus's gain`; master rides on the listener, as for every source; a bus
/// duck reaches music at the next pump) and notices
/// ends and underruns.
///
/// - **Loopback engines** (deterministic): ``AudioEngine/render(into:)`` pumps before every mix
///   and tops each track up to the half-second ring *plus* the frames the render is about to
///   consume (converted through the file's rate and the track's pitch). A render therefore never
///   starves, whatever its size and however long the caller stalled between renders; no thread
///   exists. The music clock (fades) is the count of frames rendered.
/// - **Live devices**: a streaming thread (`earshot.music`) pumps every 10 ms, off the game's
///   frame, so refills stay ~0.5 s ahead of OpenAL's mixer even when the game loop stalls. The
///   music clock is the monotonic clock. ``frame(host:)``, called from the engine's update,
///   only re-applies gains and fades so they move with the game's frame.
///
/// A track whose source still stopped while data remained (the streaming thread starved) is an
/// *underrun*: it is counted (per track and in ``underruns``), refilled and restarted.
///
/// Lock order: the stream lock, then the AL lock (`withAL`); the engine never takes
/// the stream lock while holding the AL lock. End events are delivered after the stream lock is
/// released: yielded to the track's `AsyncStream`, and callbacks run on a Dispatch queue, never on
/// the streaming thread.
class StreamSystem: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only under the stream lock (`withStreamLock`,
    // checked in debug builds); `stopThread` is atomic and the rest are constants.
    /// Length of one queued buffer.
    static let defaultBufferDuration = 0.125
    /// Buffers kept queued ahead of the play position.
    static let defaultBufferCount = 4
    /// How often the live streaming thread pumps.
    static let streamingPeriodMicroseconds: useconds_t = 10_000
    /// The metering window.
    static let meterWindow = 0.05

    // The state below is internal (not private) only so that the stream system's own files
    // (StreamSystem+*.swift) reach it; outside Sources/Earshot/Streams only MusicSystem and the
    // monitor's read-only rows do, and every access holds the stream lock.

    /// The stream lock: guards every field of this object and every ``QueuedStream`` it serves.
    /// Taken once per call (``withStreamLock(_:)``), before the AL lock, never inside it.
    private let lock = Locked<Void>(())
    /// Streams holding a source (playing, paused or prepared).
    var active: [QueuedStream] = []
    /// Idle streams waiting for a start at a time (``MusicTrack/play(at:)``), started by the pump.
    var scheduled: [QueuedStream] = []
    /// Where marker events go (the engine's ``AudioEngine/markers``), set at attach.
    var markerSink: EventBroadcast<MarkerEvent>?
    /// Marker events collected under the lock, sent after it is released.
    var pendingMarkers: [MarkerEvent] = []
    /// Every stream opened on this engine, to finish their event streams at shutdown.
    var registry: [WeakStream] = []
    var clockFrames = 0
    var liveEpoch: Double?
    var threadStarted = false
    var isShutDown = false
    /// The output device is lost: nothing is pumped until ``reattach(host:)``.
    var suspended = false
    /// The buses held now — paused by the game (`setPaused(_:for:)`, `pauseAll(except:)`) or,
    /// all of them, by an audio-session interruption: no track on them plays until they are
    /// released. Read from the engine by ``syncBusHolds(host:)``.
    var heldBuses: Set<Bus> = []
    /// Some hold is on for `s`: it is paused by it, and `play` readies it without starting it.
    func isHeld(_ s: QueuedStream) -> Bool { heldBuses.contains(s.bus) }
    /// How many sources music keeps (``AudioEngine/Configuration/musicSources``).
    let sourceCount: Int
    /// The sources music made on the current device (none before ``attach(to:)``, none while
    /// the device is lost).
    var sources: [ALuint] = []
    /// Those no track holds.
    var freeSources: [ALuint] = []
    /// How many sources sound fields keep apart (``AudioEngine/Configuration/bedSources``): an
    /// ambisonic bed's virtual loudspeakers never take music's sources, nor music a bed's.
    let fieldSourceCount: Int
    /// The field sources no bed holds (part of ``sources``).
    var freeFieldSources: [ALuint] = []
    /// While the device is lost: the sources made on the lost context, which lives (and keeps
    /// their sends to effect slots) until the engine replaces it or shuts down.
    var lostSources: [ALuint] = []
    /// The context ``sources`` (and ``lostSources``) were made on (``StreamHost/streamContext``).
    var sourcesContext: ObjectIdentifier?
    let stopThread = Atomic<Bool>(false)

    /// Whether a loopback render tops tracks up for the whole render (tests switch it off to
    /// provoke an underrun).
    var renderLookahead = true
    /// Some bus was last told it plays music (``publishPower(host:)``).
    var publishedPower = false
    var underruns = 0
    var cpuSeconds: Double = 0
    var framesQueued = 0

    init(sourceCount: Int, fieldSourceCount: Int = 0) {
        self.sourceCount = sourceCount
        self.fieldSourceCount = fieldSourceCount
    }

    struct WeakStream { weak var stream: QueuedStream? }

    /// Runs `body` under the stream lock (one scope per call), then delivers the end events it
    /// queued, after the lock is released. Debug builds check the lock order: never with the AL
    /// lock held (the engine calls music with no lock; music takes the AL lock inside).
    func withStreamLock<R, E: Error>(_ body: (inout [Pending]) throws(E) -> R) throws(E) -> R {
        ALGlobal.lock.assertNotHeld("lock order: the stream lock is taken before the AL lock, never inside it")
        var pending: [Pending] = []
        var markers: [MarkerEvent] = []
        defer {
            deliver(pending)
            if !markers.isEmpty { markerSink?.send(markers) }
        }
        return try lock.withLock { (_: inout Void) throws(E) -> R in
            defer { if !pendingMarkers.isEmpty { swap(&markers, &pendingMarkers) } }
            return try body(&pending)
        }
    }

    /// Debug builds: traps unless the stream lock is held (what the internals below need).
    @inline(__always)
    func assertLocked() { lock.assertHeld("the stream lock") }
    typealias Pending = (stream: QueuedStream, event: MusicTrack.Event, callback: (@Sendable (MusicTrack.Event) -> Void)?)

    // MARK: Hooks called by the engine

    /// Hands the engine what each bus plays of music now (``StreamHost/setStreamedPower(_:)``).
    private func publishPower(host: any StreamHost) {
        var power: [Bus: Float] = [:]
        if !isShutDown, !suspended {
            for s in active where s.source != nil && s.streamedPower > 0 { power[s.bus, default: 0] += s.streamedPower }
        }
        guard !power.isEmpty || publishedPower else { return }
        publishedPower = !power.isEmpty
        host.withStreamAL { host.setStreamedPower(power) }
    }

    /// Refills every track before a loopback render of `renderFrames` frames (the render path's
    /// `// music pump`), or once per period on the streaming thread (`renderFrames == 0`).
    func pump(host: any StreamHost, renderFrames: Int) {
        withStreamLock { pending in
            if !isShutDown, !suspended, !active.isEmpty || !scheduled.isEmpty {
                let cpu0 = Clocks.threadCPU()
                let now = clock(host)
                if !scheduled.isEmpty { startScheduled(host: host, renderFrames: renderFrames, pending: &pending) }
                for s in active {
                    service(s, host: host, now: now, renderFrames: renderFrames, pending: &pending)
                    if s.stopAt != nil || s.hasMarks || s.fade?.startsLater == true { keepTime(s, host: host, renderFrames: renderFrames, pending: &pending) }
                }
                publishPower(host: host)
                cpuSeconds += Clocks.threadCPU() - cpu0
            } else if publishedPower {
                publishPower(host: host)   // the last track left: the buses read no music
            }
            if host.isLoopback { clockFrames += renderFrames }
        }
    }

    /// Per game frame (from `AudioEngine.update(deltaTime:)`): re-applies every track's gain and
    /// fade, so bus ducks and fades follow the game's frame, and moves tracks that follow an
    /// emitter to where it is. Decodes nothing.
    func frame(host: any StreamHost) {
        withStreamLock { pending in
            if !isShutDown, !suspended, !active.isEmpty {
                let now = clock(host)
                var fadedOut: [QueuedStream] = []
                host.withStreamAL {
                    guard !host.streamCoreIsShutDown else { return }
                    for s in active {
                        guard let source = s.source else { continue }
                        if s.emitter != nil || s.field != nil { applyPlacement(s, source: source, host: host, now: now) }
                        if applyGain(s, source: source, now: now, busGain: host.busGain(s.bus)) { fadedOut.append(s) }
                    }
                }
                for s in fadedOut { stopAfterFade(s, host: host, pending: &pending) }
            }
        }
    }

    /// Stops every track (each owing an end event gets `.stopped`), releases their sources and
    /// buffers and deletes music's sources, ends the streaming thread, closes every track's file
    /// (held tracks and sets keep no descriptor) and finishes every track's event stream. Call before the engine's core is torn down.
    func shutdown(host: any StreamHost) {
        let streams = withStreamLock { pending in
            if !isShutDown {
                isShutDown = true
                stopThread.store(true, ordering: .relaxed)
                for s in scheduled { s.startAt = nil }
                scheduled.removeAll()
                for s in active { settle(s, host: host, pending: &pending) }
                for s in active {
                    s.idlePosition = currentFrameLocked(s, host: host)
                    end(s, reason: .stopped, error: nil, host: host, pending: &pending)
                }
                deleteSources(host: host)
            }
            let streams = registry.compactMap(\.stream)
            registry.removeAll()
            // The files too: a game that still holds a track or a set must not keep them open.
            for s in streams { s.decoder.close() }
            return streams
        }
        for s in streams {
            s.continuation.finish()
            s.broadcast?.finish()
        }
    }

    // MARK: Device loss

    /// The output device is gone: every track's AL objects died with it. Pumping stops; each
    /// track remembers where it was (its last heard frame plus the time since, on the music
    /// clock) and how many loops it had left.
    @discardableResult
    func deviceLost(host: any StreamHost) -> [(path: String, seconds: Double)] {
        return withStreamLock { _ in
            guard !suspended else { return [] }
            suspended = true
            host.withStreamAL {
                // A truly lost device plays nothing; stopping also makes a simulated loss faithful.
                for source in sources { alSourceStop(source) }
                ALCheck.discard(because: "the device is lost: calls on its sources may fail, and nothing on it is heard any more")
            }
            // The names die with the old context at the rebuild; none is handed out meanwhile. Kept
            // to be deleted if the engine shuts down first, on the context that still holds them.
            lostSources = sources
            sources = []
            freeSources = []
            freeFieldSources = []
            let now = clock(host)
            for s in active {
                var frame = s.lastHeardFrame ?? s.idlePosition
                if s.state == .playing, s.lastHeardFrame != nil {
                    frame += Int(((now - s.lastHeardClock) * Double(s.fileRate) * Double(s.rate)).rounded())
                }
                if frame >= s.frameCount {
                    frame = (s.loopsLeft != 0 && s.frameCount > 0) ? frame % s.frameCount : s.frameCount
                }
                s.idlePosition = max(0, min(frame, s.frameCount))
                s.loopsLeftAtLoss = s.loopsLeft
            }
            alignGroupsAfterLoss()
            return active.map { ($0.path, Double($0.idlePosition) / Double(max($0.fileRate, 1))) }
        }
    }

    /// The engine rebuilt its context on a new device: music makes its sources again, and every
    /// track that held a source gets a new one, refilled from where it was, playing again if it
    /// was playing (paused ones stay paused). The old buffer and source names belonged to the
    /// destroyed context and are forgotten.
    func reattach(host: any StreamHost) {
        withStreamLock { pending in
            guard suspended, !isShutDown else { return }
            suspended = false
            lostSources = []   // died with the replaced context
            do throws(EarshotError) {
                try makeSources(host: host)
            } catch {
                // Every track below fails to start (no source) and reports it.
                host.logWarning("music sources could not be made on the new device: \(error)")
            }
            let tracks = active
            active.removeAll()
            var restart: [ALuint] = []
            for s in tracks {
                forgetAL(s)
                let wasPlaying = s.state == .playing
                let loops = s.loopsLeftAtLoss
                s.loopsLeftAtLoss = nil
                s.lastHeardFrame = nil
                do throws(EarshotError) {
                    try startQueue(s, host: host, leadInAfter: nil)
                } catch {
                    s.failure = error
                    s.state = .idle
                    if s.sessionActive {
                        s.sessionActive = false
                        pending.append((s, MusicTrack.Event(reason: .failed, error: error, path: s.path), s.onEnd))
                    }
                    continue
                }
                if let loops { s.loopsLeft = loops }
                if wasPlaying, let source = s.source, !s.queue.isEmpty {
                    let now = clock(host)
                    host.withStreamAL {
                        _ = applyGain(s, source: source, now: now, busGain: host.busGain(s.bus))
                    }
                    restart.append(source)
                }
            }
            // All in one call, so that the stems of a music set start again on the same mix.
            if !restart.isEmpty {
                host.withStreamAL {
                    ALContext.start(restart, "starting streams on the new device")
                }
            }
        }
    }

    // MARK: Holds (interruptions, bus pauses)

    /// Reads which buses are held now (the game's own pauses, `pauseAll(except:)`, an
    /// interruption) and holds or releases the tracks on them (see ``applyHolds(host:)``).
    /// Called after every change of the holds (``BusChanges/holds``), outside the AL lock.
    func syncBusHolds(host: any StreamHost) {
        withStreamLock { _ in
            guard !isShutDown else { return }
            let buses = host.withStreamAL { host.streamCoreIsShutDown ? [] : host.heldBuses }
            guard buses != heldBuses else { return }
            heldBuses = buses
            applyHolds(host: host)
        }
    }

    /// Brings every track in line with the holds (stream lock held). While a hold is on for a
    /// track (``isHeld(_:)``), it is paused where it is (its queue, position and fade timeline
    /// stay) and ``play(_:host:)`` readies it without starting it. When its last hold is lifted,
    /// a track a hold paused that is still paused resumes (a track the game paused, stopped or
    /// that ended meanwhile is left as it is).
    private func applyHolds(host: any StreamHost) {
        assertLocked()
        let now = clock(host)
        host.withStreamAL {
            guard !host.streamCoreIsShutDown else { return }
            for s in active {
                if isHeld(s) {
                    guard s.state == .playing else { continue }
                    if let source = s.source, !suspended { alSourcePause(source) }
                    s.fade?.freeze(at: now)
                    s.state = .paused
                    s.heldBySession = true
                } else {
                    guard s.heldBySession else { continue }
                    s.heldBySession = false
                    guard s.state == .paused else { continue }
                    s.state = .playing
                    guard let source = s.source, !suspended else { s.fade?.thaw(at: now); continue }
                    _ = applyGain(s, source: source, now: now, busGain: host.busGain(s.bus))
                    if !s.queue.isEmpty { ALContext.play(source) }
                }
            }
            ALCheck.after("holding or releasing music sources")
        }
    }

    /// Streams on a changed bus take its level now (unless the frame just applied them), held
    /// buses hold their streams, and a `stopAll(on:)` stops the streams on that bus.
    func applyBusChanges(_ changes: BusChanges, host: any StreamHost, levelsApplied: Bool) {
        if changes.levels, !levelsApplied { frame(host: host) }
        if changes.holds { syncBusHolds(host: host) }
        for bus in changes.stopped { stopAll(on: bus, host: host) }
    }

    /// Stops every track on `bus` (`stopAll(on:)`): each playing, paused or prepared track ends
    /// with `.stopped` (keeping its position, as ``MusicTrack/stop()``), and tracks on it waiting
    /// to play after another are cancelled.
    func stopAll(on bus: Bus, host: any StreamHost) {
        withStreamLock { pending in
            for a in active {
                if let n = a.next, n.bus == bus { n.waiting = false; a.next = nil }
            }
            for s in active where s.bus == bus { stopLocked(s, host: host, pending: &pending) }
        }
    }

    // MARK: Stats

    struct Snapshot { var activeTracks: Int; var underruns: Int; var cpuSeconds: Double; var framesQueued: Int }

    func snapshot() -> Snapshot {
        return withStreamLock { _ in
            return Snapshot(activeTracks: active.count(where: { $0.state == .playing }), underruns: underruns,
                            cpuSeconds: cpuSeconds, framesQueued: framesQueued)
        }
    }

    /// Every track's underruns so far: the one counter ``AudioEngine/stats`` needs, which games
    /// read every frame, without building a ``Snapshot``.
    var underrunTotal: Int { withStreamLock { _ in underruns } }
}
