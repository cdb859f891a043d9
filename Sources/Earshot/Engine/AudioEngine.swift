import COpenAL
import Foundation
import Logging
import Synchronization

/// The sound manager: an OpenAL device and context, preloaded clips, and voices playing them.
///
/// Create one per output with a ``Configuration``; call ``shutdown()`` when done (the engine also
/// shuts down when released). Every method may be called from any thread: all OpenAL work is
/// serialised behind one lock.
///
/// A loopback engine (`.loopback(sampleRate:)`) mixes only inside ``render(frames:)``, in the
/// calling thread, deterministically and faster than real time: tests and offline rendering use it.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let beep = try engine.loadClip(path: "Assets/Sounds/beep.wav")
/// _ = try engine.play(beep, options: .init(position: Vector3(3, 0, 0)))   // 3 m to the right
/// let stereo = try engine.render(frames: 48_000)                          // one second, interleaved
/// engine.shutdown()
/// ```
public final class AudioEngine: @unchecked Sendable {
    // @unchecked Sendable: `core` is the one stored var, touched only inside `withAL` (the AL lock);
    // every other stored property is a constant, a lock or a thread-safe object (see <doc:Threading>).
    /// The configuration the engine was created with.
    public let configuration: Configuration
    /// Whether the engine renders through a loopback device (fixed for its life).
    public let isLoopback: Bool
    /// The device the engine plays on now (a new one after a lost device was reopened).
    ///
    /// The core is the one owner of the device and the context: this reads its copy under the
    /// AL lock, so it never returns a device the engine has already replaced (after
    /// ``shutdown()`` it returns the closed one).
    public var device: OutputDevice { ALGlobal.lock.withLock { _ in core.device } }
    /// The OpenAL context now (granted sources, extensions, version strings); like ``device``,
    /// never one the engine has already replaced.
    public var context: ALContext { ALGlobal.lock.withLock { _ in core.context } }
    /// Serialises ``shutdown()`` with the device-loss handling of ``update(deltaTime:)``
    /// (noticing a loss, rebuilding on a reopened device, announcing it): once shutdown has
    /// begun nothing is rebuilt or announced, and shutdown returns only after a rebuild in
    /// progress has finished. Recursive, so that a device-event observer may call `shutdown()`.
    /// Taken before the music lock and the AL lock, never while holding them.
    let lifecycle = NSRecursiveLock()
    /// Set at the start of ``shutdown()`` (an audio session made afterwards starts finished).
    let shutDownStarted = Atomic<Bool>(false)
    /// The loopback output's channel count (fixed for the engine's life).
    private let loopbackChannels: Int
    let logger = EarshotLogging.logger("earshot.engine")
    /// Loss detection and background reopening of a live device.
    let recovery = DeviceRecovery()
    /// Every consumer of ``voiceEvents``; finished by ``shutdown()``.
    let voiceEventBroadcast = EventBroadcast<VoiceEvent>(capacity: 1024)
    /// Every consumer of ``markers`` (Time/MarkerEvent.swift); finished by ``shutdown()``.
    let markerBroadcast = EventBroadcast<MarkerEvent>(capacity: 1024)

