import COpenAL
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The engine's music streamer: every ``MusicTrack``'s buffer queue, refilled ahead of need.
///
/// ## Streaming design
/// Each playing track holds one source reserved for music (``EngineCore/claimMusicSource()``,
/// never one of the voice pool's) and a queue of OpenAL buffers of decoded float samples,
/// ``defaultBufferDuration`` (125 ms) each, kept ``defaultBufferCount`` (4) deep: half a second
/// ahead of the play position. A *pump* unqueues the buffers OpenAL has finished, decodes new
/// chunks (outside the AL lock), queues them (inside it), re-applies the track's gain
/// (`volume × fade × music bus gain`; master rides on the listener, as for every source; a bus
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
///   music clock is the monotonic clock. ``frame(engine:)``, called from the engine's update,
///   only re-applies gains and fades so they move with the game's frame.
///
/// A track whose source still stopped while data remained (the streaming thread starved) is an
/// *underrun*: it is counted (per track and in ``underruns``), refilled and restarted.
///
/// Lock order: the music lock, then the AL lock (`withAL`); the engine never takes
/// the music lock while holding the AL lock. End events are delivered after the music lock is
/// released: yielded to the track's `AsyncStream`, and callbacks run on a Dispatch queue, never on
/// the streaming thread.
final class MusicSystem: @unchecked Sendable {
    // @unchecked Sendable: every stored var is touched only under the music lock (`withMusicLock`,
    // checked in debug builds); `stopThread` is atomic and the rest are constants.
    /// Length of one queued buffer.
    static let defaultBufferDuration = 0.125
    /// Buffers kept queued ahead of the play position.
    static let defaultBufferCount = 4
    /// How often the live streaming thread pumps.
    static let streamingPeriodMicroseconds: useconds_t = 10_000
    /// The metering window.
    static let meterWindow = 0.05

    /// The music lock: guards every field of this object and every ``TrackStream`` it serves.
    /// Taken once per call (``withMusicLock(_:)``), before the AL lock, never inside it.
    private let lock = Locked<Void>(())
    /// Streams holding a source (playing, paused or prepared).
    private var active: [TrackStream] = []
    /// Every stream opened on this engine, to finish their event streams at shutdown.
    private var registry: [WeakStream] = []
    private var clockFrames = 0
    private var liveEpoch: Double?
    private var threadStarted = false
    private var isShutDown = false
    /// The output device is lost: nothing is pumped until ``reattach(engine:)``.
    private var suspended = false
    /// An audio-session interruption is under way: no track plays until it is lifted.
    private var sessionHold = false
    /// The music bus is paused (by the game's `setPaused(_:for:)` or by `pauseAll(except:)`):
    /// no track plays until it is resumed.
    private var busHold = false
    /// Some hold is on: tracks are paused by it, and `play` readies a track without starting it.
    private var held: Bool { sessionHold || busHold }
    private let stopThread = Atomic<Bool>(false)

    /// Whether a loopback render tops tracks up for the whole render (tests switch it off to
    /// provoke an underrun).
    var renderLookahead = true
    private(set) var underruns = 0
    private(set) var cpuSeconds: Double = 0
    private(set) var framesQueued = 0

    /// The master-output meter of a loopback engine.
    let outputMeter = OutputMeter()

    init() {}

    private struct WeakStream { weak var stream: TrackStream? }

    /// Runs `body` under the music lock (one scope per call), then delivers the end events it
    /// queued, after the lock is released. Debug builds check the lock order: never with the AL
    /// lock held (the engine calls music with no lock; music takes the AL lock inside).
    private func withMusicLock<R, E: Error>(_ body: (inout [Pending]) throws(E) -> R) throws(E) -> R {
        ALGlobal.lock.assertNotHeld("lock order: the music lock is taken before the AL lock, never inside it")
        var pending: [Pending] = []
        defer { deliver(pending) }
        return try lock.withLock { (_: inout Void) throws(E) -> R in try body(&pending) }
    }

    /// Debug builds: traps unless the music lock is held (what the internals below need).
    @inline(__always)
    private func assertLocked() { lock.assertHeld("the music lock") }
    private typealias Pending = (stream: TrackStream, event: MusicTrack.Event, callback: (@Sendable (MusicTrack.Event) -> Void)?)

    // MARK: Hooks called by the engine

    /// Refills every track before a loopback render of `renderFrames` frames (the render path's
    /// `// music pump`), or once per period on the streaming thread (`renderFrames == 0`).
    func pump(engine: AudioEngine, renderFrames: Int) {
        withMusicLock { pending in
            if !isShutDown, !suspended, !active.isEmpty {
                let cpu0 = Clocks.threadCPU()
                let now = clock(engine)
                var musicGain: Float?   // read by the first track's pump, under the AL lock; the others reuse it
                for s in active {
                    service(s, engine: engine, now: now, renderFrames: renderFrames, musicGain: &musicGain, pending: &pending)
                }
                cpuSeconds += Clocks.threadCPU() - cpu0
            }
            if engine.isLoopback { clockFrames += renderFrames }
        }
    }

