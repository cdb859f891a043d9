import COpenAL
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The engine's OpenAL objects and bookkeeping. Touched only under the AL lock with the engine's
/// context current; every method here assumes that. The fields every play reads are
/// `@exclusivity(unchecked)` (Swift's dynamic exclusivity check cost each play ~76 instructions
/// per field in callgrind counts); the rest keep the checks (no difference measured in `earshot
/// stress`). It holds the voice kernel (``pool``, Voices/) and the stages beside it (``stages``);
/// its own files: clips, a resolved play handed to the kernel or to the curves, the frame and the
/// listener here; `EngineCore+Buses.swift` (pushing the buses to the voices; ``BusTable`` owns
/// their state), `EngineCore+Mix.swift` (the ``MixHost`` the ``Mixer`` talks through) and
/// `EngineCore+DeviceLoss.swift` (losing and rebuilding the device), `EngineCore+MonitorSource.swift`
/// (what the monitor reads); zones, bus effects and the
/// send router are the ``EnvironmentStage``'s. The mix and the environment step inside the frame
/// as ``CoreStage``s (``stages``). State those files set is internal rather than private.
final class EngineCore {
    // `@exclusivity(unchecked)`: read on every play, touched only under the AL lock (as the
    // pool's columns); each dynamic check cost a play 76 instructions.
    @exclusivity(unchecked) private(set) var isShutDown = false
    /// The device and context in use (replaced when a lost device is reopened).
    var device: OutputDevice
    var context: ALContext
    let configuration: AudioEngine.Configuration
    /// Sources of the voice pool (music makes its own: ``MusicSystem``).
    var voiceSources: [ALuint]
    let pool: VoicePool
    /// The sounds made with ``AudioEngine/makeSound(_:)`` (Sounds/).
    let sounds = SoundTable()
    /// Voices made of several (timeline sounds, following switches: Timelines/).
    let timelines = TimelineTable()
    /// Every random choice of the engine (sound selection and variation), seeded by
    /// ``AudioEngine/Configuration/randomSeed``.
    @exclusivity(unchecked) var random: SplitMix64
    @exclusivity(unchecked) var clips: [ClipSlot] = []
    /// The engine's identity (``EngineLink/id``), stamped on every ``Clip`` it makes; a clip with
    /// another engine's identity is refused with ``EarshotError/wrongEngine``.
    let engineID: UInt64
    var freeClipIDs: [UInt32] = []
    /// Snapshots and sidechain duckings (Mix/, EngineCore+Mix.swift): a stage before the voices.
    let mixer = Mixer()
    /// Live per-bus and master loudness from the mix's estimates (Loudness/): a stage after the voices.
    let busLoudness = BusLoudness()
    /// Reverb zones, bus effects, the sends' router and what the context offers for them
    /// (Environment/): a stage after the voices.
    let environment: EnvironmentStage
    /// Game parameters: their values and seeks, and the curves of sounds, layers and buses on
    /// the voices (Parameters/): a stage before the voices, and its filters' stage after them.
    let parameters: ParameterStage
    /// Rooms, portals and each positioned voice's path through them (Rooms/): a stage after the voices.
    let rooms = RoomStage()
    /// The parts of the core's frame beside the voice pool, in the order they step, rebuild and
    /// tear down (see ``CoreStage``).
    let stages: [any CoreStage]
    /// Bus changes the subsystems have not heard of yet (see ``BusChanges``): gathered by
    /// ``syncBuses()`` and ``AudioEngine/stopAll(on:)``, taken by the engine after the AL section
    /// that made them (``AudioEngine/changingBuses(_:)``, ``AudioEngine/update(deltaTime:)``).
    var busChanges = BusChanges()
    /// Buffers of unloaded clips, deleted once no voice plays them any more.
    var buffersToDelete: [(clipID: UInt32, buffer: ALuint, channels: ClipChannelBuffers)] = []
    /// The listeners (Listeners/): the first is OpenAL's, ``listener``.
    let listeners: ListenerTable
    /// The first listener: OpenAL's.
    var listener: Listener { listeners.first }
    /// The buses' state (Buses/): the core reads it and pushes each change to the voices.
    let busTable = BusTable()
    /// The VCAs (Buses/VCATable.swift): a stage before the voices while a VCA fades.
    let vcaTable = VCATable()
    /// The master gain over every bus (applied through the listener's AL gain).
    var masterGain: Float = 1
    let isLoopback: Bool
    /// Whether clips keep their samples for a device loss (``AudioEngine/Configuration/keepsClipsForRecovery``;
    /// by default only on devices that can be lost).
    let keepsClipsForRecovery: Bool
    let sampleRate: Int
    /// Frames rendered so far (loopback clock).
    private(set) var renderedFrames: Int = 0
    /// Seconds of output heard (Time/AudioClock.swift): frozen while an interruption holds the
    /// audio or the device is lost. ``audioTime`` reads it.
    var audioClock: AudioClock { didSet { audioNow.frame = -1 } }   // a reading kept is stale
    /// Loopback: the audio time of the frame rendered next, read at the end of each render and
    /// shared by the plays until the next (``startAudioTime(delay:mixTarget:)``); frame −1: none
    /// kept (the clock moved, held or restarted since).
    @exclusivity(unchecked) var audioNow: (frame: Int, time: Double) = (-1, 0)
    private let liveClockStart: Double
    private var lastUpdateClock: Double = 0
    private(set) var lastFrameTime: Double = 0
    /// Live: the engine time and the audio time read together at most 50 ms ago, and the
    /// device's output latency then (Time/EngineCore+VoiceTime.swift); 0 on loopback.
    var liveAnchor: (engine: Double, audio: Double) = (0, 0)
    var outputLatency: Double = 0
    /// Clip markers voices passed, collected under the lock and sent by the engine after it.
    var voiceMarkers: [(id: VoiceID, name: String, time: Double)] = []
    /// Odd while an ``AudioEngine/batch(_:)`` call runs; each call moves it on twice, so a
    /// ``AudioEngine/Batch`` kept past its call never matches it again.
    var batchEpoch: UInt64 = 0

