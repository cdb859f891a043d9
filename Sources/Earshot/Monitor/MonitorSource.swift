/// What the monitor may read of the engine, and nothing it may write: the core's own readings
/// (``MonitorSource``, conformed in `Engine/EngineCore+MonitorSource.swift`), the voice kernel's
/// voices (``MonitorVoiceSource``, `Voices/VoicePool+MonitorSource.swift`) and the parameters'
/// layers and values (``MonitorParameterSource``, `Parameters/ParameterStage+MonitorSource.swift`)
/// and music's tracks and sets (``MonitorMusicSource``, `Music/MusicSystem+MonitorSource.swift`).
/// The owners implement them next to their state; the monitor copies plain values out under the
/// AL lock (``MonitorCapture/fill(from:)``), once per monitor frame.
protocol MonitorSource: AnyObject {
    var now: Double { get }
    func audioTime() -> Double
    var sampleRate: Int { get }
    var isDeviceLost: Bool { get }
    var listener: Listener { get }
    var voiceSource: any MonitorVoiceSource { get }
    var parameterSource: any MonitorParameterSource { get }
    /// Plays refused by a sound's own limits (voice limit, cooldown), beside the pool's refusals.
    var soundRefusals: Int { get }
    /// The name of the clip with engine id `id` ("?" when it is not loaded).
    func clipName(_ id: UInt32) -> String
    func sound(forKey key: UInt32) -> Sound?
    var busTable: BusTable { get }
    var masterGain: Float { get }
    var mixer: Mixer { get }
    /// The power of every bus now (voices and music), by bus index.
    func monitorBusPower() -> [Float]
    /// The estimated momentary and short-term LUFS of bus `bus` (an index; nil: the master).
    func liveLoudness(ofBus bus: Int?) -> (momentary: Double, shortTerm: Double)
    /// The reverb zones the listener hears now, with the gain of each (as the sends mix them).
    func audibleZones() -> [(name: String, gain: Double)]
    /// How a positioned voice is heard through the rooms (nil: no geometry, or not positioned).
    func monitorPropagation(slot: Int, generation: UInt32) -> Propagation?
    /// The rooms whose reverbs ring now, as the listener hears them (nil: no geometry).
    func monitorRoomReverbs() -> [RoomReverbReading]?
}

/// The voice kernel's voices as the monitor sees them (read-only).
protocol MonitorVoiceSource: AnyObject {
    var monitorCounts: MonitorVoiceCounts { get }
    /// Calls `body` with each voice, real ones first, then the live ones that are not real,
    /// until it returns false.
    func forEachMonitorVoice(_ body: (MonitorVoiceRow) -> Bool)
}

struct MonitorVoiceCounts {
    var real: Int
    var live: Int
    var sources: Int
    var freeSources: Int
    var steals: Int
    var refusals: Int
}

struct MonitorVoiceRow {
    var slot: Int
    var generation: UInt32
    var clipID: UInt32
    /// The sound it plays (0: a clip played directly; a later layer's is in the parameters).
    var soundKey: UInt32
    var busIndex: Int
    var isReal: Bool
    /// Paused by itself or by its bus.
    var held: Bool
    var startAt: Double
    var gain: Float
    var audibility: Float
    var position: Vector3?
}

/// The parameters' layers and values as the monitor sees them (read-only).
protocol MonitorParameterSource: AnyObject {
    /// For a voice that is a layer of a layered sound: which sound and layer, and the slot and
    /// generation of the voice the game holds when it is a later layer (nil: not a layer).
    func monitorLayer(slot: Int, generation: UInt32) -> MonitorLayer?
    /// Calls `body` with the first `limit` parameters' names and global values, in order.
    func forEachMonitorParameter(limit: Int, _ body: (String, Double) -> Void)
}

struct MonitorLayer {
    var soundKey: UInt32
    var layer: Int16
    var leader: (index: UInt32, generation: UInt32)?
}

/// Music's tracks and sets as the monitor sees them (read-only). Called with no engine lock held.
protocol MonitorMusicSource: AnyObject {
    /// At most 64 tracks (music lock, then the AL lock for the play positions).
    func monitorTracks(host: any MusicHost) -> [MonitorFrame.TrackRow]
    /// At most 32 music sets with their states.
    func monitorSets() -> [MonitorFrame.MusicSetRow]
}
