import COpenAL

/// The environment's part of the core (a ``CoreStage`` after the voices): the reverb zones and
/// their slots, the effects buses own, and the reverb cross-fades under way in OpenAL Soft. Each
/// frame it moves the zones' blend with the listener and ramps each voice source's sends and
/// occlusion filters; on a new device it remakes the slots and bus effects with the state the
/// old ones had; at teardown it deletes them. AL lock held throughout (it is the core's).
///
/// It owns the per-source send plumbing (``sendRouter``: the voice pool reads it when it hands
/// out sources, the mix writes bus filter layers into it) and what the context offers (``efx``).
final class EnvironmentStage: CoreStage {
    /// What the context offers for environmental audio (read again after a rebuild).
    private(set) var efx: EFXSupport
    /// Each voice source's environment: sends to the zone slots, occlusion filters.
    let sendRouter: SendRouter
    /// The reverb zones the game set (kept even when EFX is missing: then they play dry).
    private(set) var reverbZones: [ReverbZone] = []
    /// The rooms' reverbs as zones on their boxes (Rooms/, ``setRoomZones(_:core:)``), beside the game's.
    private(set) var roomZones: [ReverbZone] = []
    /// The slots of other rooms' reverbs (Rooms/), made when a voice first needs one.
    private(set) var roomReverbs: RoomReverbSlots?
    /// The zones' slots, made when the first zones are set on a device with EFX.
    private(set) var zoneMixer: ReverbZoneMixer?
    /// The effects buses own, by bus index.
    private(set) var busEffects: [Int: (effect: BusEffect, level: Float, slot: ALuint, object: ALuint)] = [:]
    /// Frames left of each reverb cross-fade under way in OpenAL Soft (counted from the next
    /// render after the change; at most two or three at once).
    private var reverbCrossFades: [Int] = []

    init(device: OpaquePointer, zoneSends: Int) {
        efx = EFXSupport.read(device: device)
        sendRouter = SendRouter(efxAvailable: efx.isAvailable)
        sendRouter.configure(efx: efx, zoneSends: zoneSends)
    }

    var phase: CoreStage.Phase { .afterVoices }

    func step(_ core: EngineCore, time: CoreStage.FrameTime) {
        stepZones(elapsed: time.elapsed, core: core)
        sendRouter.step(elapsed: min(max(time.elapsed, 0), 0.25))
    }

    func teardown(_ core: EngineCore) {
        zoneMixer?.teardown()   // after the sources that sent to its slots are gone
        zoneMixer = nil
        roomReverbs?.teardown()
        roomReverbs = nil
        for e in busEffects.values {
            EFX.deleteSlot(e.slot)
            EFX.deleteEffect(e.object)
        }
        busEffects = [:]
        sendRouter.teardown()
    }

    /// The frames a loopback mix call may still run before a reverb cross-fade under way ends
    /// (nil: none under way). OpenAL Soft 1.19.1 crashes when a mix call crosses that end
    /// anywhere but exactly at it (``ReverbDomain/crossFadeKey(_:)``).
    var crossFadeFramesLeft: Int? { reverbCrossFades.min() }

    /// A loopback mix call rendered `frames` frames: the cross-fades under way move on.
    func rendered(frames: Int) {
        guard !reverbCrossFades.isEmpty else { return }
        for i in reverbCrossFades.indices { reverbCrossFades[i] -= frames }
        reverbCrossFades.removeAll { $0 <= 0 }
    }

    /// Sets the reverb zones; the first zones on a device with EFX make the slots and route
    /// the positioned voices to them. Without EFX (or with no sends) the zones are kept and the
    /// voices play dry. All or nothing, as ``setRoomZones(_:core:)``: when the slots cannot be
    /// made it throws and the zones stay as they were.
    func setReverbZones(_ zones: [ReverbZone], core: EngineCore) throws(EarshotError) {
        try applyZones(zones + roomZones, core: core)
        reverbZones = zones
    }

    /// Sets the rooms' reverbs (each a zone on its room's box), heard beside the game's zones.
    /// All or nothing: when the zones' slots cannot be made (AL out of memory) it throws and
    /// the rooms' zones stay as they were, so a geometry change can set them first
    /// (``AudioEngine/setGeometry(_:)``).
    func setRoomZones(_ zones: [ReverbZone], core: EngineCore) throws(EarshotError) {
        try applyZones(reverbZones + zones, core: core)
        roomZones = zones
    }

    /// Makes the zones' slots if they are the first zones (the only step that can throw, before
    /// anything changes), then hands the mixer `zones`.
    private func applyZones(_ zones: [ReverbZone], core: EngineCore) throws(EarshotError) {
        if zoneMixer == nil, !zones.isEmpty, !core.isDeviceLost {
            let sends = sendRouter.zoneSendCount
            guard efx.isAvailable, sends > 0 else { return }
            let mixer = try ReverbZoneMixer(sends: sends)
            zoneMixer = mixer
            sendRouter.setSlots(mixer.slots, playing: core.pool.realSources())
        }
        zoneMixer?.setZones(zones)
    }