    struct ClipSlot {
        var generation: UInt32 = 0
        var buffer: ALuint = 0
        var info: ClipInfo?
        /// The uploaded samples, kept to upload them again after the device is lost and reopened
        /// (OpenAL cannot give a buffer's data back), when ``keepsClipsForRecovery``. Shares
        /// storage with the decoder's output.
        var pcm: PCMAudio?
        /// The clip's level envelope, for the sidechain's detector (Mix/ClipLevels.swift).
        var levels = ClipLevels.empty
        /// Its K-weighted power envelope, for the live bus loudness (Loudness/KWeightedLevels.swift).
        var loudnessLevels = KWeightedLevels.empty
        /// A stereo clip's channels as mono buffers (none for a mono clip): what a 2D stereo
        /// voice plays on its two sources (EngineCore+ClipChannels.swift).
        var channels = ClipChannelBuffers()
    }

    init(engineID: UInt64, device: OutputDevice, context: ALContext, voiceSources count: Int,
         configuration: AudioEngine.Configuration) throws(EarshotError) {
        self.engineID = engineID
        sounds.engineID = engineID
        self.device = device
        self.context = context
        self.configuration = configuration
        listeners = ListenerTable(dopplerFactor: configuration.dopplerFactor, speedOfSound: configuration.speedOfSound)
        var system = SystemRandomNumberGenerator()
        random = SplitMix64(seed: configuration.randomSeed ?? system.next())
        voiceSources = try ALSourceNames.generate(count)
        parameters = ParameterStage(capacity: count + configuration.maxVirtualVoices)
        environment = EnvironmentStage(device: device.handle, zoneSends: configuration.zoneSends)
        stages = [mixer, vcaTable, parameters, environment, ParameterFilterStage(parameters: parameters), timelines, rooms, busLoudness]
        isLoopback = device.isLoopback
        keepsClipsForRecovery = configuration.keepsClipsForRecovery ?? !device.isLoopback
        sampleRate = context.sampleRate
        liveClockStart = Self.monotonic()
        let heard = device.isLoopback ? nil : device.heardClock()
        usesDeviceClock = heard != nil
        lastHeard = heard ?? 0
        audioClock = AudioClock(start: heard ?? 0)   // 0 now, whichever clock it reads
        let settle = isLoopback ? 0 : 2 / Double(max(device.integer(ALC_REFRESH), 1))
        pool = VoicePool(sources: voiceSources, settings: .init(
            fadeTime: configuration.fadeTime, audibilityFloor: configuration.audibilityFloor,
            lateStartTolerance: configuration.lateStartTolerance,
            maxVirtualVoices: configuration.maxVirtualVoices, settleTime: settle),
            distanceModel: configuration.distanceModel, router: environment.sendRouter)
        syncBuses()
        busChanges = BusChanges()   // the buses as they start are no change
        // A handle's gain on a part under curves is that part's own (Timelines/ knows no curves).
        timelines.setOwnLevels { [parameters, pool] id, gain, pitch, now in
            parameters.voices.setOwn(id, gain: gain, pitch: pitch, stage: parameters, pool: pool, now: now)
        }
        try applyGlobalState()
    }

