import COpenAL

/// The engine core's environment: reverb zones, their sends and bus effects (AL lock held).
extension EngineCore {
    // MARK: Environment

    /// Sets the reverb zones; the first zones on a device with EFX make the slots and route
    /// the positioned voices to them. Without EFX (or with no sends) the zones are kept and the
    /// voices play dry.
    func setReverbZones(_ zones: [ReverbZone]) throws(EarshotError) {
        reverbZones = zones
        if zoneMixer == nil, !zones.isEmpty, !isDeviceLost {
            let sends = sendRouter.zoneSendCount
            guard efx.isAvailable, sends > 0 else { return }
            let mixer = try ReverbZoneMixer(sends: sends)
            zoneMixer = mixer
            sendRouter.setSlots(mixer.slots, playing: pool.realSources())
        }
        zoneMixer?.setZones(zones)
    }

    /// A reverb cross-fade starts in OpenAL Soft at the next mix: `render` cuts its mix calls at
    /// its end (``ReverbDomain/crossFadeKey(_:)`` says why).
    func noteReverbCrossFade() {
        reverbCrossFades.append(ReverbDomain.crossFadeFrames)
    }

    /// Splits the granted sends: the zones' first, then one for bus effects when there is room.
    static func configureSends(_ router: SendRouter, efx: EFXSupport, zoneSends: Int) {
        let granted = efx.isAvailable ? efx.maxAuxiliarySends : 0
        router.zoneSendCount = min(zoneSends, granted)
        router.hasBusSend = granted > router.zoneSendCount
    }


    /// Gives bus `bus` an effect at `level` (0…1), replaces it, or (nil) removes it.
    func setBusEffect(_ effect: BusEffect?, level: Float, bus: Int) throws(EarshotError) {
        if let old = busEffects[bus] {
            busEffects[bus] = nil
            sendRouter.setBusSlot(0, bus: bus, playing: pool.realSources())
            sendRouter.rerouteBus(bus)
            EFX.deleteSlot(old.slot)
            EFX.deleteEffect(old.object)
            try ALCheck.strict("deleting a bus effect")
        }
        guard let effect else { return }
        guard configuration.busEffects else {
            throw .invalidArgument("bus effects need a send of their own: create the engine with Configuration.busEffects = true")
        }
        guard efx.isAvailable, sendRouter.hasBusSend else {
            throw .extensionMissing("ALC_EXT_EFX with a send for bus effects (granted \(efx.maxAuxiliarySends) sends, \(sendRouter.zoneSendCount) for zones)")
        }
        let slot = try EFX.makeSlot()
        let object: ALuint
        do throws(EarshotError) {
            object = try EFX.makeEffect(type: effect.alType)
        } catch {
            EFX.deleteSlot(slot)
            throw error
        }
        switch effect {
        case .reverb(let r):
            try EFX.setReverb(object, r)
            noteReverbCrossFade()
        case .echo(let e): try EFX.setEcho(object, e)
        }
        try EFX.attach(object, to: slot)
        try EFX.setSlotGain(slot, level)
        busEffects[bus] = (effect, level, slot, object)
        sendRouter.setBusSlot(slot, bus: bus, playing: pool.realSources())
    }

    /// Glides the zone slots toward what the listener should hear (playback time).
    func stepZones(elapsed: Double) {
        guard let zoneMixer, zoneMixer.isActive else { return }
        do throws(EarshotError) {
            let before = zoneMixer.crossFades
            try zoneMixer.step(listener: listener, elapsed: min(max(elapsed, 0), 0.25))
            if zoneMixer.crossFades != before { noteReverbCrossFade() }
        } catch {
            // Only AL_OUT_OF_MEMORY gets here (a misuse of our own objects traps): the zones
            // keep their last state and the next frame tries again.
        }
    }

    /// After a device rebuild: new slots on the new context with the state the old ones had.
    func rebuildZones() throws(EarshotError) {
        efx = EFXSupport.read(device: device.handle)
        sendRouter.forgetSources()
        sendRouter.efxAvailable = efx.isAvailable
        Self.configureSends(sendRouter, efx: efx, zoneSends: configuration.zoneSends)
        let effects = busEffects
        busEffects = [:]
        for (bus, e) in effects { try setBusEffect(e.effect, level: e.level, bus: bus) }
        guard let zoneMixer else {
            // Zones set while the device was lost get their slots now.
            if !reverbZones.isEmpty { try setReverbZones(reverbZones) }
            return
        }
        let sends = sendRouter.zoneSendCount
        guard efx.isAvailable, sends > 0 else {
            self.zoneMixer = nil
            sendRouter.setSlots([], playing: [])
            return
        }
        try zoneMixer.rebuild(sends: sends)
        noteReverbCrossFade()
        sendRouter.setSlots(zoneMixer.slots, playing: pool.realSources())
    }
}
