import COpenAL
import Logging

/// The engine's OpenAL objects and bookkeeping. Touched only under the AL lock with the engine's
/// context current; every method here assumes that.
final class EngineCore {
    private(set) var isShutDown = false
    /// Sources of the voice pool.
    let voiceSources: [ALuint]
    /// Sources reserved for music, never given to voices.
    let musicSourceNames: [ALuint]
    private var freeSources: [ALuint]
    private var clips: [ClipSlot] = []
    private var freeClipIDs: [UInt32] = []
    private var voices: [VoiceSlot] = []
    private var freeVoiceSlots: [UInt32] = []
    /// Slots with a source, in start order.
    private var active: [UInt32] = []
    private(set) var listener = Listener()
    private var warnedStereoPositioned = Set<UInt32>()

    struct ClipSlot {
        var generation: UInt32 = 0
        var buffer: ALuint = 0
        var info: ClipInfo?
    }

    struct VoiceSlot {
        var generation: UInt32 = 0
        var source: ALuint = 0
        var clipID: UInt32 = 0
        var live = false
    }

    init(voiceSources count: Int, musicSources: Int, configuration: AudioEngine.Configuration) throws(EarshotError) {
        ALCheck.clear()
        let total = count + musicSources
        var names = [ALuint](repeating: 0, count: total)
        if total > 0 {
            alGenSources(ALsizei(total), &names)
            let code = alGetError()
            guard code == AL_NO_ERROR else {
                throw .openAL(operation: "alGenSources(\(total))", code: code)
            }
        }
        voiceSources = Array(names[0..<count])
        musicSourceNames = Array(names[count...])
        freeSources = voiceSources.reversed()
        alDistanceModel(configuration.distanceModel.alValue)
        alDopplerFactor(configuration.dopplerFactor)
        alSpeedOfSound(configuration.speedOfSound)
        try ALCheck.strict("engine setup")
        setListener(listener)
    }

    func teardown() {
        guard !isShutDown else { return }
        isShutDown = true
        let all = voiceSources + musicSourceNames
        for s in all { alSourceStop(s); alSourcei(s, AL_BUFFER, 0) }
        if !all.isEmpty { alDeleteSources(ALsizei(all.count), all) }
        for c in clips where c.info != nil {
            var b = c.buffer
            alDeleteBuffers(1, &b)
        }
        clips.removeAll()
        voices.removeAll()
        active.removeAll()
        ALCheck.clear()
    }

    // MARK: Clips