    /// How many other rooms' reverbs can ring at once: 0 without EFX or with fewer than two zone
    /// sends (a voice's last zone send is lent to its own room's reverb; the first stays the
    /// listener's zones).
    var roomReverbChannels: Int {
        efx.isAvailable && sendRouter.zoneSendCount >= 2 ? RoomReverbSlots.count : 0
    }

    /// Channel `channel` of the other rooms' reverbs rings with `reverb`, heard from `pan` (sent
    /// only when it changes). Its slots are made the first time.
    func setRoomReverb(channel: Int, reverb: ReverbProperties, pan: Vector3, core: EngineCore) throws(EarshotError) {
        guard roomReverbChannels > 0, !core.isDeviceLost else { return }
        if roomReverbs == nil { roomReverbs = try RoomReverbSlots() }
        if try roomReverbs?.set(channel: channel, reverb: reverb, pan: pan) == true { noteReverbCrossFade() }
    }

    /// The slot of room reverb channel `channel` (0: none), made the first time it is asked for
    /// (a voice routed to it this frame hears the reverb ``setRoomReverb(channel:reverb:pan:core:)``
    /// loads before the next mix).
    func roomReverbSlot(_ channel: Int, core: EngineCore) -> ALuint {
        guard channel >= 0, roomReverbChannels > 0, !core.isDeviceLost else { return 0 }
        if roomReverbs == nil {
            do throws(EarshotError) { roomReverbs = try RoomReverbSlots() } catch { return 0 }   // out of memory: the zones only
        }
        guard let r = roomReverbs, channel < r.slots.count else { return 0 }
        return r.slots[channel]
    }

    /// A reverb cross-fade starts in OpenAL Soft at the next mix: `render` cuts its mix calls at
    /// its end (``ReverbDomain/crossFadeKey(_:)`` says why).
    func noteReverbCrossFade() {
        reverbCrossFades.append(ReverbDomain.crossFadeFrames)
    }


    /// Gives bus `bus` an effect at `level` (0…1), replaces it, or (nil) removes it.
    func setBusEffect(_ effect: BusEffect?, level: Float, bus: Int, core: EngineCore) throws(EarshotError) {
        if let old = busEffects[bus] {
            busEffects[bus] = nil
            sendRouter.setBusSlot(0, bus: bus, playing: core.pool.realSources())
            sendRouter.rerouteBus(bus)
            EFX.deleteSlot(old.slot)
            EFX.deleteEffect(old.object)
            try ALCheck.strict("deleting a bus effect")
        }
        guard let effect else { return }
        guard core.configuration.busEffects else {
            throw .invalidArgument(
                "bus effects need a send of their own: create the engine with Configuration.busEffects = true")
        }
        guard efx.isAvailable, sendRouter.hasBusSend else {
            throw .extensionMissing(
                "ALC_EXT_EFX with a send for bus effects (granted \(efx.maxAuxiliarySends) sends, \(sendRouter.zoneSendCount) for zones)"
            )
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
        sendRouter.setBusSlot(slot, bus: bus, playing: core.pool.realSources())
    }

    /// Glides the zone slots toward what the listener should hear (playback time).
    func stepZones(elapsed: Double, core: EngineCore) {
        guard let zoneMixer, zoneMixer.isActive else { return }
        do throws(EarshotError) {
            let before = zoneMixer.crossFades
            try zoneMixer.step(listener: core.listener, elapsed: min(max(elapsed, 0), 0.25))
            if zoneMixer.crossFades != before { noteReverbCrossFade() }
        } catch {
            // Only AL_OUT_OF_MEMORY gets here (a misuse of our own objects traps): the zones
            // keep their last state and the next frame tries again.
        }
    }

    /// After a device rebuild: new slots on the new context with the state the old ones had.
    func rebuild(_ core: EngineCore) throws(EarshotError) {
        efx = EFXSupport.read(device: core.device.handle)
        sendRouter.forgetSources()
        sendRouter.configure(efx: efx, zoneSends: core.configuration.zoneSends)
        let effects = busEffects
        busEffects = [:]
        for (bus, e) in effects { try setBusEffect(e.effect, level: e.level, bus: bus, core: core) }
        if let r = roomReverbs {
            if roomReverbChannels > 0 {
                if try r.rebuild() { noteReverbCrossFade() }
            } else {
                roomReverbs = nil   // the new device lends no send: voices keep their zones
            }
        }
        guard let zoneMixer else {
            // Zones set while the device was lost get their slots now.
            if !reverbZones.isEmpty || !roomZones.isEmpty { try applyZones(reverbZones + roomZones, core: core) }
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
        sendRouter.setSlots(zoneMixer.slots, playing: core.pool.realSources())
    }
}

extension EngineCore {
    /// The environment's send router and EFX support (``EnvironmentStage`` owns them).
    var sendRouter: SendRouter { environment.sendRouter }
    var efx: EFXSupport { environment.efx }
}
