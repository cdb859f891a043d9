/// What the monitor copies out of the engine at one game frame, on the game's thread: plain
/// values, bounded (at most ``MonitorProtocol/maxVoiceRows`` voices), turned into a
/// ``MonitorFrame`` and JSON later, on the monitor's own thread.
struct MonitorCapture {
    struct VoiceSample {
        var index: UInt32
        var generation: UInt32
        var clip: String
        /// The sound it plays (a layer's too: the layered sound's), 0 for a clip played directly.
        var soundKey: UInt32
        /// Which of the sound's clips it plays (0-based; -1: not a pick of a sound), and, for a
        /// layer of a layered sound, which layer (0-based; -1: not a layer) and the slot and
        /// generation of the voice the game holds (its first layer) when it is a later layer.
        var variation: Int16
        var layer: Int16
        var leader: (index: UInt32, generation: UInt32)?
        var bus: Int
        var state: UInt8   // 0 real, 1 virtual, 2 paused, 3 pending
        var gain: Float
        var audibility: Float
        var position: Vector3?
        var age: Double
        /// Its way through the rooms (nil with no geometry).
        var room: Propagation? = nil
    }

    var audioTime: Double = 0
    var sampleRate = 0
    /// The pool's counts; `refusals` adds the plays sounds refused by their own limits.
    var counts = MonitorVoiceCounts(real: 0, live: 0, sources: 0, freeSources: 0, steals: 0, refusals: 0)
    var deviceLost = false
    var listener = Vector3.zero
    var voices: [VoiceSample] = []
    /// Sound keys of the voices, with what to show of each (resolved under the lock, once per key).
    var sounds: [UInt32: SoundSample] = [:]

    struct SoundSample {
        var name: String
        /// Its clips (a layered sound's: one per layer), by engine clip id.
        var clipIDs: [UInt32]
        var layered: Bool
    }
    var busNames: [String] = []
    var buses: [MonitorFrame.BusRow] = []
    /// The master's estimated momentary and short-term LUFS (floored).
    var masterLoudness: (momentary: Double, shortTerm: Double) = (MonitorProtocol.silenceDecibels, MonitorProtocol.silenceDecibels)
    var snapshots: [MonitorFrame.SnapshotRow] = []
    var zones: [MonitorFrame.ZoneRow] = []
    /// The rooms whose reverbs ring (nil: no geometry).
    var roomReverbs: [RoomReverbReading]?
    /// Game parameters' global values (at most 256), in definition order.
    var parameters: [MonitorFrame.ParameterRow] = []

    mutating func reset() {
        voices.removeAll(keepingCapacity: true)
        sounds.removeAll(keepingCapacity: true)
        busNames.removeAll(keepingCapacity: true)
        buses.removeAll(keepingCapacity: true)
        snapshots.removeAll(keepingCapacity: true)
        zones.removeAll(keepingCapacity: true)
        parameters.removeAll(keepingCapacity: true)
        roomReverbs = nil
    }
}