    /// State touched only under the AL lock (``ALContext/withCurrent(_:)``).
    /// Internal so that extensions in other files (clips, music, session) can reach it; only ever
    /// inside `withAL`.
    var core: EngineCore
    /// What ``Voice`` and ``Emitter`` handles hold: a weak way back to this engine.
    let link = EngineLink()
    /// Streamed music tracks (Sources/Earshot/Music): a subsystem with its own lock, taken
    /// before the AL lock; it makes its own sources.
    let musicSystem: MusicSystem
    /// The master-output meter of a loopback engine (Sources/Earshot/Device/OutputMeter.swift).
    let outputMeter = OutputMeter()
    /// The master output's live loudness (Sources/Earshot/Loudness/OutputLoudnessMeter.swift).
    let loudnessMeter = OutputLoudnessMeter()
    /// The audio session, created on first use (Sources/Earshot/Session/AudioEngine+Session.swift).
    let sessionSlot = SessionSlot()
    /// The tasks awaiting voices' ends (Sources/Earshot/Voices/VoiceCompletions.swift).
    let completions = VoiceCompletions()
    /// Dialogue lines, speakers and subtitles (Sources/Earshot/Dialogue); before music in the
    /// hook order, so that a line due in a render is scheduled before the streams' pump.
    let dialogue = DialogueSystem()
    /// Every ``EngineSubsystem``, in the order their hooks run: made once here, iterated by
    /// ``update(deltaTime:)``, ``render(into:)``, the bus setters, device recovery and
    /// ``shutdown()``. A new subsystem is one more entry.
    let subsystems: [any EngineSubsystem]
    /// Subsystems attached after init (``attach(_:)``), after ``subsystems`` in hook order.
    let attachedSubsystems = Locked<[any EngineSubsystem]>([])
    /// Whether ``attachedSubsystems`` holds any: the hooks skip its lock until one is attached.
    let hasAttachedSubsystems = Atomic<Bool>(false)
    /// Keeps loopback renders within full scale (Sources/Earshot/Device/OutputLimiter.swift);
    /// real devices use OpenAL Soft's own limiter (`ALC_OUTPUT_LIMITER_SOFT`).
    let limiter: Locked<OutputLimiter>
    /// Hears of default-output changes: ``Configuration/defaultOutputSource``, or for a live
    /// `.systemDefault` engine that follows the default output the PulseAudio server's events
    /// (Sources/Earshot/Linux/PulseDefaultOutputSource.swift); nil otherwise.
    let routeWatcher: (any DefaultOutputSource)?

    /// Opens the output and creates the context and the source pool.
    ///
    /// Throws ``EarshotError/noOutputDevice(detail:)`` when there is no device to play on,
    /// ``EarshotError/openAL(operation:code:)`` when OpenAL cannot create the sources, and
    /// ``EarshotError/tooFewSources(granted:musicSources:)`` when the device grants fewer sources than
    /// ``Configuration/musicSources`` plus one voice.
    public init(configuration: Configuration = Configuration()) throws(EarshotError) {
        try configuration.validate()
        self.configuration = configuration
        let device = try OutputDevice.open(configuration.output, followDefault: configuration.followsDefaultOutput)
        let context: ALContext
        do {
            context = try ALContext(device: device, request: configuration.contextRequest)
        } catch {
            device.close()
            throw error
        }
        isLoopback = device.isLoopback
        loopbackChannels = device.loopbackFormat?.channels.rawValue ?? 2
        routeWatcher = configuration.defaultOutputSource ?? (!device.isLoopback && configuration.output == .systemDefault
            && configuration.followsDefaultOutput && OpenALEnvironment.followsDefaultOutput == true ? PulseDefaultOutputSource() : nil)
        limiter = Locked(OutputLimiter(channels: device.loopbackFormat?.channels.rawValue ?? 2,
                                       sampleRate: context.sampleRate, settings: configuration.limiter))
        musicSystem = MusicSystem(sourceCount: configuration.musicSources, fieldSourceCount: configuration.bedSources)
        subsystems = [dialogue, musicSystem, outputMeter, loudnessMeter, sessionSlot, completions]
        let voiceSources = configuration.voiceSourceCount(on: context)
        guard voiceSources >= 1 else {
            // The device capped its sources below what music needs (an `alsoft.conf` `sources`
            // limit, a small hardware device): say so instead of slicing a too-short list.
            let granted = context.grantedMonoSources + context.grantedStereoSources
            context.destroy()
            device.close()
            throw .tooFewSources(granted: granted, musicSources: configuration.musicSources)
        }
        let engineID = link.id
        do {
            core = try context.withCurrent { () throws(EarshotError) -> EngineCore in
                try EngineCore(engineID: engineID, device: device, context: context, voiceSources: voiceSources,
                               configuration: configuration)
            }
        } catch {
            context.destroy()
            device.close()
            throw error
        }
        device.adoptByEngine()
        context.adoptByEngine()
        link.engine = self
        // Every stored property is set: from here a throw runs deinit, whose shutdown() closes
        // what was opened.
        try musicSystem.attach(to: self)
        // Monitor/AudioEngine+Monitor.swift
        try startMonitorIfAsked(output: device.name, sampleRate: context.sampleRate)
        if !isLoopback {
            withAL { recovery.listen(on: core.context) }
        }
        routeWatcher?.start { [weak self] change in self?.defaultOutputChanged(change) }
        logger.debug("OpenAL context: \(context.grantedMonoSources) mono + \(context.grantedStereoSources) stereo sources granted; \(core.voiceSources.count) voice sources, \(configuration.musicSources) music sources")
    }