    /// Per game frame (from `AudioEngine.update(deltaTime:)`): re-applies every track's gain and
    /// fade, so bus ducks and fades follow the game's frame. Decodes nothing.
    func frame(engine: AudioEngine) {
        withMusicLock { pending in
            if !isShutDown, !suspended, !active.isEmpty {
                let now = clock(engine)
                var fadedOut: [TrackStream] = []
                engine.withAL {
                    guard !engine.core.isShutDown else { return }
                    let musicGain = engine.core.busGain(.music)   // a bus lookup by name: once per frame, not per track
                    for s in active { if let source = s.source, applyGain(s, source: source, now: now, busGain: musicGain) { fadedOut.append(s) } }
                }
                for s in fadedOut { stopAfterFade(s, engine: engine, pending: &pending) }
            }
        }
    }

    /// Records a loopback render for master-output metering (the render path's `// music meter`).
    func didRender(_ buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
        outputMeter.record(buffer, channels: channels)
    }

    /// Stops every track (each owing an end event gets `.stopped`), releases their sources and
    /// buffers, ends the streaming thread and finishes every track's event stream. Call before the
    /// engine's core is torn down.
    func shutdown(engine: AudioEngine) {
        let streams = withMusicLock { pending in
            if !isShutDown {
                isShutDown = true
                stopThread.store(true, ordering: .relaxed)
                for s in active { settle(s, engine: engine, pending: &pending) }
                for s in active {
                    s.idlePosition = currentFrameLocked(s, engine: engine)
                    end(s, reason: .stopped, error: nil, engine: engine, pending: &pending)
                }
            }
            let streams = registry.compactMap(\.stream)
            registry.removeAll()
            return streams
        }
        for s in streams { s.continuation.finish() }
    }

    // MARK: Device loss

    /// The output device is gone: every track's AL objects died with it. Pumping stops; each
    /// track remembers where it was (its last heard frame plus the time since, on the music
    /// clock) and how many loops it had left.
    @discardableResult
    func deviceLost(engine: AudioEngine) -> [(path: String, seconds: Double)] {
        return withMusicLock { _ in
            guard !suspended else { return [] }
            suspended = true
            let now = clock(engine)
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
            return active.map { ($0.path, Double($0.idlePosition) / Double(max($0.fileRate, 1))) }
        }
    }

    /// The engine rebuilt its context on a new device: every track that held a source gets a new
    /// one, refilled from where it was, playing again if it was playing (paused ones stay paused).
    /// The old buffer and source names belonged to the destroyed context and are forgotten.
    func reattach(engine: AudioEngine) {
        withMusicLock { pending in
            guard suspended else { return }
            suspended = false
            let tracks = active
            active.removeAll()
            for s in tracks {
                forgetAL(s)
                let wasPlaying = s.state == .playing
                let loops = s.loopsLeftAtLoss
                s.loopsLeftAtLoss = nil
                s.lastHeardFrame = nil
                do throws(EarshotError) {
                    try startQueue(s, engine: engine, leadInAfter: nil)
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
                    let now = clock(engine)
                    engine.withAL {
                        _ = applyGain(s, source: source, now: now, busGain: engine.core.busGain(.music))
                        alSourcePlay(source)
                        ALCheck.after("starting a music source")
                    }
                }
            }
        }
    }

    // MARK: Holds (interruptions, music bus pause)

    /// What holds every track: an audio-session interruption or the music bus's pause.
    enum Hold { case session, bus }

    /// Holds or releases every track for an audio-session interruption (see ``setHold(_:_:engine:)``).
    func setSessionHold(_ hold: Bool, engine: AudioEngine) { setHold(.session, hold, engine: engine) }

    /// Holds or releases every track. While any hold is on, each playing track is paused where it
    /// is (its queue, position and fade timeline stay) and ``play(_:engine:)`` readies a track
    /// without starting it. When the last hold is lifted, every track a hold paused that is still
    /// paused resumes (a track the game paused, stopped or that ended meanwhile is left as it is).
    func setHold(_ kind: Hold, _ value: Bool, engine: AudioEngine) {
        withMusicLock { _ in
            guard !isShutDown else { return }
            let wasHeld = held
            switch kind {
            case .session: sessionHold = value
            case .bus: busHold = value
            }
            let hold = held
            guard hold != wasHeld else { return }
            let now = clock(engine)
            engine.withAL {
                guard !engine.core.isShutDown else { return }
                for s in active {
                    if hold {
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
                        _ = applyGain(s, source: source, now: now, busGain: engine.core.busGain(.music))
                        if !s.queue.isEmpty { alSourcePlay(source) }
                    }
                }
                ALCheck.after("holding or releasing music sources")
            }
        }
    }

