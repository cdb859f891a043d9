import COpenAL

/// Auxiliary effect slots that each hold one EAX reverb effect, made together or not at all
/// (the zones' ``ReverbZoneMixer`` and the other rooms' ``RoomReverbSlots``).
enum ReverbSlots {
    /// `count` slots with their reverb effects, each slot at `gain`; on a failure, the ones made
    /// are deleted and the error thrown.
    static func make(count: Int, gain: Float) throws(EarshotError) -> (slots: [ALuint], effects: [ALuint]) {
        var made: [(ALuint, ALuint)] = []
        do throws(EarshotError) {
            for _ in 0..<count {
                let slot = try EFX.makeSlot()
                do throws(EarshotError) {
                    made.append((slot, try EFX.makeEffect(type: AL_EFFECT_EAXREVERB)))
                } catch {
                    EFX.deleteSlot(slot)
                    throw error
                }
                if gain != 1 { try EFX.setSlotGain(slot, gain) }
            }
        } catch {
            for (slot, effect) in made {
                EFX.deleteSlot(slot)
                EFX.deleteEffect(effect)
            }
            ALCheck.discard(because: "the cleanup of a failure already being thrown")
            throw error
        }
        return (made.map(\.0), made.map(\.1))
    }

    /// Deletes `slots` and `effects` (the sources routed to them must be unrouted first); the
    /// context may already be gone with the device, so its errors are discarded, not reported.
    static func delete(slots: [ALuint], effects: [ALuint]) {
        for (slot, effect) in zip(slots, effects) {
            EFX.deleteSlot(slot)
            EFX.deleteEffect(effect)
        }
        ALCheck.discard(because: "teardown: the context may already be gone with the device; nothing to report to")
    }
}