extension MonitorCapture {
    /// Fills the capture with the engine's state now, through what ``MonitorSource`` lets the
    /// monitor read. Under the AL lock (the caller's `withAL`); at most
    /// ``MonitorProtocol/maxVoiceRows`` voices, real ones first.
    mutating func fill(from core: some MonitorSource) {
        reset()
        let now = core.now
        let voices = core.voiceSource, layers = core.parameterSource
        audioTime = core.audioTime()
        sampleRate = core.sampleRate
        counts = voices.monitorCounts
        counts.refusals += core.soundRefusals
        deviceLost = core.isDeviceLost
        listener = core.listener.position
        let limit = MonitorProtocol.maxVoiceRows
        voices.forEachMonitorVoice { v in
            guard self.voices.count < limit else { return false }
            add(v, now: now, layers: layers, core: core)
            return self.voices.count < limit
        }

        let power = core.monitorBusPower()   // music streamed on a bus is metered with its voices
        let table = core.busTable
        for (i, b) in table.states.enumerated() {
            busNames.append(b.bus.name)
            buses.append(.init(name: b.bus.name, gainDB: MonitorNames.decibels(b.gain),
                               effectiveDB: MonitorNames.decibels(core.masterGain * table.treeGain(at: i)),
                               paused: b.paused, muted: b.muted, held: table.isHeldByGame(b.bus),
                               levelDBFS: max(MonitorProtocol.silenceDecibels, Mixer.decibels(power: power[i])),
                               duckDB: MonitorNames.decibels(min(b.duck, b.sidechain)),
                               snapshotDB: MonitorNames.decibels(b.snapshot),
                               parent: table.parents[i] >= 0 ? table.buses[table.parents[i]].name : nil,
                               vcaDB: MonitorNames.decibels(table.vcaFactors[i])))
            let loudness = core.liveLoudness(ofBus: i)
            buses[buses.count - 1].momentaryLUFS = max(MonitorProtocol.silenceDecibels, loudness.momentary)
            buses[buses.count - 1].shortTermLUFS = max(MonitorProtocol.silenceDecibels, loudness.shortTerm)
        }
        let master = core.liveLoudness(ofBus: nil)
        masterLoudness = (max(MonitorProtocol.silenceDecibels, master.momentary),
                          max(MonitorProtocol.silenceDecibels, master.shortTerm))
        for s in core.mixer.snapshots {
            snapshots.append(.init(name: s.snapshot.name, intensity: Double(s.weight.value), ending: s.ending))
        }
        layers.forEachMonitorParameter(limit: 256) { parameters.append(.init(name: $0, value: $1)) }
        for zone in core.audibleZones() { zones.append(.init(name: zone.name, gain: zone.gain)) }
        roomReverbs = core.monitorRoomReverbs()
    }

    private mutating func add(
        _ v: MonitorVoiceRow, now: Double, layers: any MonitorParameterSource, core: some MonitorSource
    ) {
        let state: UInt8 = v.startAt > now ? 3 : v.held ? 2 : v.isReal ? 0 : 1
        // A layer after the first holds no sound key of its own in the pool: the parameters say
        // which sound and layer it plays, and whose layer it is.
        var key = v.soundKey
        var layer: Int16 = -1
        var leader: (index: UInt32, generation: UInt32)?
        if let l = layers.monitorLayer(slot: v.slot, generation: v.generation) {
            key = l.soundKey
            layer = l.layer
            leader = l.leader
        }
        if key != 0, sounds[key] == nil {
            let sound = core.sound(forKey: key)
            sounds[key] = SoundSample(name: sound.map(MonitorNames.name(of:)) ?? "sound",
                                      clipIDs: sound?.definition.clips.map(\.id) ?? [],
                                      layered: sound?.definition.isLayered ?? false)
        }
        var variation: Int16 = -1
        if key != 0, layer < 0, let s = sounds[key], !s.layered, let k = s.clipIDs.firstIndex(of: v.clipID) {
            variation = Int16(k)
        }
        voices.append(
            .init(
                index: UInt32(v.slot), generation: v.generation, clip: core.clipName(v.clipID), soundKey: key,
                variation: variation, layer: layer, leader: leader, bus: v.busIndex, state: state,
                gain: v.gain, audibility: v.audibility, position: v.position, age: now - v.startAt,
                room: v.position == nil ? nil : core.monitorPropagation(slot: v.slot, generation: v.generation)))
    }
}

/// How the monitor names and measures things.
enum MonitorNames {
    /// A sound's name for the monitor: its own (``SoundDefinition/name``: a bank's or scene's
    /// id), else its first clip's file name and how many more it picks from (`step.wav+2`).
    static func name(of sound: Sound) -> String {
        if let name = sound.definition.name, !name.isEmpty { return name }
        let clips = sound.definition.clips
        guard let first = clips.first else { return "sound" }
        let name = fileName(first.info.name)
        return clips.count > 1 ? "\(name)+\(clips.count - 1)" : name
    }

    /// The last path component.
    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// A linear gain in dB, floored at ``MonitorProtocol/silenceDecibels`` (finite always).
    static func decibels(_ gain: Float) -> Double {
        guard gain.isFinite, gain > 0 else { return MonitorProtocol.silenceDecibels }
        return max(MonitorProtocol.silenceDecibels, 20 * Double(log10f(gain)))
    }
}

#if canImport(Glibc)
import Glibc
#endif