    /// Stops every track (``Bus/music``'s `stopAll(on:)`): each playing, paused or prepared track
    /// ends with `.stopped` (keeping its position, as ``MusicTrack/stop()``), and tracks waiting
    /// to play after another are cancelled.
    func stopAll(engine: AudioEngine) {
        withMusicLock { pending in
            for a in active {
                if let n = a.next { n.waiting = false; a.next = nil }
            }
            for s in active { stopLocked(s, engine: engine, pending: &pending) }
        }
    }

    // MARK: Stats

    struct Snapshot { var activeTracks: Int; var underruns: Int; var cpuSeconds: Double; var framesQueued: Int }

    func snapshot() -> Snapshot {
        return withMusicLock { _ in
            return Snapshot(activeTracks: active.count(where: { $0.state == .playing }), underruns: underruns,
                            cpuSeconds: cpuSeconds, framesQueued: framesQueued)
        }
    }

    /// Every track's underruns so far: the one counter ``AudioEngine/stats`` needs, which games
    /// read every frame, without building a ``Snapshot``.
    var underrunTotal: Int { withMusicLock { _ in underruns } }

    // MARK: Track controls (called by MusicTrack)

    func register(_ s: TrackStream, engine: AudioEngine) throws(EarshotError) {
        try withMusicLock { (_: inout [Pending]) throws(EarshotError) in
            guard !isShutDown, !engine.isShutDown else { throw .engineShutDown }
            registry.removeAll { $0.stream == nil }
            registry.append(WeakStream(stream: s))
        }
    }

    /// Claims a source and fills the queue without playing (AVAudioPlayer's `prepareToPlay`).
    func prepare(_ s: TrackStream, engine: AudioEngine) throws(EarshotError) {
        try withMusicLock { (pending: inout [Pending]) throws(EarshotError) in
            guard !isShutDown else { throw .engineShutDown }
            guard s.state == .idle else { return }
            cancelWaiting(s)
            try startQueue(s, engine: engine, leadInAfter: nil)
            s.state = .paused
            endIfDrained(s, engine: engine, pending: &pending)
        }
    }

    func play(_ s: TrackStream, engine: AudioEngine) throws(EarshotError) {
        try withMusicLock { (pending: inout [Pending]) throws(EarshotError) in
            guard !isShutDown else { throw .engineShutDown }
            cancelWaiting(s)
            switch s.state {
            case .playing:
                return
            case .paused:
                s.sessionActive = true
                s.state = .playing
            case .idle:
                try startQueue(s, engine: engine, leadInAfter: nil)
                s.sessionActive = true
                s.state = .playing
            }
            if held {
                // Interrupted or the music bus paused: the track is ready and starts when the hold
                // is lifted.
                s.state = .paused
                s.heldBySession = true
                return
            }
            if let source = s.source, !suspended, !s.queue.isEmpty {
                let now = clock(engine)
                engine.withAL {
                    guard !engine.core.isShutDown else { return }
                    _ = applyGain(s, source: source, now: now, busGain: engine.core.busGain(.music))
                    alSourcePlay(source)
                    ALCheck.after("starting a music source")
                }
            }
            endIfDrained(s, engine: engine, pending: &pending)
        }
    }

    /// Queues `s` to start when `previous` ends (not when it is stopped). Starts `s` now when
    /// `previous` is not playing.
    func play(_ s: TrackStream, after previous: TrackStream, engine: AudioEngine) throws(EarshotError) {
        let playsNow = try withMusicLock { (_: inout [Pending]) throws(EarshotError) -> Bool in
            guard !isShutDown else { throw .engineShutDown }
            guard s !== previous else { throw .invalidArgument("a track cannot play after itself") }
            guard s.state == .idle else { throw .invalidArgument("\(s.path) is already playing; stop it before queueing it") }
            guard previous.sessionActive, previous.source != nil else { return true }
            cancelWaiting(s)
            if let old = previous.next { old.waiting = false }
            previous.next = s
            s.waiting = true
            return false
        }
        // `previous` is not playing: this one starts now (its own call, its own lock scope).
        if playsNow { try play(s, engine: engine) }
    }

    func pause(_ s: TrackStream, engine: AudioEngine) {
        withMusicLock { _ in
            s.heldBySession = false   // the game's own pause outlasts an interruption
            if s.waiting { cancelWaiting(s); return }
            guard s.state == .playing else { return }
            s.fade?.freeze(at: clock(engine))   // the fade's timeline is playback time
            s.state = .paused
            guard let source = s.source, !suspended else { return }   // a lost device plays nothing anyway
            engine.withAL {
                guard !engine.core.isShutDown else { return }
                alSourcePause(source)
                ALCheck.after("pausing a music source")
            }
        }
    }

