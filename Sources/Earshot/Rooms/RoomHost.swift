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
    /// How many other rooms' reverbs can ring at once (0: none — no EFX, or one zone send).
    var roomReverbChannels: Int { get }
    /// Room reverb channel `channel` rings with `reverb`, heard from `pan` (the listener's EAX
    /// frame, length 0 all around, 1 a point); a comparison when nothing changed.
    func setRoomReverb(channel: Int, reverb: ReverbProperties, pan: Vector3)
    /// The voice's own room's reverb is channel `channel` (-1: none, its sends go to the zones).
    func setRoomSend(ofSlot slot: Int, channel: Int)
    /// The slot of a live voice.
    func slot(of id: VoiceID) -> Int?
}
