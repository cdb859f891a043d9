import CAllocCounter
import COpenAL
import Earshot
import Foundation

/// The voice-count workload of `earshot stress`, run by the engine and by raw OpenAL calls.
///
/// N looping mono voices of a 1 s, 48 kHz, 440 Hz tone, each on its own emitter moving on a circle
/// of radius 5 around the listener; positions set every frame at 60 Hz; rendered through the
/// loopback device at 48 kHz stereo float. The baseline does the same with raw OpenAL: as many
/// sources as the engine had real voices, each moved every frame with `alSource3f`, rendered the
/// same way — so the ratio of the two CPU times is the engine's own cost.
struct StressWorkload {
    var voices: Int
    var seconds: Double
    var maxReal: Int?
    var hrtf: Bool
    static let rate = 48_000
    static let framesPerSecond = 60

    struct EngineResult {
        var voices = 0, realVoices = 0, virtualVoices = 0, grantedSources = 0
        var renderedSeconds = 0.0, cpuSeconds = 0.0
        var updateMicros: [Double] = []
        var moveMicros: [Double] = []
        var allocationsPerFrame = 0.0
        var playMicros: [Double] = []
        var playAllocations = 0
        var steals = 0
    }

    struct BaselineResult {
        var sources = 0
        var cpuSeconds = 0.0
        var renderedSeconds = 0.0
    }

    static func tone() -> PCMAudio {
        let samples = (0..<rate).map { Int16((0.25 * 32767 * sin(2 * .pi * 440 * Double($0) / Double(rate))).rounded()) }
        return PCMAudio(sampleRate: rate, channels: 1, samples: .int16(samples))
    }

    static func cpuTime() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func wallTime() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    @inline(__always)
    static func circle(_ i: Int, of n: Int, at time: Double) -> Vector3 {
        let phase = Double(i) / Double(max(n, 1)) * 2 * .pi + time * 2 * .pi / 4
        return Vector3(Float(5 * cos(phase)), 0, Float(-5 * sin(phase)))
    }

    var frames: Int { Int((seconds * Double(Self.framesPerSecond)).rounded()) }