    deinit {
        shutdown()
    }

    /// Runs `body` under the process-wide AL lock with the engine's current context made current.
    /// Every AL call of the engine (and of its music streamer) goes through here.
    ///
    /// For the span of `body` the context is also this thread's own (`ALC_EXT_thread_local_context`):
    /// OpenAL Soft 1.19.1 then skips the process-wide list lock it otherwise takes inside every
    /// AL call to find the global context — a few tens of nanoseconds per call, which is most of
    /// what a frame of thousands of property pushes costs outside the mixer.
    @inline(__always)
    func withAL<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try ALGlobal.lock.withLock { (current: inout UInt) throws(E) -> R in
            let context = core.context
            context.makeCurrent(locked: &current)
            let pinned = context.pinToThread()
            defer { if pinned { ALContext.unpinThread() } }
            return try body()
        }
    }

    /// Stops everything, releases sources and buffers, destroys the context and closes the device.
    ///
    /// Every subsystem (music, the session) shuts down first, while the core is still alive.
    ///
    /// Idempotent, callable from any thread (also from a device-event observer). When it
    /// returns, nothing the engine started is left: no thread of its own, no device or context
    /// open (a device being reopened after a loss is closed, not announced), no default-output
    /// watcher (an in-process PulseAudio subscription; the engine starts no child process).
    /// Every event stream has finished: ``voiceEvents``, ``deviceEvents``, ``markers``,
    /// ``AudioSession/events`` and each ``MusicTrack/events`` — a `for await` loop over one ends
    /// after the events already buffered, and a stream asked for later is finished at once.
    /// Afterwards every call that needs OpenAL throws ``EarshotError/engineShutDown`` or does
    /// nothing (setters, queries on handles).
    public func shutdown() {
        lifecycle.lock()
        defer { lifecycle.unlock() }
        let first = !shutDownStarted.exchange(true, ordering: .acquiringAndReleasing)
        recovery.cancel()                              // first: no device is reopened from now on
        if first { eachSubsystem { $0.shutdown(self) } }   // music, session: once, before the core is torn down
        routeWatcher?.stop()
        ALGlobal.lock.withLock { current in
            guard !core.isShutDown else { return }
            core.context.makeCurrent(locked: &current)
            core.teardown()
            core.context.destroy(locked: &current)
            core.device.closeAsOwner()
        }
        voiceEventBroadcast.finish()
        markerBroadcast.finish()
        recovery.events.finish()
    }

    /// Whether ``shutdown()`` has run.
    public var isShutDown: Bool { withAL { core.isShutDown } }

    // MARK: Listener

    /// Where the listener is and which way it faces. Invalid values (NaN, a zero orientation) are
    /// ignored and logged, never passed to OpenAL.
    public var listener: Listener {
        get { withAL { core.listener } }
        set {
            guard newValue.isValid else {
                logger.warning("ignored an invalid listener: \(newValue)")
                return
            }
            withAL {
                guard !core.isShutDown else { return }
                core.setListener(newValue)
            }
        }
    }

    // MARK: Frame

    /// Once per game frame: ranks every voice, steals and resumes sources with fades, ends
    /// finished voices, and pushes every changed property to OpenAL in one deferred batch.
    ///
    /// Audio timing follows the engine clock — samples rendered on a loopback engine, the
    /// monotonic clock on a live device — so an irregular frame cannot make voices drift;
    /// `deltaTime` is recorded as the frame time only. Call it from one thread (the game loop);
    /// `play`, `stop` and the setters may be called from any thread meanwhile. Steady state
    /// allocates nothing.
    public func update(deltaTime: Double = 0) {
        eachSubsystem { $0.beginFrame(self) }   // the session's duck ramp
        checkDevice()
        let (ended, changes, marks) = withAL { () -> (Bool, BusChanges, [MarkerEvent]) in
            guard !core.isShutDown else { return (false, BusChanges(), []) }
            core.stepFrame()
            return (core.pool.hasEnded, core.takeBusChanges(), takeVoiceMarkers())
        }
        eachSubsystem { $0.endFrame(self, changes: changes) }   // music: gains, fades, holds
        sendMarkers(marks)
        if ended { deliverVoiceEvents() }
    }

    // MARK: Rendering

    /// The loopback output's channel count (2 for a stereo loopback engine).
    public var outputChannels: Int { loopbackChannels }
    /// The mixing rate in Hz.
    public var sampleRate: Int { context.sampleRate }

    /// Mixes `frames` frames on a loopback engine and returns them interleaved.
    ///
    /// Calling this on an engine that does not play to `.loopback` is a programmer error (trap).
    public func render(frames: Int) throws(EarshotError) -> [Float] {
        precondition(frames >= 0, "render(frames:) with a negative count")
        var out = [Float](repeating: 0, count: frames * outputChannels)
        try out.withUnsafeMutableBufferPointer { (buf) throws(EarshotError) in try render(into: buf) }
        return out
    }

    /// Mixes into caller-owned memory (a whole number of frames), allocating nothing.
    ///
    /// The output never exceeds full scale: OpenAL mixes in float without clipping (200 plays
    /// of one full-scale clip at once reach about 119× full scale), so the mix goes through an
    /// ``OutputLimiter`` — 1 ms of look-ahead within the render, a 10 ms hold, a 0.05 s release
    /// and a ceiling of −0.1 dBFS (``Configuration/limiter``: another ceiling, a true-peak one) —
    /// which leaves a render untouched, bit for bit, while no sample exceeds the ceiling. ``EngineStats/limitedFrames`` counts the frames it turned down. Live devices
    /// use OpenAL Soft's limiter (``ALContext/outputLimiterEnabled``).
    ///
    /// The render is cut at fade boundaries (a stolen voice's 5 ms fade-out lasts 5 ms of
    /// output); between the pieces the engine pushes fades, starts voices on freed sources and
    /// publishes changed properties. Call ``update(deltaTime:)`` once per game frame to rank voices.
    public func render(into buffer: UnsafeMutableBufferPointer<Float>) throws(EarshotError) {
        precondition(isLoopback, "render(into:) needs an engine on .loopback output")
        precondition(buffer.count % outputChannels == 0, "render(into:) needs whole frames")
        let channels = outputChannels
        let frames = buffer.count / channels
        guard frames > 0 else { return }
        eachSubsystem { $0.willRender(self, frames: frames) }   // music pump
        let (ended, marks) = try withAL { () throws(EarshotError) -> (Bool, [MarkerEvent]) in
            guard !core.isShutDown else { throw .engineShutDown }
            core.render(into: buffer, channels: channels)
            return (core.pool.hasEnded, takeVoiceMarkers())
        }
        sendMarkers(marks)   // the render's markers, each with its frame's time
        limiter.withLock { $0.process(buffer) }   // never more than full scale
        eachSubsystem { $0.didRender(self, buffer, channels: channels) }   // output meter
        if ended { deliverVoiceEvents() }
    }
}

