import COpenAL
import Earshot

/// The stress workload done with raw OpenAL calls: as many sources as the engine had real voices,
/// each moved every frame with `alSource3f`, rendered through its own loopback device.
///
/// Its AL calls go through ``ALContext/withCurrent(_:)`` so that it can run frame by frame beside
/// an engine in the same process. ``StressWorkload`` makes one per run and closes it.
///
/// ```swift
/// let raw = try RawBaseline(sources: 8, voices: 8, hrtf: false)
/// defer { raw.close() }
/// var out = [Float](repeating: 0, count: 800 * 2)
/// out.withUnsafeMutableBufferPointer { raw.frame(time: 0, into: $0) }
/// ```
final class RawBaseline {
    let device: OutputDevice
    let context: ALContext
    private var names: [ALuint]
    private var buffer: ALuint = 0
    let voices: Int

    private var slots: [ALuint] = []
    private var effects: [ALuint] = []

    /// `sources` playing sources looping `clip` (mono 16-bit), placed as `voices` voices would
    /// be; `reverbSends` slots holding the zones' reverbs at the gains the engine's blend gives
    /// them (energy shared: √(1/n) each), every source sending to each.
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
        guard case .int16(let samples) = clip.samples, clip.channels == 1 else {
            throw StressError.openAL("a mono 16-bit clip")
        }
        let clipRate = clip.sampleRate
        try context.withCurrent { () throws(StressError) in
            alGenBuffers(1, &buffer)
            samples.withUnsafeBytes {
                alBufferData(buffer, AL_FORMAT_MONO16, $0.baseAddress, ALsizei($0.count), ALsizei(clipRate))
            }
            alGenSources(ALsizei(sources), &names)
            guard alGetError() == AL_NO_ERROR else { throw StressError.openAL("alGenSources(\(sources))") }
            for (i, s) in names.enumerated() {
                alSourcei(s, AL_BUFFER, ALint(bitPattern: buffer))
                alSourcei(s, AL_LOOPING, AL_TRUE)
                let p = StressWorkload.circle(i, of: voices, at: 0)
                alSource3f(s, AL_POSITION, p.x, p.y, p.z)
                for (k, slot) in slots.enumerated() {
                    alSource3i(s, AL_AUXILIARY_SEND_FILTER, ALint(slot), ALint(k), 0)
                }
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

    /// Deletes the sources, buffer, slots and effects, then the context and the device.
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
