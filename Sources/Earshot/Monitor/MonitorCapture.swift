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
    }

    var audioTime: Double = 0
    var sampleRate = 0
    var realVoices = 0
    var liveVoices = 0
    var voiceSources = 0
    var freeSources = 0
    var steals = 0
    var refusals = 0
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
    var snapshots: [MonitorFrame.SnapshotRow] = []
    var zones: [MonitorFrame.ZoneRow] = []
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
    }
}

extension EngineCore {
    /// Fills `capture` with the core's state now. Under the AL lock (the caller's `withAL`); reads
    /// only, and at most ``MonitorProtocol/maxVoiceRows`` voices, real ones first.
    func captureForMonitor(into capture: inout MonitorCapture) {
        capture.reset()
        let now = self.now
        let p = pool
        capture.audioTime = audioTime()
        capture.sampleRate = sampleRate
        capture.realVoices = p.realCount
        capture.liveVoices = p.liveCount
        capture.voiceSources = p.sources.count
        capture.freeSources = p.freeSources.count
        capture.steals = p.stats.steals
        capture.refusals = p.stats.refusals + sounds.stats.limitRefusals + sounds.stats.cooldownRefusals
        capture.deviceLost = isDeviceLost
        capture.listener = listener.position
        let limit = MonitorProtocol.maxVoiceRows
        let curves = parameters.voices.entries
        func add(_ i: Int) {
            let v = p.slots[i]
            let held = v.paused || (v.busIndex < p.busPaused.count && p.busPaused[v.busIndex])
            let state: UInt8 = v.startAt > now ? 3 : held ? 2 : v.phase == .real ? 0 : 1
            let clip = Int(v.clipID) < clips.count ? clips[Int(v.clipID)].info?.name ?? "?" : "?"
            // A layer after the first holds no sound key of its own in the pool: its curve entry
            // says which sound and layer it plays, and whose layer it is.
            var key = v.soundKey
            var layer: Int16 = -1
            var leader: (index: UInt32, generation: UInt32)?
            if i < curves.count, curves[i].active, curves[i].generation == v.generation, curves[i].layer >= 0 {
                key = curves[i].soundKey
                layer = curves[i].layer
                if curves[i].leader >= 0 { leader = (UInt32(curves[i].leader), curves[i].leaderGeneration) }
            }
            if key != 0, capture.sounds[key] == nil {
                let sound = sounds.sound(forKey: key)
                capture.sounds[key] = MonitorCapture.SoundSample(
                    name: sound.map(MonitorNames.name(of:)) ?? "sound", clipIDs: sound?.definition.clips.map(\.id) ?? [],
                    layered: sound?.definition.isLayered ?? false)
            }
            var variation: Int16 = -1
            if key != 0, layer < 0, let s = capture.sounds[key], !s.layered, let k = s.clipIDs.firstIndex(of: v.clipID) {
                variation = Int16(k)
            }
            capture.voices.append(.init(index: UInt32(i), generation: v.generation, clip: clip, soundKey: key,
                                        variation: variation, layer: layer, leader: leader,
                                        bus: v.busIndex, state: state, gain: v.gain, audibility: v.audibility,
                                        position: p.position(ofSlot: i), age: now - v.startAt))
        }
        for i in p.real where capture.voices.count < limit { add(i) }
        for i in p.live where capture.voices.count < limit && p.slots[i].phase != .real { add(i) }

        var power = [Float](repeating: 0, count: buses.count)
        p.accumulatePower(into: &power, buses: [Bool](repeating: true, count: buses.count), now: now) { clip, playhead in
            Int(clip) < clips.count ? clips[Int(clip)].levels.power(at: playhead) : 0
        }
        addStreamedPower(into: &power)   // music streamed on a bus is metered with its voices
        for (i, b) in buses.enumerated() {
            capture.busNames.append(b.bus.name)
            capture.buses.append(.init(name: b.bus.name, gainDB: MonitorNames.decibels(b.gain),
                                       effectiveDB: MonitorNames.decibels(masterGain * b.effectiveGain),
                                       paused: b.paused, muted: b.muted, held: isHeldByGame(b.bus),
                                       levelDBFS: max(MonitorProtocol.silenceDecibels, Self.decibels(power: power[i])),
                                       duckDB: MonitorNames.decibels(min(b.duck, b.sidechain)),
                                       snapshotDB: MonitorNames.decibels(b.snapshot)))
        }
        for s in mixer.snapshots {
            capture.snapshots.append(.init(name: s.snapshot.name, intensity: Double(s.weight.value), ending: s.ending))
        }
        for (i, d) in parameters.definitions.prefix(256).enumerated() where i < parameters.global.count {
            capture.parameters.append(.init(name: d.name, value: parameters.global[i].current))
        }
        let zones = environment.reverbZones
        if !zones.isEmpty {
            for send in ZoneBlend.mix(zones: zones, listener: listener, sends: max(1, sendRouter.zoneSendCount)) where send.zone < zones.count {
                capture.zones.append(.init(name: zones[send.zone].name, gain: Double(send.gain)))
            }
        }
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