    func stop(_ s: TrackStream, engine: AudioEngine) {
        withMusicLock { pending in
            stopLocked(s, engine: engine, pending: &pending)
        }
    }

    /// Ends `s` with `.stopped`, keeping its position. While the device is lost a track may hold
    /// no source yet (played during the loss): it is in `active` all the same.
    private func stopLocked(_ s: TrackStream, engine: AudioEngine, pending: inout [Pending]) {
        assertLocked()
        cancelWaiting(s)
        settle(s, engine: engine, pending: &pending)
        guard s.source != nil || active.contains(where: { $0 === s }) else { return }
        let position = currentFrameLocked(s, engine: engine)
        end(s, reason: .stopped, error: nil, engine: engine, pending: &pending)
        s.idlePosition = position
    }

    /// Whether `s` is playing. A track whose source has played the session's last queued frame
    /// ends here at once (its end event is delivered now rather than at the next pump).
    func isPlaying(_ s: TrackStream, engine: AudioEngine) -> Bool {
        withMusicLock { pending in
            settle(s, engine: engine, pending: &pending)
            return s.state == .playing
        }
    }

    /// Ends `s` naturally (finished or failed) if it is playing, has nothing more to decode and
    /// its source has stopped: so that a stop or shutdown right after the last frame does not
    /// turn a finished track into a stopped one.
    private func settle(_ s: TrackStream, engine: AudioEngine, pending: inout [Pending]) {
        assertLocked()
        guard s.state == .playing, s.exhausted, !suspended, let source = s.source else { return }
        let stopped = engine.withAL { () -> Bool in
            guard !engine.core.isShutDown else { return false }
            var state: ALint = 0
            alGetSourcei(source, AL_SOURCE_STATE, &state)
            return state == AL_STOPPED
        }
        if stopped { endNaturally(s, engine: engine, pending: &pending) }
    }

    func isWaiting(_ s: TrackStream) -> Bool {
        return withMusicLock { _ in
            return s.waiting
        }
    }

    func currentFrame(_ s: TrackStream, engine: AudioEngine) -> Int {
        return withMusicLock { _ in
            return currentFrameLocked(s, engine: engine)
        }
    }

    func seek(_ s: TrackStream, toFrame frame: Int, engine: AudioEngine) {
        withMusicLock { pending in
            let frame = min(max(0, frame), s.frameCount)
            guard let source = s.source, !suspended else {
                // Idle, or the device is lost: the track restarts from here (``reattach(engine:)``).
                s.idlePosition = frame
                return
            }
            engine.withAL {
                guard !engine.core.isShutDown else { return }
                alSourceStop(source)
                unqueueProcessed(s, source: source)
                ALCheck.after("stopping a music source to seek")
            }
            s.history.removeAll()
            s.restartDecoder(at: frame)
            let staged = decodeAhead(s, engine: engine, renderFrames: 0, aheadNow: 0)
            engine.withAL {
                guard !engine.core.isShutDown else { return }
                uploadAll(staged, to: s, source: source)
                if s.state == .playing, !s.queue.isEmpty { alSourcePlay(source) }
                ALCheck.after("queueing music buffers")
            }
            endIfDrained(s, engine: engine, pending: &pending)
        }
    }

    /// Runs `change` on the stream under the lock, then re-applies source properties.
    func update(_ s: TrackStream, engine: AudioEngine, _ change: (TrackStream) -> Void) {
        return withMusicLock { _ in
            change(s)
            guard let source = s.source, !suspended else { return }
            let now = clock(engine)
            engine.withAL {
                guard !engine.core.isShutDown else { return }
                applyPan(s, source: source)
                alSourcef(source, AL_PITCH, s.sourcePitch)
                _ = applyGain(s, source: source, now: now, busGain: engine.core.busGain(.music))
                ALCheck.after("updating a music source")
            }
        }
    }

    /// Reads a stream's state under the lock.
    func read<T>(_ s: TrackStream, _ body: (TrackStream) -> T) -> T {
        return withMusicLock { _ in
            return body(s)
        }
    }

