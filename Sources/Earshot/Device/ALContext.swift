import COpenAL
import Synchronization

/// An OpenAL context on an ``OutputDevice``, with what OpenAL granted and what it offers.
///
/// OpenAL's current context is process-wide. Earshot serialises every AL call of every engine in
/// the process behind one lock (``ALContext/withCurrent(_:)``), which also makes this context
/// current when another engine's was: several engines can live in one process (tests do), and
/// no thread-local context ever pins a closed device.
///
/// ```swift
/// let device = try OutputDevice.open(.loopback(sampleRate: 48_000))
/// let context = try ALContext(device: device, request: .init(monoSources: 1024))
/// print(context.grantedMonoSources)   // 1024
/// ```
public final class ALContext: @unchecked Sendable {
    // @unchecked Sendable: `destroyed` is read and written only under the AL lock; the rest are
    // constants read at creation.
    /// What to ask OpenAL for when creating the context.
    public struct Request: Sendable, Equatable {
        /// Sources for mono buffers (the voice pool). OpenAL Soft 1.19.1 grants at least 255.
        public var monoSources: Int
        /// Sources for stereo buffers (music tracks).
        public var stereoSources: Int
        /// HRTF rendering (`ALC_HRTF_SOFT`); honoured on stereo output only.
        public var hrtf: Bool
        /// Auxiliary sends per source to ask for (`ALC_MAX_AUXILIARY_SENDS`, 0…16) on a device
        /// with EFX: one per reverb zone a voice can be heard in at once.
        public var auxiliarySends: Int

        public init(monoSources: Int = 255, stereoSources: Int = 1, hrtf: Bool = false, auxiliarySends: Int = 2) {
            self.monoSources = monoSources
            self.stereoSources = stereoSources
            self.hrtf = hrtf
            self.auxiliarySends = auxiliarySends
        }
    }

    let handle: OpaquePointer
    private let key: UInt
    /// The device the context renders on.
    public let device: OutputDevice
    /// Mono sources OpenAL granted (`ALC_MONO_SOURCES` read back).
    public let grantedMonoSources: Int
    /// Stereo sources OpenAL granted (`ALC_STEREO_SOURCES` read back).
    public let grantedStereoSources: Int
    /// Whether HRTF is active on the device (`ALC_HRTF_STATUS_SOFT`).
    public let hrtfEnabled: Bool
    /// The device's mixing rate in Hz (`ALC_FREQUENCY`).
    public let sampleRate: Int
    /// Whether OpenAL Soft's output limiter (`ALC_OUTPUT_LIMITER_SOFT`) is on: Earshot asks for
    /// it on every real device. It is off on loopback devices, whose renders
    /// ``AudioEngine/render(into:)`` limits itself without OpenAL's 1 ms delay.
    public let outputLimiterEnabled: Bool
    /// The AL extensions of the context, read once.
    public let extensions: Set<String>
    /// `AL_VERSION`, `AL_RENDERER` and `AL_VENDOR`.
    public let version: String, renderer: String, vendor: String
    private var destroyed = false
    /// Whether OpenAL offers per-thread contexts (`ALC_EXT_thread_local_context`).
    let hasThreadContexts: Bool

