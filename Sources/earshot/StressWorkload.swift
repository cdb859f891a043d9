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
    /// Reverb sends active per voice (0, 1 or 2): the listener stands inside that many reverb
    /// zones (the engine) or slots (the baseline), every voice sending to each.
    var reverbSends = 0
    /// Frames mixed per game update (800: 60 updates a second at 48 kHz).
    var updateFrames = 800
    /// What every voice loops (default: the 1 s 440 Hz tone).
    var clip: PCMAudio = StressWorkload.tone()
    /// Call `update()` every frame without rendering (a game on a live device, where the device
    /// mixes on its own thread): measures the frame cost of `update` when the render clock does
    /// not advance between frames. No baseline.
    var updateOnly = false
    /// Play on the system's default output (a live device mixing on its own thread, in real
    /// time) instead of the loopback device; implies `updateOnly`, and frames are paced at 60 Hz.
    var live = false
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
        /// `alSourcePlay` alone, timed one by one in the situation the engine's plays were timed in.
        var playMicros: [Double] = []
    }

    static func tone() -> PCMAudio {
        let samples = (0..<rate).map { Int16((0.25 * 32767 * sin(2 * .pi * 440 * Double($0) / Double(rate))).rounded()) }
        return PCMAudio(sampleRate: rate, channels: 1, samples: .int16(samples))
    }

    static func threadCPUTime() -> Double { Clocks.threadCPU() }
    static func wallTime() -> Double { Clocks.monotonic() }

    @inline(__always)
    static func circle(_ i: Int, of n: Int, at time: Double) -> Vector3 {
        let phase = Double(i) / Double(max(n, 1)) * 2 * .pi + time * 2 * .pi / 4
        return Vector3(Float(5 * cos(phase)), 0, Float(-5 * sin(phase)))
    }

    var frames: Int { max(1, Int((seconds * Double(Self.rate) / Double(updateFrames)).rounded())) }

    /// The reverb presets of the zones (and of the baseline's slots), one per send.
    static let reverbPresets = ["hangar", "stoneroom"]

    /// `count` zones that all hold the listener at the origin (so each is fully heard and every
    /// voice sends to each); their gains share the energy as the engine's blend does.
    static func zones(_ count: Int) throws -> [ReverbZone] {
        try (0..<count).map { i in
            try ReverbZone(name: reverbPresets[i], shape: .sphere(center: Vector3(0, 0, Float(i)), radius: 20),
                           reverb: ReverbProperties.preset(named: reverbPresets[i]), fade: 1)
        }
    }

    /// Runs the engine and, frame by frame beside it, the raw-OpenAL baseline (unless
    /// `withBaseline` is false): each frame's CPU time is measured for each on this thread, so
    /// the ratio is immune to the machine getting faster or slower during the run; which of the
    /// two goes first alternates from frame to frame.
    /// `progress` gets the fraction done.
    func run(withBaseline: Bool, progress: (Double) -> Void) throws -> (EngineResult, BaselineResult?) {
        var config = AudioEngine.Configuration(output: live ? .systemDefault : .loopback(sampleRate: Self.rate))
        config.maxRealVoices = min(maxReal ?? voices, 4096)
        config.maxVirtualVoices = max(voices, 4096)
        config.hrtf = hrtf
        let engine = try AudioEngine(configuration: config)
        defer { engine.shutdown() }
        try engine.setReverbZones(try Self.zones(reverbSends))
        let loaded = try engine.loadClip(self.clip, name: "stress clip")
        var emitters: [Emitter] = []
        emitters.reserveCapacity(voices)
        for i in 0..<voices {
            emitters.append(try engine.makeEmitter(SpatialProperties(position: Self.circle(i, of: voices, at: 0))))
        }
        var result = EngineResult()
        result.voices = voices
        result.grantedSources = engine.stats.voiceSources
        let perFrame = updateFrames
        var buffer = [Float](repeating: 0, count: perFrame * 2)
        let playOptions = emitters.map { PlayOptions(loop: true, emitter: $0) }
        /// A frame's mix: rendered on loopback, waited for (one 60 Hz frame) on a live device.
        func mix() throws {
            if live {
                usleep(UInt32(1_000_000 / Self.framesPerSecond))
            } else {
                try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
            }
        }
        // Warm-up: OpenAL Soft grows its pool of property containers to the most that were ever
        // in flight at once; play everything, stop, let the fades finish — twice, so the timed
        // plays see steady state.
        for _ in 0..<2 {
            for i in 0..<voices { _ = try engine.play(loaded, options: playOptions[i]) }
            engine.update()
            try mix()
            engine.stopAllVoices()
            for _ in 0..<3 {
                engine.update()
                try mix()
            }
        }
        // play(): timed one by one, allocations counted over all of them.
        result.playMicros.reserveCapacity(voices)
        let countBefore = earshot_alloc_count()
        earshot_alloc_counting(1)
        for i in 0..<voices {
            let t0 = Self.wallTime()
            _ = try engine.play(loaded, options: playOptions[i])
            result.playMicros.append((Self.wallTime() - t0) * 1e6)
        }
        earshot_alloc_counting(0)
        result.playAllocations = Int(earshot_alloc_count() - countBefore)

        var updateMicros = [Double](repeating: 0, count: frames)
        var moveMicros = [Double](repeating: 0, count: frames)
        /// The frame's moves: every emitter to its place on the circle at `time`.
        func moveAll(_ time: Double) {
            engine.batch { frame in
                for i in 0..<emitters.count {
                    frame.setPosition(Self.circle(i, of: voices, at: time), of: emitters[i])
                }
            }
        }
        // Warm-up frame: first mixes allocate OpenAL's property caches, first calls Swift's
        // type metadata.
        moveAll(0)
        engine.update()
        try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
        let baseline = withBaseline && !updateOnly && !live ? try RawBaseline(sources: max(1, engine.stats.realVoices), voices: voices, hrtf: hrtf,
                                                      reverbSends: reverbSends, clip: clip) : nil
        defer { baseline?.close() }
        let baselinePlayMicros = baseline?.timePlays() ?? []
        var baselineOut = [Float](repeating: 0, count: perFrame * 2)
        if let baseline { baselineOut.withUnsafeMutableBufferPointer { baseline.frame(time: 0, into: $0) } }
        var engineCPU = 0.0, baselineCPU = 0.0
        /// One baseline frame, timed, its allocations not counted as the engine's.
        func baselineFrame(_ time: Double) {
            guard let baseline else { return }
            earshot_alloc_counting(0)
            let c = Self.threadCPUTime()
            baselineOut.withUnsafeMutableBufferPointer { baseline.frame(time: time, into: $0) }
            baselineCPU += Self.threadCPUTime() - c
            earshot_alloc_counting(1)
        }
        let allocStart = earshot_alloc_count()
        earshot_alloc_counting(1)
        for f in 0..<frames {
            let time = Double((f + 1) * perFrame) / Double(Self.rate)
            // Alternate who goes first: each side then runs as often on the caches the other
            // one's mix left behind, so the order biases neither.
            let baselineFirst = f % 2 == 1
            if baselineFirst { baselineFrame(time) }
            let cpu0 = Self.threadCPUTime()
            let t0 = Self.wallTime()
            moveAll(time)
            let t1 = Self.wallTime()
            engine.update(deltaTime: Double(perFrame) / Double(Self.rate))
            updateMicros[f] = (Self.wallTime() - t1) * 1e6
            moveMicros[f] = (t1 - t0) * 1e6
            if !updateOnly && !live {
                try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
            }
            let cpu1 = Self.threadCPUTime()
            engineCPU += cpu1 - cpu0
            if live {
                // Pace the frames at 60 Hz: the device's clock moves between updates.
                let rest = 1 / Double(Self.framesPerSecond) - (Self.wallTime() - t0)
                if rest > 0 { usleep(UInt32(rest * 1e6)) }
            }
            if !baselineFirst { baselineFrame(time) }
            if f % 30 == 0 { earshot_alloc_counting(0); progress(Double(f) / Double(frames)); earshot_alloc_counting(1) }
        }
        result.cpuSeconds = engineCPU
        earshot_alloc_counting(0)
        result.allocationsPerFrame = Double(earshot_alloc_count() - allocStart) / Double(max(frames, 1))
        result.renderedSeconds = Double(frames * perFrame) / Double(Self.rate)
        result.updateMicros = updateMicros
        result.moveMicros = moveMicros
        let stats = engine.stats
        result.realVoices = stats.realVoices
        result.virtualVoices = stats.virtualVoices
        result.steals = stats.steals
        let rendered = Double(frames * perFrame) / Double(Self.rate)
        return (result, baseline.map { BaselineResult(sources: $0.context.grantedMonoSources >= 1 ? max(1, stats.realVoices) : 0,
                                                        cpuSeconds: baselineCPU, renderedSeconds: rendered,
                                                        playMicros: baselinePlayMicros) })
    }

}