    func upload(_ pcm: PCMAudio, name: String) throws(EarshotError) -> Clip {
        ALCheck.clear()
        var buffer: ALuint = 0
        alGenBuffers(1, &buffer)
        try ALCheck.throwing("alGenBuffers")
        let format: ALenum
        switch (pcm.samples, pcm.channels) {
        case (.int16, 1): format = AL_FORMAT_MONO16
        case (.int16, _): format = AL_FORMAT_STEREO16
        case (.float32, 1): format = AL_FORMAT_MONO_FLOAT32
        case (.float32, _): format = AL_FORMAT_STEREO_FLOAT32
        }
        switch pcm.samples {
        case .int16(let s):
            s.withUnsafeBytes { alBufferData(buffer, format, $0.baseAddress, ALsizei($0.count), ALsizei(pcm.sampleRate)) }
        case .float32(let s):
            s.withUnsafeBytes { alBufferData(buffer, format, $0.baseAddress, ALsizei($0.count), ALsizei(pcm.sampleRate)) }
        }
        let code = alGetError()
        guard code == AL_NO_ERROR else {
            alDeleteBuffers(1, &buffer)
            ALCheck.clear()
            throw .openAL(operation: "alBufferData(\(name))", code: code)
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
        clips[Int(id)].info = info
        return Clip(id: id, generation: clips[Int(id)].generation, info: info)
    }

    private func isLoaded(_ clip: Clip) -> Bool {
        Int(clip.id) < clips.count && clips[Int(clip.id)].generation == clip.generation && clips[Int(clip.id)].info != nil
    }

    func unload(_ clip: Clip) {
        guard isLoaded(clip) else { return }
        for index in active where voices[Int(index)].clipID == clip.id {
            release(index)
        }
        active.removeAll { !voices[Int($0)].live }
        var b = clips[Int(clip.id)].buffer
        alDeleteBuffers(1, &b)
        ALCheck.clear()
        clips[Int(clip.id)].generation &+= 1
        clips[Int(clip.id)].info = nil
        clips[Int(clip.id)].buffer = 0
        freeClipIDs.append(clip.id)
    }

    // MARK: Voices

    func play(_ clip: Clip, options: PlayOptions, logger: Logger) throws(EarshotError) -> VoiceID {
        guard isLoaded(clip) else { throw .clipUnloaded }
        if freeSources.isEmpty { reclaimFinished() }
        guard let source = freeSources.popLast() else {
            throw .voiceLimitReached(voiceSources.count)
        }
        let slotIndex: UInt32
        if let reused = freeVoiceSlots.popLast() {
            slotIndex = reused
        } else {
            slotIndex = UInt32(voices.count)
            voices.append(VoiceSlot())
        }
        voices[Int(slotIndex)].source = source
        voices[Int(slotIndex)].clipID = clip.id
        voices[Int(slotIndex)].live = true
        active.append(slotIndex)

        let buffer = clips[Int(clip.id)].buffer
        alSourcei(source, AL_BUFFER, ALint(bitPattern: buffer))
        alSourcef(source, AL_GAIN, options.gain)
        alSourcef(source, AL_PITCH, options.pitch)
        alSourcei(source, AL_LOOPING, options.loop ? AL_TRUE : AL_FALSE)
        if let p = options.position {
            if clip.info.channels > 1, warnedStereoPositioned.insert(clip.id).inserted {
                logger.warning("\(clip.info.name): stereo clip played at a position plays unspatialised; load it forPositioning to place it in 3D")
            }
            alSourcei(source, AL_SOURCE_RELATIVE, AL_FALSE)
            alSource3f(source, AL_POSITION, p.x, p.y, p.z)
            alSource3f(source, AL_VELOCITY, options.velocity.x, options.velocity.y, options.velocity.z)
        } else {
            let p = PlayOptions.panPosition(options.pan)
            alSourcei(source, AL_SOURCE_RELATIVE, AL_TRUE)
            alSource3f(source, AL_POSITION, p.x, p.y, p.z)
            alSource3f(source, AL_VELOCITY, 0, 0, 0)
        }
        alSourcePlay(source)
        try ALCheck.strict("play")
        return VoiceID(index: slotIndex, generation: voices[Int(slotIndex)].generation)
    }

    private func slot(_ id: VoiceID) -> Int? {
        let i = Int(id.index)
        guard i < voices.count, voices[i].live, voices[i].generation == id.generation else { return nil }
        return i
    }

    func isPlaying(_ id: VoiceID) -> Bool {
        guard let i = slot(id) else { return false }
        var state: ALint = 0
        alGetSourcei(voices[i].source, AL_SOURCE_STATE, &state)
        return state == AL_PLAYING || state == AL_INITIAL
    }

    func stop(_ id: VoiceID) {
        guard let i = slot(id) else { return }
        release(UInt32(i))
        active.removeAll { $0 == UInt32(i) }
    }

    /// Stops the slot's source, returns it to the pool and makes every handle to the slot stale.
    private func release(_ index: UInt32) {
        let i = Int(index)
        let source = voices[i].source
        alSourceStop(source)
        alSourcei(source, AL_BUFFER, 0)
        freeSources.append(source)
        voices[i].source = 0
        voices[i].live = false
        voices[i].generation &+= 1
        freeVoiceSlots.append(index)
    }

    /// Returns the sources of voices that have finished to the pool.
    func reclaimFinished() {
        var state: ALint = 0
        active.removeAll { index in
            alGetSourcei(voices[Int(index)].source, AL_SOURCE_STATE, &state)
            if state == AL_STOPPED {
                release(index)
                return true
            }
            return false
        }
    }

    /// Whether a voice that has not finished is playing `clip` (for ClipBank's idle test).
    func isClipInUse(_ clip: Clip) -> Bool {
        guard isLoaded(clip) else { return false }
        reclaimFinished()
        return active.contains { voices[Int($0)].clipID == clip.id }
    }

    func activeVoiceCount() -> Int {
        reclaimFinished()
        return active.count
    }

    // MARK: Listener and frame

    func setListener(_ l: Listener) {
        listener = l
        alListener3f(AL_POSITION, l.position.x, l.position.y, l.position.z)
        alListener3f(AL_VELOCITY, l.velocity.x, l.velocity.y, l.velocity.z)
        var orientation: [ALfloat] = [l.at.x, l.at.y, l.at.z, l.up.x, l.up.y, l.up.z]
        alListenerfv(AL_ORIENTATION, &orientation)
        alListenerf(AL_GAIN, l.gain)
        ALCheck.clear()
    }

    func beforeRender() {}
}

extension DistanceModel {
    var alValue: ALenum {
        switch self {
        case .none: return AL_NONE
        case .inverse: return AL_INVERSE_DISTANCE
        case .inverseClamped: return AL_INVERSE_DISTANCE_CLAMPED
        case .linear: return AL_LINEAR_DISTANCE
        case .linearClamped: return AL_LINEAR_DISTANCE_CLAMPED
        case .exponent: return AL_EXPONENT_DISTANCE
        case .exponentClamped: return AL_EXPONENT_DISTANCE_CLAMPED
        }
    }
}