    /// Creates a context. Throws ``EarshotError/contextCreationFailed(detail:)`` when OpenAL refuses.
    public init(device: OutputDevice, request: Request) throws(EarshotError) {
        guard request.monoSources >= 0, request.stereoSources >= 0, request.monoSources + request.stereoSources <= 65_536 else {
            throw .invalidArgument("source request \(request.monoSources)+\(request.stereoSources) is outside 0…65536")
        }
        var attributes: [ALCint] = [
            ALC_MONO_SOURCES, ALCint(request.monoSources),
            ALC_STEREO_SOURCES, ALCint(request.stereoSources),
        ]
        if device.extensions.contains("ALC_SOFT_HRTF") {
            attributes += [ALC_HRTF_SOFT, request.hrtf ? ALC_TRUE : ALC_FALSE]
        }
        if alcIsExtensionPresent(device.handle, "ALC_EXT_EFX") != 0 {
            attributes += [ALCint(ALC_MAX_AUXILIARY_SENDS), ALCint(min(max(request.auxiliarySends, 0), 16))]
        }
        // Real devices: OpenAL Soft's output limiter keeps the mix within full scale (it costs
        // 1 ms of latency). Loopback renders are limited by the engine instead, without delay
        // (see OutputLimiter).
        if !device.isLoopback, device.extensions.contains("ALC_SOFT_output_limiter") {
            attributes += [ALC_OUTPUT_LIMITER_SOFT, ALC_TRUE]
        }
        if let format = device.loopbackFormat {
            attributes += [
                ALC_FORMAT_CHANNELS_SOFT, format.channels.alcValue,
                ALC_FORMAT_TYPE_SOFT, ALC_FLOAT_SOFT,
                ALC_FREQUENCY, ALCint(format.sampleRate),
            ]
        }
        attributes.append(0)
        _ = alcGetError(device.handle)
        guard let ctx = alcCreateContext(device.handle, attributes) else {
            let code = alcGetError(device.handle)
            throw .contextCreationFailed(detail: ALErrorName.name(code))
        }
        handle = ctx
        Self.liveCount.add(1, ordering: .relaxed)
        key = ALGlobal.key(ctx)
        self.device = device
        hasThreadContexts = device.extensions.contains("ALC_EXT_thread_local_context")
        grantedMonoSources = device.integer(ALC_MONO_SOURCES)
        grantedStereoSources = device.integer(ALC_STEREO_SOURCES)
        hrtfEnabled = device.extensions.contains("ALC_SOFT_HRTF") && device.integer(ALC_HRTF_STATUS_SOFT) == Int(ALC_HRTF_ENABLED_SOFT)
        sampleRate = device.integer(ALC_FREQUENCY)
        outputLimiterEnabled = device.extensions.contains("ALC_SOFT_output_limiter") && device.integer(ALC_OUTPUT_LIMITER_SOFT) != 0
        let strings: [String] = ALGlobal.lock.withLock { current in
            if current != ALGlobal.key(ctx) {
                alcMakeContextCurrent(ctx)
                current = ALGlobal.key(ctx)
            }
            defer { ALCheck.after("reading a new context's strings") }
            return [AL_EXTENSIONS, AL_VERSION, AL_RENDERER, AL_VENDOR].map { alGetString($0).map { String(cString: $0) } ?? "" }
        }
        extensions = Set(strings[0].split(separator: " ").map(String.init))
        version = strings[1]
        renderer = strings[2]
        vendor = strings[3]
    }

    /// Runs `body` holding the process-wide AL lock with this context current.
    ///
    /// Every AL call Earshot makes goes through here; do not nest it. After ``destroy()`` the body
    /// still runs (under the lock) but no context is current: it must not call OpenAL.
    @inline(__always)
    public func withCurrent<R, E: Error>(_ body: () throws(E) -> R) throws(E) -> R {
        try ALGlobal.lock.withLock { (current: inout UInt) throws(E) -> R in
            makeCurrent(locked: &current)
            return try body()
        }
    }

    /// Makes this context current; the caller holds ``ALGlobal/lock`` and passes its value.
    /// A destroyed context is never made current (its address may be reused by the next
    /// context); callers check the engine's shut-down state themselves.
    @inline(__always)
    func makeCurrent(locked current: inout UInt) {
        if current != key, !destroyed, alcMakeContextCurrent(handle) != 0 {
            current = key
        }
    }

    /// Makes this context the calling thread's own (`alcSetThreadContext`) until
    /// ``unpinThread()``; the caller holds ``ALGlobal/lock``. Returns false (and changes nothing)
    /// when the context is destroyed or the extension is missing.
    @inline(__always)
    func pinToThread() -> Bool {
        guard hasThreadContexts, !destroyed else { return false }
        return alcSetThreadContext(handle) != 0
    }

    /// Clears the calling thread's own context: AL calls go to the global one again.
    @inline(__always)
    static func unpinThread() {
        alcSetThreadContext(nil)
    }