    func fade(_ s: TrackStream, to target: Float, duration: Double, curve: MusicTrack.FadeCurve, stopsAtEnd: Bool,
              restoreVolume: Float?, engine: AudioEngine) {
        withMusicLock { pending in
            let now = clock(engine)
            if let f = s.fade { s.volume = f.volume(at: now).0 }
            s.fade = FadeState(from: s.volume, to: target, start: now, duration: max(0, duration), curve: curve,
                               stopsAtEnd: stopsAtEnd, restoreVolume: restoreVolume)
            // A paused track's fade waits for it: the timeline is playback time.
            if s.state == .paused { s.fade?.freeze(at: now) }
            if let source = s.source, !suspended {
                let done = engine.withAL { () -> Bool in
                    guard !engine.core.isShutDown else { return false }
                    return applyGain(s, source: source, now: now, busGain: engine.core.busGain(.music))
                }
                if done { stopAfterFade(s, engine: engine, pending: &pending) }
            } else if duration <= 0 || !s.sessionActive {
                // Nothing is playing: the fade is only a volume change.
                if duration <= 0 { s.volume = target; s.fade = nil }
            }
        }
    }

    /// Updates the meter reading of `s` from the ~50 ms of samples before its play position.
    func updateMeters(_ s: TrackStream, engine: AudioEngine) {
        withMusicLock { _ in
            guard s.meteringEnabled, !suspended, let offset = queueOffset(s, engine: engine) else {
                s.meters = .silent(channels: s.channels)
                return
            }
            s.meters = s.measure(atQueueOffset: offset, window: meterWindowFrames(s))
        }
    }

    // MARK: Internals (music lock held)

    private func clock(_ engine: AudioEngine) -> Double {
        if engine.isLoopback { return Double(clockFrames) / Double(engine.sampleRate) }
        let t = Clocks.monotonic()
        if liveEpoch == nil { liveEpoch = t }
        return t - (liveEpoch ?? t)
    }

    private func bufferFrames(_ s: TrackStream) -> Int { max(256, Int((Self.defaultBufferDuration * Double(s.fileRate)).rounded())) }
    private func meterWindowFrames(_ s: TrackStream) -> Int { max(1, Int((Self.meterWindow * Double(s.fileRate)).rounded())) }

    /// Decodes chunks until the queue holds the ring plus what a render of `renderFrames` consumes.
    private func decodeAhead(_ s: TrackStream, engine: AudioEngine, renderFrames: Int, aheadNow: Int) -> [StagedChunk] {
        assertLocked()
        let size = bufferFrames(s)
        var target = size * Self.defaultBufferCount
        if renderLookahead, renderFrames > 0, s.state == .playing {
            let consumed = Double(renderFrames) * Double(s.fileRate) / Double(engine.sampleRate) * Double(s.sourcePitch)
            target += Int(consumed.rounded(.up)) + 64   // + the resampler's look-ahead
        }
        var ahead = aheadNow
        var staged: [StagedChunk] = []
        while ahead < target, let chunk = s.decodeChunk(frames: size) {
            ahead += chunk.frames
            staged.append(chunk)
        }
        return staged
    }

    /// Claims and configures a source for an idle stream, positions the decoder and fills the
    /// queue; with `leadInAfter`, first queues silence lasting exactly as long as that track has
    /// left, so this one starts on the sample after it ends.
    private func startQueue(_ s: TrackStream, engine: AudioEngine, leadInAfter previous: TrackStream?) throws(EarshotError) {
        assertLocked()
        if s.source != nil { return }
        if suspended {
            // The device is lost: the track joins the others that ``reattach(engine:)`` refills
            // on the new device, from its position.
            guard engine.withAL({ !engine.core.isShutDown }) else { throw .engineShutDown }
            if !active.contains(where: { $0 === s }) { active.append(s) }
            return
        }
        startThreadIfLive(engine)
        s.restartDecoder(at: s.idlePosition)
        s.loopsLeft = s.numberOfLoops
        s.history.removeAll()
        let staged = decodeAhead(s, engine: engine, renderFrames: 0, aheadNow: 0)
        let now = clock(engine)
        try engine.withAL { () throws(EarshotError) in
            guard !engine.core.isShutDown else { throw .engineShutDown }
            guard let source = engine.core.claimMusicSource() else {
                throw .musicSourcesBusy(engine.core.musicSourceNames.count)
            }
            s.source = source
            configure(source, for: s, engine: engine, now: now)
            if let previous, let prevSource = previous.source {
                var state: ALint = 0, offset: ALint = 0
                alGetSourcei(prevSource, AL_SOURCE_STATE, &state)
                alGetSourcei(prevSource, AL_SAMPLE_OFFSET, &offset)
                let remaining = state == AL_STOPPED ? 0 : max(0, previous.queuedFrames - Int(offset))
                let seconds = Double(remaining) / (Double(previous.fileRate) * Double(previous.sourcePitch))
                let leadIn = Int((seconds * Double(s.fileRate) * Double(s.sourcePitch)).rounded())
                if leadIn > 0 { uploadAll([.silence(frames: leadIn, channels: s.channels)], to: s, source: source) }
            }
            uploadAll(staged, to: s, source: source)
            ALCheck.after("queueing music buffers")
        }
        active.append(s)
    }