/// The same workload done with raw OpenAL calls: as many sources as the engine had real voices,
/// each moved every frame with `alSource3f`, rendered through its own loopback device. Its AL
/// calls go through ``ALContext/withCurrent(_:)`` so that it can run frame by frame beside an
/// engine in the same process.
final class RawBaseline {
    let device: OutputDevice
    let context: ALContext
    private var names: [ALuint]
    private var buffer: ALuint = 0
    let voices: Int

    private var slots: [ALuint] = []
    private var effects: [ALuint] = []

    /// `reverbSends` slots holding the zones' reverbs at the gains the engine's blend gives them
    /// (energy shared: √(1/n) each), every source sending to each.
    init(sources: Int, voices: Int, hrtf: Bool, reverbSends: Int = 0, clip: PCMAudio = StressWorkload.tone()) throws {
        self.voices = voices
        device = try OutputDevice.open(.loopback(sampleRate: StressWorkload.rate))
        context = try ALContext(device: device, request: .init(monoSources: sources, stereoSources: 1, hrtf: hrtf))
        var slots: [ALuint] = [], effects: [ALuint] = []
        if reverbSends > 0 {
            try context.withCurrent { () throws in
                for i in 0..<reverbSends {
                    var slot: ALuint = 0, effect: ALuint = 0
                    alGenAuxiliaryEffectSlots(1, &slot)
                    alGenEffects(1, &effect)
                    alEffecti(effect, AL_EFFECT_TYPE, AL_EFFECT_EAXREVERB)
                    var raw = try ReverbProperties.preset(named: StressWorkload.reverbPresets[i]).efxProperties
                    earshot_set_eaxreverb(effect, &raw)
                    alAuxiliaryEffectSloti(slot, AL_EFFECTSLOT_EFFECT, ALint(effect))
                    alAuxiliaryEffectSlotf(slot, AL_EFFECTSLOT_GAIN, (1 / Float(reverbSends)).squareRoot())
                    guard alGetError() == AL_NO_ERROR else { throw StressError.openAL("EFX slot \(i)") }
                    slots.append(slot)
                    effects.append(effect)
                }
            }
        }
        self.slots = slots
        self.effects = effects
        names = [ALuint](repeating: 0, count: sources)
        guard case .int16(let samples) = clip.samples, clip.channels == 1 else { throw StressError.openAL("a mono 16-bit clip") }
        let clipRate = clip.sampleRate
        try context.withCurrent { () throws(StressError) in
            alGenBuffers(1, &buffer)
            samples.withUnsafeBytes { alBufferData(buffer, AL_FORMAT_MONO16, $0.baseAddress, ALsizei($0.count), ALsizei(clipRate)) }
            alGenSources(ALsizei(sources), &names)
            guard alGetError() == AL_NO_ERROR else { throw StressError.openAL("alGenSources(\(sources))") }
            for (i, s) in names.enumerated() {
                alSourcei(s, AL_BUFFER, ALint(bitPattern: buffer))
                alSourcei(s, AL_LOOPING, AL_TRUE)
                let p = StressWorkload.circle(i, of: voices, at: 0)
                alSource3f(s, AL_POSITION, p.x, p.y, p.z)
                for (k, slot) in slots.enumerated() { alSource3i(s, AL_AUXILIARY_SEND_FILTER, ALint(slot), ALint(k), 0) }
                alSourcePlay(s)
            }
        }
    }