    /// Distance model, doppler and listener: the context-wide state.
    func applyGlobalState() throws(EarshotError) {
        pool.setStereoPairPanning(!context.hrtfEnabled && (device.loopbackFormat?.channels.rawValue ?? 2) == 2)
        alDistanceModel(configuration.distanceModel.alValue)
        alDopplerFactor(configuration.dopplerFactor)
        alSpeedOfSound(configuration.speedOfSound)
        try ALCheck.strict("engine setup")
        setListener(listener)
    }

    static func monotonic() -> Double { Clocks.monotonic() }

    /// What the output says it has played, seconds (the audio clock's source): frames rendered ÷
    /// the rate on loopback; on a live device its clock minus its latency when it reports one
    /// (``OutputDevice/heardClock()``), else the engine clock.
    var heardSource: Double {
        if isLoopback { return Double(renderedFrames) / Double(sampleRate) }
        guard usesDeviceClock else { return now }
        if let heard = device.heardClock() { lastHeard = heard }   // a failed read repeats the last one
        return lastHeard
    }
    /// Whether the live device reports its clock (read at start and after a rebuild).
    var usesDeviceClock = false
    var lastHeard: Double = 0

    /// The audio clock now: seconds of output heard since the engine started (see
    /// ``AudioEngine/audioTime``).
    /// On loopback the reading is kept for the plays until the next render (``audioNow``).
    func audioTime() -> Double {
        let t = audioClock.time(source: heardSource)
        if isLoopback, !audioClock.isHeld { audioNow = (renderedFrames, t) }   // after the didSet that dropped it
        return t
    }

    /// When a play starting after `delay` (engine clock) is heard, on the audio clock
    /// (``Voice/startTime``). On loopback, without an exact start, the reading of the clock kept
    /// since the last render plus the delay: a play reads no clock (a read per play made
    /// `play(clip)` about 3 % dearer in instructions). Otherwise: `readStartAudioTime` (Time/).
    @inline(__always)
    func startAudioTime(delay: Double, mixTarget: Double) -> Double {
        if isLoopback, !mixTarget.isFinite, audioNow.frame == renderedFrames { return audioNow.time + delay }
        return readStartAudioTime(delay: delay, mixTarget: mixTarget)
    }

    /// The engine clock in seconds: frames rendered on loopback, monotonic time on a live device.
    var now: Double {
        isLoopback ? Double(renderedFrames) / Double(sampleRate) : Self.monotonic() - liveClockStart
    }

    func teardown() {
        guard !isShutDown else { return }
        isShutDown = true
        pool.endAll()
        for s in voiceSources { alSourceStop(s); alSourcei(s, AL_BUFFER, 0) }
        if !voiceSources.isEmpty { alDeleteSources(ALsizei(voiceSources.count), voiceSources) }
        pool.deleteSilenceBuffers()   // after the sources that queued them
        for stage in stages { stage.teardown(self) }   // after the sources that sent to their slots are gone
        for c in clips where c.info != nil {
            var b = c.buffer
            alDeleteBuffers(1, &b)
            Self.delete(c.channels)
        }
        for pending in buffersToDelete {
            var b = pending.buffer
            alDeleteBuffers(1, &b)
            Self.delete(pending.channels)
        }
        buffersToDelete.removeAll()
        clips.removeAll()
        ALCheck.after("tearing down the engine's sources and buffers")
    }

    // MARK: Clips

    func upload(_ pcm: PCMAudio, name: String) throws(EarshotError) -> Clip {
        // OpenAL takes the size as a 32-bit count: never let a conversion trap.
        guard pcm.byteCount <= ClipDecoder.Options.maxBytesCeiling else {
            throw .tooLarge(name: name, what: "an OpenAL buffer", size: pcm.byteCount,
                            limit: ClipDecoder.Options.maxBytesCeiling, setting: "OpenAL's 32-bit buffer size")
        }
        ALCheck.expectNoPending(before: "uploading a clip")
        let buffer = try Self.makeBuffer(pcm, name: name)
        let channels: ClipChannelBuffers
        do {
            channels = try Self.makeChannelBuffers(pcm, name: name)
        } catch {
            var b = buffer
            alDeleteBuffers(1, &b)
            throw error
        }
        let info = ClipInfo(name: name, sampleRate: pcm.sampleRate, channels: pcm.channels, frameCount: pcm.frameCount,
                            byteCount: pcm.byteCount, isFloat: { if case .float32 = pcm.samples { return true } else { return false } }())
        let id: UInt32
        if let reused = freeClipIDs.popLast() {
            id = reused
        } else {
            id = UInt32(clips.count)
            clips.append(ClipSlot())
        }
        clips[Int(id)].buffer = buffer
        clips[Int(id)].channels = channels
        clips[Int(id)].info = info
        clips[Int(id)].pcm = keepsClipsForRecovery ? pcm : nil
        clips[Int(id)].levels = ClipLevels.measure(pcm)
        clips[Int(id)].loudnessLevels = KWeightedLevels.measure(pcm)
        return Clip(engineID: engineID, id: id, generation: clips[Int(id)].generation, info: info)
    }

