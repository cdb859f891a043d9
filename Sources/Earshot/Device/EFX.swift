import COpenAL

/// What a context offers for environmental audio (OpenAL's `ALC_EXT_EFX`).
///
/// OpenAL Soft 1.19.1 has EFX with 2 auxiliary sends per source by default (up to 16 on
/// request with `ALC_MAX_AUXILIARY_SENDS`), 64 effect slots, EAX reverb and low-pass filters.
/// Another implementation may lack it: then Earshot's environment plays dry (no reverb, no
/// occlusion filter) and says so here instead of failing.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// print(engine.efxSupport.maxAuxiliarySends)   // 2
/// ```
public struct EFXSupport: Sendable, Equatable {
    /// Whether the device has `ALC_EXT_EFX`.
    public var isAvailable: Bool
    /// Auxiliary sends per source granted on the context (0 without EFX).
    public var maxAuxiliarySends: Int

    /// Reads what `device` and the current context offer. Call under the AL lock.
    static func read(device: OpaquePointer) -> EFXSupport {
        guard alcIsExtensionPresent(device, "ALC_EXT_EFX") != 0 else { return EFXSupport(isAvailable: false, maxAuxiliarySends: 0) }
        var sends: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_MAX_AUXILIARY_SENDS), 1, &sends)
        _ = alcGetError(device)
        return EFXSupport(isAvailable: true, maxAuxiliarySends: Int(max(0, sends)))
    }
}

/// Typed wrappers over EFX objects: auxiliary effect slots, effects and filters. Every call
/// assumes the AL lock is held with the right context current (as everything in EngineCore
/// does) and checks the AL error of what it did through ``ALCheck``: creation fails with a typed
/// error (`AL_OUT_OF_MEMORY`, no free slot), a wrong use of Earshot's own objects traps.
///
/// OpenAL copies a filter's parameters into a source when the filter is attached, and an
/// effect's into a slot when the effect is attached: one scratch filter can set every source's
/// filter, and an effect is re-attached after each change for the slot to hear it.
enum EFX {
    // MARK: Objects

    /// A new auxiliary effect slot (an effect's place in the mix, fed by sources' sends).
    static func makeSlot() throws(EarshotError) -> ALuint {
        ALCheck.expectNoPending(before: "alGenAuxiliaryEffectSlots")
        var slot: ALuint = 0
        alGenAuxiliaryEffectSlots(1, &slot)
        try ALCheck.throwing("alGenAuxiliaryEffectSlots")
        return slot
    }

    /// A new effect of `type` (`AL_EFFECT_EAXREVERB`, `AL_EFFECT_ECHO` …).
    static func makeEffect(type: ALint) throws(EarshotError) -> ALuint {
        ALCheck.expectNoPending(before: "alGenEffects")
        return try ALObject.make(generate: { alGenEffects(1, &$0) }, "alGenEffects",
                                 setUp: { alEffecti($0, AL_EFFECT_TYPE, type) }, "alEffecti(AL_EFFECT_TYPE, \(type))",
                                 delete: { alDeleteEffects(1, &$0) })
    }

    /// A new low-pass filter (gain and high-frequency gain, both 0…1).
    static func makeLowPass() throws(EarshotError) -> ALuint {
        ALCheck.expectNoPending(before: "alGenFilters")
        var filter: ALuint = 0
        alGenFilters(1, &filter)
        try ALCheck.throwing("alGenFilters")
        alFilteri(filter, AL_FILTER_TYPE, AL_FILTER_LOWPASS)
        try ALCheck.strict("alFilteri(AL_FILTER_LOWPASS)")
        return filter
    }

    static func deleteSlot(_ slot: ALuint) {
        var s = slot
        alAuxiliaryEffectSloti(slot, AL_EFFECTSLOT_EFFECT, AL_EFFECT_NULL)
        alDeleteAuxiliaryEffectSlots(1, &s)
    }

    static func deleteEffect(_ effect: ALuint) {
        var e = effect
        alDeleteEffects(1, &e)
    }

    static func deleteFilter(_ filter: ALuint) {
        var f = filter
        alDeleteFilters(1, &f)
    }

    // MARK: Parameters

    /// Sets every EAX reverb parameter of `effect` (of type `AL_EFFECT_EAXREVERB`), with
    /// `gainScale` applied to the reflections and late reverb gains and the pans replaced.
    static func setReverb(_ effect: ALuint, _ reverb: ReverbProperties, gainScale: Float = 1,
                          pan: Vector3? = nil) throws(EarshotError) {
        var r = reverb
        r.reflectionsGain *= gainScale
        r.lateReverbGain *= gainScale
        if let pan {
            r.reflectionsPan = pan
            r.lateReverbPan = pan
        }
        // Into the domain OpenAL Soft 1.19.1 mixes without aborting (ReverbDomain), against the
        // speed of sound its reverb reads: AL_SPEED_OF_SOUND × AL_DOPPLER_VELOCITY × AL_METERS_PER_UNIT.
        var metersPerUnit: ALfloat = 1
        alGetListenerf(AL_METERS_PER_UNIT, &metersPerUnit)
        let speed = alGetFloat(AL_SPEED_OF_SOUND) * alGetFloat(AL_DOPPLER_VELOCITY) * metersPerUnit
        ALCheck.discard(because: "reading the speed of sound of the current context cannot fail; a default is used if it did")
        r = ReverbDomain.sanitised(r, speedOfSound: speed.isFinite && speed > 0 ? speed : 343.3).properties
        var raw = r.raw
        earshot_set_eaxreverb(effect, &raw)
        try ALCheck.strict("EAX reverb parameters")
    }