    /// Stops every source, lets a mix pass, and plays them again one by one — twice, timing the
    /// second round (the engine's plays are timed after the same warm-up). Sources keep their
    /// buffer, as the engine's do. Returns each `alSourcePlay` in microseconds.
    func timePlays() -> [Double] {
        var micros = [Double](repeating: 0, count: names.count)
        var scratch = [Float](repeating: 0, count: StressWorkload.rate / StressWorkload.framesPerSecond * 2)
        for _ in 0..<2 {
            context.withCurrent { for s in names { alSourceStop(s) } }
            scratch.withUnsafeMutableBufferPointer { device.renderLoopback(into: $0) }
            context.withCurrent {
                for (i, s) in names.enumerated() {
                    let t0 = StressWorkload.wallTime()
                    alSourcePlay(s)
                    micros[i] = (StressWorkload.wallTime() - t0) * 1e6
                }
            }
            scratch.withUnsafeMutableBufferPointer { device.renderLoopback(into: $0) }
        }
        return micros
    }

    /// One game frame: every source moved, then the frame's samples mixed.
    func frame(time: Double, into out: UnsafeMutableBufferPointer<Float>) {
        context.withCurrent {
            for (i, s) in names.enumerated() {
                let p = StressWorkload.circle(i, of: voices, at: time)
                alSource3f(s, AL_POSITION, p.x, p.y, p.z)
            }
        }
        device.renderLoopback(into: out)
    }

    func close() {
        context.withCurrent {
            for s in names { alSourceStop(s) }
            alDeleteSources(ALsizei(names.count), names)
            alDeleteBuffers(1, &buffer)
            for slot in slots { var s = slot; alDeleteAuxiliaryEffectSlots(1, &s) }
            for effect in effects { var e = effect; alDeleteEffects(1, &e) }
        }
        context.destroy()
        device.close()
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