    func isLoaded(_ clip: Clip) -> Bool {
        clip.engineID == engineID && Int(clip.id) < clips.count && clips[Int(clip.id)].generation == clip.generation && clips[Int(clip.id)].info != nil
    }

    /// Unloads a clip: the handle goes stale at once; voices playing it fade out (the steal fade)
    /// and the buffer is deleted when the last of them has stopped.
    func unload(_ clip: Clip) {
        guard isLoaded(clip) else { return }
        pool.stopAll { $0.clipID == clip.id }
        buffersToDelete.append((clip.id, clips[Int(clip.id)].buffer, clips[Int(clip.id)].channels))
        clips[Int(clip.id)].channels = ClipChannelBuffers()
        clips[Int(clip.id)].generation &+= 1
        clips[Int(clip.id)].info = nil
        clips[Int(clip.id)].pcm = nil
        clips[Int(clip.id)].levels = .empty
        clips[Int(clip.id)].loudnessLevels = .empty
        clips[Int(clip.id)].buffer = 0
        collectBuffers()
    }

    /// Deletes the buffers of unloaded clips that no voice holds any more. Not while the device
    /// is lost: its stopped sources may still hold the buffer (deleting it is then
    /// AL_INVALID_OPERATION, a trap), and the rebuild drops the pending buffers with the old
    /// context (`reuploadClips`).
    private func collectBuffers() {
        guard !buffersToDelete.isEmpty, !isDeviceLost else { return }
        var i = 0
        while i < buffersToDelete.count {
            let pending = buffersToDelete[i]
            if pool.count(usingClip: pending.clipID) == 0 {
                pool.detach(buffer: pending.buffer)
                var b = pending.buffer
                alDeleteBuffers(1, &b)
                if pending.channels.left != 0 {
                    pool.detach(buffer: pending.channels.left)
                    pool.detach(buffer: pending.channels.right)
                    Self.delete(pending.channels)
                }
                ALCheck.after("deleting an unloaded clip's buffer")
                freeClipIDs.append(pending.clipID)
                buffersToDelete.remove(at: i)
            } else {
                i += 1
            }
        }
    }

    /// Bytes of clip samples kept in memory to re-upload clips after a device loss.
    var restoreBytes: Int { clips.reduce(0) { $0 + ($1.pcm?.byteCount ?? 0) } }

    /// Bytes of decoded samples in the loaded clips' buffers (``AudioEngine/Configuration/maxTotalClipBytes``).
    var loadedClipBytes: Int { clips.reduce(0) { $0 + ($1.info?.memoryBytes ?? 0) } }

    /// Clips currently loaded.
    var loadedClipCount: Int { clips.reduce(0) { $0 + ($1.info == nil ? 0 : 1) } }

    // MARK: Voices

    /// Starts a voice for a play ``PlayResolver`` resolved in this AL lock section, with its
    /// clip's `markers` (reported as the voice passes them). The markers are handed over here, not
    /// in the `ResolvedPlay`: an array there made every play 12–15 ns dearer (a play into a full
    /// pool, `earshot stress --play-cost`), clips with markers or not.
    func play(_ resolved: ResolvedPlay, markers: [Marker]) -> VoiceID {
        let id = parameters.hasBusCurves ? playOnCurvedBus(resolved) : pool.start(resolved, now: now)
        pool.mark(id, markers: markers, from: resolved.startFrame)
        return id
    }

    /// Some bus has curves: the voice goes through the parameters (Parameters/).
    @inline(never)
    private func playOnCurvedBus(_ resolved: ResolvedPlay) -> VoiceID { parameters.play(resolved, set: -1, in: self) }

    // MARK: Frame