    /// Destroys the context. Safe to call more than once; the device stays open.
    ///
    /// A context that belongs to an ``AudioEngine`` (``AudioEngine/context``) is destroyed by the
    /// engine's ``AudioEngine/shutdown()`` only: `destroy()` on it does nothing but log a warning.
    public func destroy() {
        guard !engineOwned.load(ordering: .acquiring) else {
            EarshotLogging.logger("earshot.device").warning("destroy() on the context of an engine ignored: call engine.shutdown()")
            return
        }
        ALGlobal.lock.withLock { current in destroy(locked: &current) }
    }

    /// Set once an engine plays on this context (before the engine is shared).
    private let engineOwned = Atomic<Bool>(false)

    /// The engine takes the context: from now on only the engine destroys it (``destroy(locked:)``).
    func adoptByEngine() { engineOwned.store(true, ordering: .releasing) }

    /// Destroys the context; the caller holds ``ALGlobal/lock`` and passes its value.
    func destroy(locked current: inout UInt) {
        guard !destroyed else { return }
        destroyed = true
        if current == key || alcGetCurrentContext() == handle {
            alcMakeContextCurrent(nil)
            current = 0
        }
        if hasThreadContexts, alcGetThreadContext() == handle {
            alcSetThreadContext(nil)
        }
        alcDestroyContext(handle)
        Self.liveCount.subtract(1, ordering: .relaxed)
    }

    /// Contexts of the process made through Earshot and not destroyed yet (tests: nothing leaks).
    static let liveCount = Atomic<Int>(0)

    /// Whether the context has the AL extension `name`.
    public func has(_ name: String) -> Bool { extensions.contains(name) }
}

/// The process-wide AL lock and the context it last made current.
enum ALGlobal {
    static let lock = Locked<UInt>(0)
    /// The key under which a context is tracked as current.
    static func key(_ context: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(context))) }
}

/// Starting sources, in the one place the engine starts them: the voice pool's voices, every
/// stream, the stems of a music set. Several sources given together start in one `alSourcePlayv`, which
/// OpenAL Soft applies under one lock of its mixer: they begin on the same mix, sample-aligned
/// (a group of streams, a set's stems, the channels of a stream split over mono sources).
///
/// Call with the AL lock held (debug builds check it).
///
/// ```swift
/// import COpenAL
/// let stems: [ALuint] = []   // sources whose queues are filled
/// engine.withStreamAL { ALContext.start(stems, "starting the stems together") }   // one alSourcePlayv, one check
/// ```
extension ALContext {
    /// Starts `sources` together and checks the call through ``ALCheck/after(_:)``: an error is
    /// a bug (the sources are the engine's own and hold queued buffers). Nothing for an empty list.
    static func start(_ sources: [ALuint], _ operation: @autoclosure () -> String) {
        play(sources)
        ALCheck.after(operation())
    }

    /// Starts one source and checks the call, as ``start(_:_:)``.
    static func start(_ source: ALuint, _ operation: @autoclosure () -> String) {
        play(source)
        ALCheck.after(operation())
    }

    /// Starts `sources` together inside an AL section whose caller checks it once at its end
    /// (as the voice pool's service is, by the engine's `play` and `update`): no check per start
    /// on the pool's hot path, the same failure path at the section's end.
    static func play(_ sources: [ALuint]) {
        ALGlobal.lock.assertHeld("starting sources outside the AL lock")
        switch sources.count {
        case 0: return
        case 1: alSourcePlay(sources[0])
        default: alSourcePlayv(ALsizei(sources.count), sources)
        }
    }

    /// Starts two sources together, in the same mix (a 2D stereo voice's channel pair), inside an
    /// AL section its caller checks (see ``ALContext/play(_:)-([ALuint])``); allocates nothing.
    static func play(_ first: ALuint, _ second: ALuint) {
        ALGlobal.lock.assertHeld("starting sources outside the AL lock")
        var pair = (first, second)
        withUnsafePointer(to: &pair) { $0.withMemoryRebound(to: ALuint.self, capacity: 2) { alSourcePlayv(2, $0) } }
    }

    /// Starts one source inside an AL section its caller checks (see ``ALContext/play(_:)-([ALuint])``).
    static func play(_ source: ALuint) {
        ALGlobal.lock.assertHeld("starting a source outside the AL lock")
        alSourcePlay(source)
    }
}