    private func configure(_ source: ALuint, for s: TrackStream, engine: AudioEngine, now: Double) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        alSourceStop(source)
        alSourcei(source, AL_BUFFER, 0)
        alSourcei(source, AL_LOOPING, AL_FALSE)
        alSourcei(source, AL_SOURCE_RELATIVE, AL_TRUE)
        alSourcef(source, AL_ROLLOFF_FACTOR, 0)
        alSource3f(source, AL_VELOCITY, 0, 0, 0)
        if engine.context.has("AL_SOFT_direct_channels") {
            // Stereo files play bit-exact, left to left and right to right.
            alSourcei(source, AL_DIRECT_CHANNELS_SOFT, s.channels == 2 ? AL_TRUE : AL_FALSE)
        }
        applyPan(s, source: source)
        alSourcef(source, AL_PITCH, s.sourcePitch)
        s.appliedGain = nil   // a claimed source still holds the gain of the last track that used it
        _ = applyGain(s, source: source, now: now, busGain: engine.core.busGain(.music))
        ALCheck.after("configuring a music source")
    }

    /// Mono tracks pan by direction (as voices do, instantly); stereo tracks pan by balance when
    /// their samples are queued (see ``MusicTrack/pan``).
    private func applyPan(_ s: TrackStream, source: ALuint) {
        let p = s.channels == 1 ? PlayOptions.panPosition(s.pan) : Vector3(0, 0, -1)
        alSource3f(source, AL_POSITION, p.x, p.y, p.z)
    }

    /// Sets AL_GAIN from volume, fade and `busGain` (the music bus's) when it differs from the gain
    /// last set on the source; returns true when a fade that stops the track has just completed.
    private func applyGain(_ s: TrackStream, source: ALuint, now: Double, busGain: Float) -> Bool {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        var stop = false
        // Fades run in playback time: frozen while the track is not playing.
        if s.state == .playing { s.fade?.thaw(at: now) } else { s.fade?.freeze(at: now) }
        if let f = s.fade {
            let (v, done) = f.volume(at: now)
            s.volume = v
            if done {
                s.fade = nil
                stop = f.stopsAtEnd
                if stop, let restore = f.restoreVolume { s.pendingRestore = restore }
            }
        }
        let gain = s.volume * busGain
        // Each alSourcef is a property update inside OpenAL; most frames and pumps change nothing.
        if s.appliedGain != gain {
            alSourcef(source, AL_GAIN, gain)
            s.appliedGain = gain
        }
        return stop
    }

    private func stopAfterFade(_ s: TrackStream, engine: AudioEngine, pending: inout [Pending]) {
        let position = currentFrameLocked(s, engine: engine)
        end(s, reason: .stopped, error: nil, engine: engine, pending: &pending)
        s.idlePosition = position
        if let restore = s.pendingRestore { s.volume = restore }
        s.pendingRestore = nil
    }

    /// One pump of one stream. `musicGain` is the music bus gain of this pump: nil until the first
    /// track reads it (under the AL lock).
    private func service(_ s: TrackStream, engine: AudioEngine, now: Double, renderFrames: Int, musicGain: inout Float?,
                         pending: inout [Pending]) {
        assertLocked()
        guard let source = s.source else { return }
        var state: ALint = 0, offset: ALint = 0
        var fadedOut = false
        let alive = engine.withAL { () -> Bool in
            // A lost device stops every source: that is no underrun, and nothing is played
            // until the engine rebuilds (then ``reattach(engine:)`` refills from the position).
            guard !engine.core.isShutDown, !engine.core.isDeviceLost, engine.core.device.isConnected else { return false }
            unqueueProcessed(s, source: source)
            alGetSourcei(source, AL_SOURCE_STATE, &state)
            alGetSourcei(source, AL_SAMPLE_OFFSET, &offset)
            let gain = musicGain ?? engine.core.busGain(.music)
            musicGain = gain
            fadedOut = applyGain(s, source: source, now: now, busGain: gain)
            return true
        }
        guard alive else { return }
        if state == AL_PLAYING {
            s.lastHeardFrame = s.fileFrame(atQueueOffset: Int(offset))
            s.lastHeardClock = now
        }
        if fadedOut {
            stopAfterFade(s, engine: engine, pending: &pending)
            return
        }
        var restart = false
        if s.state == .playing, state == AL_STOPPED {
            if s.exhausted {
                endNaturally(s, engine: engine, pending: &pending)
                return
            }
            // Stopped while data remains: the queue ran dry before a refill.
            s.underruns += 1
            underruns += 1
            offset = 0
            restart = true
        }
        let staged = decodeAhead(s, engine: engine, renderFrames: renderFrames, aheadNow: s.queuedFrames - Int(offset))
        if !staged.isEmpty || restart {
            engine.withAL {
                guard !engine.core.isShutDown else { return }
                uploadAll(staged, to: s, source: source)
                if restart, !s.queue.isEmpty { alSourcePlay(source) }
                ALCheck.after("queueing music buffers")
            }
        }
        if restart { endIfDrained(s, engine: engine, pending: &pending) }
        // A track queued to play after this one starts once this one has queued its last frame,
        // behind a silent lead-in as long as what this one has left.
        if s.exhausted, s.failure == nil, let follower = s.next, follower.waiting {
            s.next = nil
            follower.waiting = false
            startFollower(follower, after: s, engine: engine, pending: &pending)
        }
    }

    private func startFollower(_ f: TrackStream, after previous: TrackStream?, engine: AudioEngine, pending: inout [Pending]) {
        guard f.state == .idle else { return }
        do throws(EarshotError) {
            try startQueue(f, engine: engine, leadInAfter: previous)
        } catch {
            f.sessionActive = true
            pending.append((f, MusicTrack.Event(reason: .failed, error: error, path: f.path), f.onEnd))
            f.sessionActive = false
            return
        }
        f.sessionActive = true
        f.state = .playing
        if let source = f.source {
            engine.withAL {
                guard !engine.core.isShutDown else { return }
                if !f.queue.isEmpty { alSourcePlay(source) }
                ALCheck.after("starting a music source")
            }
        }
        endIfDrained(f, engine: engine, pending: &pending)
    }

    /// Ends a stream that has nothing queued and nothing more to decode (an empty or failed start).
    private func endIfDrained(_ s: TrackStream, engine: AudioEngine, pending: inout [Pending]) {
        guard s.source != nil, s.queue.isEmpty, s.exhausted else { return }
        endNaturally(s, engine: engine, pending: &pending)
    }

    /// Ends `s` as its data ran out: `.finished`, or `.failed` with the error that ended its decoding.
    private func endNaturally(_ s: TrackStream, engine: AudioEngine, pending: inout [Pending]) {
        end(s, reason: s.failure == nil ? .finished : .failed, error: s.failure, engine: engine, pending: &pending)
    }

    /// Releases the stream's source and buffers and queues its end event (once per session).
    private func end(_ s: TrackStream, reason: MusicTrack.Event.Reason, error: EarshotError?, engine: AudioEngine, pending: inout [Pending]) {
        assertLocked()
        releaseAL(s, engine: engine)
        s.state = .idle
        s.heldBySession = false
        if let f = s.fade {
            // A fade in flight when the track ends lands on its target.
            s.volume = f.to
            s.fade = nil
        }
        active.removeAll { $0 === s }
        if reason != .stopped { s.idlePosition = 0 }   // a finished track plays again from the start
        if s.sessionActive {
            s.sessionActive = false
            pending.append((s, MusicTrack.Event(reason: reason, error: error, path: s.path), s.onEnd))
        }
        if let follower = s.next {
            s.next = nil
            if reason != .stopped, follower.waiting {
                follower.waiting = false
                startFollower(follower, after: nil, engine: engine, pending: &pending)
            } else {
                follower.waiting = false
            }
        }
    }

    private func cancelWaiting(_ s: TrackStream) {
        guard s.waiting else { return }
        s.waiting = false
        for a in active where a.next === s { a.next = nil }
    }

    private func releaseAL(_ s: TrackStream, engine: AudioEngine) {
        guard let source = s.source else { return }
        guard !suspended else {
            // The device is lost: its sources and buffers go with the old context and device
            // (the engine already handed out fresh music sources, or will at the rebuild).
            forgetAL(s)
            return
        }
        engine.withAL {
            guard !engine.core.isShutDown else { return }
            alSourceStop(source)
            alSourcei(source, AL_BUFFER, 0)
            let names = s.freeBuffers + s.queue.map(\.buffer)
            if !names.isEmpty { alDeleteBuffers(ALsizei(names.count), names) }
            ALCheck.after("releasing a music source and its buffers")
            engine.core.releaseMusicSource(source)
        }
        forgetAL(s)
    }

    /// Drops the stream's source, queue, spare buffers and meter history without any AL call:
    /// after ``releaseAL(_:engine:)`` has freed them, or after a device loss destroyed them.
    private func forgetAL(_ s: TrackStream) {
        s.source = nil
        s.appliedGain = nil
        s.queue.removeAll()
        s.freeBuffers.removeAll()
        s.history.removeAll()
    }

    /// Unqueues the buffers OpenAL has played (AL lock held).
    private func unqueueProcessed(_ s: TrackStream, source: ALuint) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        var processed: ALint = 0
        alGetSourcei(source, AL_BUFFERS_PROCESSED, &processed)
        guard processed > 0 else { return }
        // This runs on every pump: the names go on the stack rather than into a new array.
        withUnsafeTemporaryAllocation(of: ALuint.self, capacity: Int(processed)) { names in
            guard let base = names.baseAddress else { return }
            names.initialize(repeating: 0)   // as before: a failed unqueue leaves 0s, which the check below traps
            alSourceUnqueueBuffers(source, processed, base)
            for name in names {
                precondition(!s.queue.isEmpty && s.queue[0].buffer == name, "music queue out of step with OpenAL's")  // trap: engine bug
                let e = s.queue.removeFirst()
                s.freeBuffers.append(e.buffer)
                if s.meteringEnabled, e.samples != nil { s.history.append(e) }
            }
        }
        if s.meteringEnabled { s.trimHistory(window: meterWindowFrames(s)) } else { s.history.removeAll() }
    }

    /// Uploads chunks into buffers and queues them (AL lock held). An OpenAL failure (out of
    /// memory) ends the stream's decoding with that error.
    private func uploadAll(_ chunks: [StagedChunk], to s: TrackStream, source: ALuint) {
        assertLocked()
        ALGlobal.lock.assertHeld("music AL work outside the AL lock")
        for chunk in chunks {
            ALCheck.expectNoPending(before: "queueing a music buffer")
            var buffer: ALuint = 0
            if let b = s.freeBuffers.popLast() {
                buffer = b
            } else {
                alGenBuffers(1, &buffer)
                let code = alGetError()
                guard code == AL_NO_ERROR else {
                    s.failure = .openAL(operation: "alGenBuffers (music)", code: code)
                    s.exhausted = true
                    return
                }
            }
            let format = s.channels == 1 ? AL_FORMAT_MONO_FLOAT32 : AL_FORMAT_STEREO_FLOAT32
            let data = s.channels == 2 && s.pan != 0 ? Self.balanced(chunk.samples, pan: s.pan) : chunk.samples
            data.withUnsafeBytes { alBufferData(buffer, format, $0.baseAddress, ALsizei($0.count), ALsizei(s.fileRate)) }
            alSourceQueueBuffers(source, 1, &buffer)
            let code = alGetError()
            guard code == AL_NO_ERROR else {
                s.freeBuffers.append(buffer)
                s.failure = .openAL(operation: "queueing a music buffer", code: code)
                s.exhausted = true
                return
            }
            s.queue.append(QueuedBuffer(buffer: buffer, frames: chunk.frames, segments: chunk.segments,
                                        samples: s.meteringEnabled ? chunk.samples : nil))
            framesQueued += chunk.frames
        }
    }

    /// Balance for stereo: the far side is attenuated linearly, the near side stays at unity.
    private static func balanced(_ samples: [Float], pan: Float) -> [Float] {
        let left: Float = pan > 0 ? 1 - pan : 1
        let right: Float = pan < 0 ? 1 + pan : 1
        var out = samples
        out.withUnsafeMutableBufferPointer { buf in
            var i = 0
            while i + 1 < buf.count {
                buf[i] *= left
                buf[i + 1] *= right
                i += 2
            }
        }
        return out
    }

    /// `AL_SAMPLE_OFFSET` of the stream's source after unqueueing what was played; nil without a source.
    private func queueOffset(_ s: TrackStream, engine: AudioEngine) -> Int? {
        guard let source = s.source else { return nil }
        return engine.withAL { () -> Int? in
            guard !engine.core.isShutDown else { return nil }
            unqueueProcessed(s, source: source)
            var offset: ALint = 0
            alGetSourcei(source, AL_SAMPLE_OFFSET, &offset)
            return Int(offset)
        }
    }

    private func currentFrameLocked(_ s: TrackStream, engine: AudioEngine) -> Int {
        assertLocked()
        // While the device is lost, the position saved at the loss (or set by a seek since).
        if suspended { return s.idlePosition }
        guard let offset = queueOffset(s, engine: engine) else { return s.idlePosition }
        return s.fileFrame(atQueueOffset: offset)
    }

    private func deliver(_ pending: [Pending]) {
        for p in pending {
            p.stream.continuation.yield(p.event)
            if let callback = p.callback {
                let event = p.event
                DispatchQueue.global().async { callback(event) }
            }
        }
    }

    private func startThreadIfLive(_ engine: AudioEngine) {
        guard !engine.isLoopback, !threadStarted else { return }
        threadStarted = true
        let thread = Thread { [weak engine, self] in
            while !self.stopThread.load(ordering: .relaxed) {
                do {
                    guard let e = engine else { return }
                    self.pump(engine: e, renderFrames: 0)
                }
                usleep(Self.streamingPeriodMicroseconds)
            }
        }
        thread.name = "earshot.music"
        thread.qualityOfService = .userInteractive
        thread.start()
    }
}