    /// Sets an echo effect's parameters (the effect must be of type `AL_EFFECT_ECHO`).
    static func setEcho(_ effect: ALuint, _ e: EchoProperties) throws(EarshotError) {
        try checked("echo parameters") {
            alEffectf(effect, AL_ECHO_DELAY, e.delay)
            alEffectf(effect, AL_ECHO_LRDELAY, e.lrDelay)
            alEffectf(effect, AL_ECHO_DAMPING, e.damping)
            alEffectf(effect, AL_ECHO_FEEDBACK, e.feedback)
            alEffectf(effect, AL_ECHO_SPREAD, e.spread)
        }
    }

    /// Puts `effect` (or nothing, 0) in `slot`; OpenAL copies the effect's current parameters.
    static func attach(_ effect: ALuint, to slot: ALuint) throws(EarshotError) {
        try checked("alAuxiliaryEffectSloti(AL_EFFECTSLOT_EFFECT)") { alAuxiliaryEffectSloti(slot, AL_EFFECTSLOT_EFFECT, ALint(effect)) }
    }

    /// The slot's output gain, 0…1.
    static func setSlotGain(_ slot: ALuint, _ gain: Float) throws(EarshotError) {
        try checked("alAuxiliaryEffectSlotf(AL_EFFECTSLOT_GAIN)") { alAuxiliaryEffectSlotf(slot, AL_EFFECTSLOT_GAIN, min(max(gain, 0), 1)) }
    }

    // A source's filters and sends (``SendRouter``) are set in batches checked once at the end
    // (``checkBatch(_:)``): a moving voice changes its filter every frame, and each check is a
    // call into OpenAL (a tenth of the calls' cost under callgrind, `earshot-bench rooms`).

    /// Sets a low-pass filter's gains (clamped to 0…1); part of a batch.
    @inline(__always)
    static func setLowPassInBatch(_ filter: ALuint, gain: Float, gainHF: Float) {
        alFilterf(filter, AL_LOWPASS_GAIN, min(max(gain, 0), 1))
        alFilterf(filter, AL_LOWPASS_GAINHF, min(max(gainHF, 0), 1))
    }

    /// Routes `source`'s auxiliary send `send` to `slot` (0: none) through `filter` (0: none);
    /// part of a batch.
    @inline(__always)
    static func routeInBatch(_ source: ALuint, send: Int, to slot: ALuint, filter: ALuint) {
        alSource3i(source, AL_AUXILIARY_SEND_FILTER, ALint(slot), ALint(send), ALint(filter))
    }

    /// Sets `source`'s direct-path filter (0: none); part of a batch.
    @inline(__always)
    static func setDirectFilterInBatch(_ source: ALuint, _ filter: ALuint) {
        alSourcei(source, AL_DIRECT_FILTER, ALint(filter))
    }

    /// Sets a low-pass filter's gains (clamped to 0…1), checked.
    static func setLowPass(_ filter: ALuint, gain: Float, gainHF: Float) throws(EarshotError) {
        try checked("low-pass filter gains") { setLowPassInBatch(filter, gain: gain, gainHF: gainHF) }
    }

    /// Routes `source`'s auxiliary send `send` to `slot` (0: none) through `filter` (0: none), checked.
    static func route(_ source: ALuint, send: Int, to slot: ALuint, filter: ALuint) throws(EarshotError) {
        try checked("alSource3i(AL_AUXILIARY_SEND_FILTER, send \(send))") { routeInBatch(source, send: send, to: slot, filter: filter) }
    }

    /// Sets `source`'s direct-path filter (0: none), checked.
    static func setDirectFilter(_ source: ALuint, _ filter: ALuint) throws(EarshotError) {
        try checked("alSourcei(AL_DIRECT_FILTER)") { setDirectFilterInBatch(source, filter) }
    }

    /// Checks a batch of the calls above (``ALCheck/strict(_:)``: out of memory throws, any
    /// other error on the engine's own objects is a bug).
    static func checkBatch(_ what: @autoclosure () -> String) throws(EarshotError) {
        try ALCheck.strict(what())
    }

    /// Sets `source`'s air absorption factor (0…10; 0 is none).
    static func setAirAbsorption(_ source: ALuint, _ factor: Float) throws(EarshotError) {
        try checked("alSourcef(AL_AIR_ABSORPTION_FACTOR)") { alSourcef(source, AL_AIR_ABSORPTION_FACTOR, min(max(factor, 0), 10)) }
    }

    /// Runs `calls` on our own EFX objects, then checks them through ``ALCheck/strict(_:)``.
    @inline(__always)
    private static func checked(_ what: @autoclosure () -> String, _ calls: () -> Void) throws(EarshotError) {
        calls()
        try ALCheck.strict(what())
    }
}