    /// Runs the engine side; `progress` gets the fraction done.
    func runEngine(progress: (Double) -> Void) throws -> EngineResult {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: Self.rate))
        config.maxRealVoices = min(maxReal ?? voices, 4096)
        config.maxVirtualVoices = max(voices, 4096)
        config.hrtf = hrtf
        let engine = try AudioEngine(configuration: config)
        defer { engine.shutdown() }
        let clip = try engine.loadClip(Self.tone(), name: "tone 440 Hz")
        var emitters: [Emitter] = []
        emitters.reserveCapacity(voices)
        for i in 0..<voices {
            emitters.append(try engine.makeEmitter(SpatialProperties(position: Self.circle(i, of: voices, at: 0))))
        }
        var result = EngineResult()
        result.voices = voices
        result.grantedSources = engine.stats.voiceSources
        let perFrame = Self.rate / Self.framesPerSecond
        var buffer = [Float](repeating: 0, count: perFrame * 2)
        let playOptions = emitters.map { PlayOptions(loop: true, emitter: $0) }
        // Warm-up: OpenAL Soft allocates a source's property containers on its first use; play
        // everything once, stop, and let the fades finish, so the timed plays see steady state.
        for i in 0..<voices { _ = try engine.play(clip, options: playOptions[i]) }
        engine.update()
        try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
        engine.stopAllVoices()
        for _ in 0..<3 {
            engine.update()
            try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
        }
        // play(): timed one by one, allocations counted over all of them.
        result.playMicros.reserveCapacity(voices)
        let countBefore = earshot_alloc_count()
        earshot_alloc_counting(1)
        for i in 0..<voices {
            let t0 = Self.wallTime()
            _ = try engine.play(clip, options: playOptions[i])
            result.playMicros.append((Self.wallTime() - t0) * 1e6)
        }
        earshot_alloc_counting(0)
        result.playAllocations = Int(earshot_alloc_count() - countBefore)

        var updateMicros = [Double](repeating: 0, count: frames)
        var moveMicros = [Double](repeating: 0, count: frames)
        // Warm-up frame: first mixes allocate OpenAL's property caches.
        engine.update()
        try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
        let allocStart = earshot_alloc_count()
        earshot_alloc_counting(1)
        let cpuStart = Self.cpuTime()
        for f in 0..<frames {
            let time = Double(f + 1) / Double(Self.framesPerSecond)
            let t0 = Self.wallTime()
            engine.batch { frame in
                for i in 0..<emitters.count {
                    frame.setPosition(Self.circle(i, of: voices, at: time), of: emitters[i])
                }
            }
            let t1 = Self.wallTime()
            engine.update(deltaTime: 1 / Double(Self.framesPerSecond))
            updateMicros[f] = (Self.wallTime() - t1) * 1e6
            moveMicros[f] = (t1 - t0) * 1e6
            try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
            if f % 30 == 0 { earshot_alloc_counting(0); progress(Double(f) / Double(frames)); earshot_alloc_counting(1) }
        }
        result.cpuSeconds = Self.cpuTime() - cpuStart
        earshot_alloc_counting(0)
        result.allocationsPerFrame = Double(earshot_alloc_count() - allocStart) / Double(max(frames, 1))
        result.renderedSeconds = Double(frames * perFrame) / Double(Self.rate)
        result.updateMicros = updateMicros
        result.moveMicros = moveMicros
        let stats = engine.stats
        result.realVoices = stats.realVoices
        result.virtualVoices = stats.virtualVoices
        result.steals = stats.steals
        return result
    }

    /// The same workload with raw OpenAL calls and `sources` sources.
    func runBaseline(sources: Int) throws -> BaselineResult {
        guard let device = alcLoopbackOpenDeviceSOFT(nil) else { throw StressError.openAL("alcLoopbackOpenDeviceSOFT") }
        defer { alcCloseDevice(device) }
        let attributes: [ALCint] = [
            ALC_MONO_SOURCES, ALCint(sources), ALC_STEREO_SOURCES, 1,
            ALC_HRTF_SOFT, hrtf ? ALC_TRUE : ALC_FALSE,
            ALC_FORMAT_CHANNELS_SOFT, ALC_STEREO_SOFT, ALC_FORMAT_TYPE_SOFT, ALC_FLOAT_SOFT,
            ALC_FREQUENCY, ALCint(Self.rate), 0,
        ]
        guard let context = alcCreateContext(device, attributes) else { throw StressError.openAL("alcCreateContext") }
        defer { alcMakeContextCurrent(nil); alcDestroyContext(context) }
        alcMakeContextCurrent(context)
        var buffer: ALuint = 0
        alGenBuffers(1, &buffer)
        guard case .int16(let samples) = Self.tone().samples else { throw StressError.openAL("tone") }
        samples.withUnsafeBytes { alBufferData(buffer, AL_FORMAT_MONO16, $0.baseAddress, ALsizei($0.count), ALsizei(Self.rate)) }
        var names = [ALuint](repeating: 0, count: sources)
        alGenSources(ALsizei(sources), &names)
        guard alGetError() == AL_NO_ERROR else { throw StressError.openAL("alGenSources(\(sources))") }
        defer {
            for s in names { alSourceStop(s) }
            alDeleteSources(ALsizei(sources), names)
            alDeleteBuffers(1, &buffer)
        }
        for (i, s) in names.enumerated() {
            alSourcei(s, AL_BUFFER, ALint(bitPattern: buffer))
            alSourcei(s, AL_LOOPING, AL_TRUE)
            let p = Self.circle(i, of: voices, at: 0)
            alSource3f(s, AL_POSITION, p.x, p.y, p.z)
            alSourcePlay(s)
        }
        let perFrame = Self.rate / Self.framesPerSecond
        var out = [Float](repeating: 0, count: perFrame * 2)
        alcRenderSamplesSOFT(device, &out, ALCsizei(perFrame))
        let cpuStart = Self.cpuTime()
        for f in 0..<frames {
            let time = Double(f + 1) / Double(Self.framesPerSecond)
            for (i, s) in names.enumerated() {
                let p = Self.circle(i, of: voices, at: time)
                alSource3f(s, AL_POSITION, p.x, p.y, p.z)
            }
            alcRenderSamplesSOFT(device, &out, ALCsizei(perFrame))
        }
        return BaselineResult(sources: sources, cpuSeconds: Self.cpuTime() - cpuStart,
                              renderedSeconds: Double(frames * perFrame) / Double(Self.rate))
    }
}

enum StressError: Error, CustomStringConvertible {
    case openAL(String)
    var description: String {
        switch self {
        case .openAL(let what): return "raw OpenAL baseline failed at \(what)"
        }
    }
}

extension Array where Element == Double {
    /// The q-quantile (0…1) by nearest rank.
    func quantile(_ q: Double) -> Double {
        guard !isEmpty else { return 0 }
        let sorted = self.sorted()
        return sorted[Swift.min(count - 1, Swift.max(0, Int((q * Double(count)).rounded(.up)) - 1))]
    }
}