    /// The game-frame step: rank voices, steal, resume, push every change in one AL batch.
    func stepFrame() {
        let t = now
        lastFrameTime = t - lastUpdateClock
        lastUpdateClock = t
        let time = CoreFrameTime(now: t, elapsed: lastFrameTime)
        alDeferUpdatesSOFT()
        sounds.releaseHeld(pool: pool)
        for stage in stages where stage.phase == .beforeVoices { stage.step(self, time: time) }
        pool.schedule(now: t)
        // Live: voices due before the next update start now with a lead-in (VoicePool+LiveStarts).
        if !isLoopback, usesDeviceClock, !isDeviceLost, pool.hasPendingStarts {
            pool.startAhead(now: t, horizon: min(max(2 * lastFrameTime, 0.03), 0.25)) { device.mixClock() }
        }
        if pool.hasSettlingLeadIns { pool.settleLeadIns() }
        // On a live device the next service is the next frame: fade over about one frame.
        if pool.needsService {
            pool.service(now: t, lookahead: isLoopback ? 0 : min(max(lastFrameTime, 0.001), 0.1))
        }
        for stage in stages where stage.phase == .afterVoices { stage.step(self, time: time) }
        alProcessUpdatesSOFT()
        // Live: the markers heard before the next update (on loopback, each render reports its own).
        if !isLoopback { scanVoiceMarkers(until: heardEngineTime + min(max(lastFrameTime, 0.001), 0.1)) }
        collectBuffers()
        ALCheck.after("update")
    }

    /// Renders `frames` frames on a loopback device into `buffer`, cutting the render at fade
    /// boundaries so that every fade lasts what it should.
    func render(into buffer: UnsafeMutableBufferPointer<Float>, channels: Int) {
        let device = self.device.handle
        let frames = buffer.count / channels
        scanVoiceMarkers(until: now + Double(frames) / Double(sampleRate))   // reported before they play
        var done = 0
        while done < frames {
            var chunk = min(frames - done, 4096)
            // Scheduled starts: a voice whose start frame has come starts now, and this mix call
            // ends where the next one is due, so each starts on its frame.
            if var next = pool.nextPendingStart() {
                if Int((next * Double(sampleRate)).rounded()) <= renderedFrames {
                    alDeferUpdatesSOFT()
                    pool.startDue(now: now, frameDuration: 1 / Double(sampleRate))
                    alProcessUpdatesSOFT()
                    next = pool.nextPendingStart() ?? .infinity
                }
                if next.isFinite {
                    chunk = min(chunk, max(1, Int((next * Double(sampleRate)).rounded()) - renderedFrames))
                }
            }
            if pool.needsService {
                if let boundary = pool.nextFadeBoundary() {
                    chunk = min(chunk, 2048, max(16, Int((boundary * Double(sampleRate)).rounded(.up))))
                }
                let t = now
                let span = Double(chunk) / Double(sampleRate)
                alDeferUpdatesSOFT()
                pool.service(now: t, lookahead: span, recordingEndsAt: t)
                alProcessUpdatesSOFT()
            }
            // A mix call never crosses the end of a reverb cross-fade except exactly at it
            // (OpenAL Soft 1.19.1 crashes otherwise: ReverbDomain.crossFadeKey).
            if let fadeLeft = environment.crossFadeFramesLeft { chunk = min(chunk, fadeLeft) }
            alcRenderSamplesSOFT(device, buffer.baseAddress.map { $0 + done * channels }, ALCsizei(chunk))
            renderedFrames += chunk
            done += chunk
            environment.rendered(frames: chunk)
        }
        collectBuffers()
        _ = audioTime()   // the reading the plays until the next render share (startAudioTime)
        ALCheck.after("render")
    }

    // MARK: State the other EngineCore files set (+DeviceLoss)

    /// The output device is lost: voices go virtual until a rebuild.
    var isDeviceLost = false

    // MARK: Listener

    func setListener(_ l: Listener) {
        listeners.setFirst(l, host: self)
    }

    /// OpenAL's listener (the first), and the voice kernel's copy of its pose
    /// (``ListenerHost/applyALListener(_:)``).
    func applyALListener(_ l: Listener) {
        pool.setListenerPose(position: l.position, at: l.at, up: l.up)
        alListener3f(AL_POSITION, l.position.x, l.position.y, l.position.z)
        alListener3f(AL_VELOCITY, l.velocity.x, l.velocity.y, l.velocity.z)
        var orientation: [ALfloat] = [l.at.x, l.at.y, l.at.z, l.up.x, l.up.y, l.up.z]
        alListenerfv(AL_ORIENTATION, &orientation)
        alListenerf(AL_GAIN, l.gain * masterGain)
        ALCheck.after("setting the listener")
    }
}
