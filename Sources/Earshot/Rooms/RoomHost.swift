/// What the rooms need of the engine core, and all they may change there: the listener, the
/// positioned voices and their distance gain, and one call that places a voice where it is
/// heard from through the filter of its path. ``RoomStage`` owns the geometry and the
/// propagation; `Engine/EngineCore+Rooms.swift` conforms the core. Every call is under the AL lock.
protocol RoomHost: AnyObject {
    var listener: Listener { get }
    /// Whether playback time stands still (``AudioEngine/pauseAll(except:)`` or an audio-session
    /// interruption): the portals' ramps wait.
    var playbackHeld: Bool { get }
    /// Voice slots in all (the per-voice tables follow it).
    var voiceCapacity: Int { get }
    /// Calls `body` with the slot, generation and position of every live positioned voice.
    func forEachPositionedVoice(_ body: (_ slot: Int, _ generation: UInt32, _ position: Vector3) -> Void)
    /// The voice's distance × cone gain were it at `position` (its own distance settings).
    func attenuation(ofSlot slot: Int, at position: Vector3) -> Float
    /// Hears the voice from `position` through `filter` (nil: where it is, unfiltered).
    func setHeard(ofSlot slot: Int, position: Vector3?, filter: LowPassFilter)
    /// The slot of a live voice.
    func slot(of id: VoiceID) -> Int?
}