/// The one object every handle of an engine shares: it holds the engine weakly, so that handles
/// kept after the engine was discarded do not keep it (and its device and clips) alive, and it
/// outlives the engine, so that a stale handle's identity is never mistaken for a new engine's.
// @unchecked Sendable: no lock is needed — `engine` is written once, in the engine's init, before
// any handle (and so any other thread) can see this object, and afterwards only read; Swift's
// weak references are loaded and zeroed atomically by the runtime.
final class EngineLink: @unchecked Sendable {
    /// Written once, in the engine's init, before any handle exists; then only read.
    weak var engine: AudioEngine?
    /// The engine's identity, unique in the process (never reused, even after the engine is
    /// gone): what ``Clip`` and ``Sound`` handles carry to be refused by another engine.
    let id: UInt64 = EngineLink.counter.wrappingAdd(1, ordering: .relaxed).newValue

    /// The last identity handed out (a 64-bit counter: it does not wrap in practice).
    private static let counter = Atomic<UInt64>(0)
}

/// A handle to an object of one engine (``Voice``, ``Emitter``): its engine's link and the
/// object's identity there. The handle reaches its engine only while the engine exists.
protocol EngineHandle {
    associatedtype ID: Hashable
    var link: EngineLink { get }
    var id: ID { get }
    init(link: EngineLink, id: ID)
}

extension EngineHandle {
    init(engine: AudioEngine, id: ID) { self.init(link: engine.link, id: id) }

    /// The engine while it exists.
    var engine: AudioEngine? { link.engine }

    /// Handles are equal when they name the same object of the same engine (the engines' links,
    /// never reused, tell engines apart).
    func isSameHandle(as other: Self) -> Bool { link === other.link && id == other.id }
    func hashHandle(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(link))
        hasher.combine(id)
    }
}
