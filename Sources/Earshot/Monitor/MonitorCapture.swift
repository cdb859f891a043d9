/// What the monitor copies out of the engine at one game frame, on the game's thread: plain
/// values, bounded (at most ``MonitorProtocol/maxVoiceRows`` voices), turned into a
/// ``MonitorFrame`` and JSON later, on the monitor's own thread.
struct MonitorCapture {
    struct VoiceSample {
        var index: UInt32
        var generation: UInt32
        var clip: String
        var soundKey: UInt32
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
    /// Sound keys of the voices, with the name to show (resolved under the lock, once per key).
    var soundNames: [UInt32: String] = [:]
    var busNames: [String] = []
    var buses: [MonitorFrame.BusRow] = []
    var snapshots: [MonitorFrame.SnapshotRow] = []
    var zones: [MonitorFrame.ZoneRow] = []
    /// Game parameters' global values (at most 256), in definition order.
    var parameters: [MonitorFrame.ParameterRow] = []

    mutating func reset() {
        voices.removeAll(keepingCapacity: true)
        soundNames.removeAll(keepingCapacity: true)
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
        func add(_ i: Int) {
            let v = p.slots[i]
            let held = v.paused || (v.busIndex < p.busPaused.count && p.busPaused[v.busIndex])
            let state: UInt8 = v.startAt > now ? 3 : held ? 2 : v.phase == .real ? 0 : 1
            let clip = Int(v.clipID) < clips.count ? clips[Int(v.clipID)].info?.name ?? "?" : "?"
            if v.soundKey != 0, capture.soundNames[v.soundKey] == nil {
                capture.soundNames[v.soundKey] = sounds.sound(forKey: v.soundKey).map(MonitorNames.name(of:)) ?? "sound"
            }
            capture.voices.append(.init(index: UInt32(i), generation: v.generation, clip: clip, soundKey: v.soundKey,
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
    /// A sound's name for the monitor: its first clip's file name (and how many more it picks
    /// from). Sounds carry no name of their own yet; designer banks (issue 28) will, and then
    /// this is where their name goes.
    static func name(of sound: Sound) -> String {
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
