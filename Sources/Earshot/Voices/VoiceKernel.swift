import COpenAL

/// What a feature asks of the voice kernel — the pool, its sources and the AL section they run
/// in (``VoicePool``) — as music asks the engine through ``MusicHost``: start a resolved play,
/// stop, steal, change a live voice, and read what a feature's rules need of a voice. The
/// slots themselves stay the kernel's: a feature names a voice by its ``VoiceID`` (or the slot
/// index ``slot(_:)`` gave it in the same AL section) and says what it wants done.
///
/// The sounds (Sounds/SoundTable.swift) take the kernel as `some VoiceKernel`, so the compiler
/// holds them to this surface; a release build specialises the calls, which cost what direct
/// calls cost. The curves (Parameters/) take it the same way where they step, evaluate and adopt
/// voices; where they start one they call the pool itself (``VoicePool/start(_:now:)``). Every
/// method runs under the AL lock.
protocol VoiceKernel: AnyObject {
    /// Slots in all: real sources plus ``AudioEngine/Configuration/maxVirtualVoices``.
    var capacity: Int { get }

    /// Starts a voice for a play ``PlayResolver`` resolved in this AL section; ``VoiceID/refused``
    /// when the pool is full and the request stands lowest.
    func start(_ play: ResolvedPlay, now: Double) -> VoiceID
    /// Voice `id`, just started from clip frame `startFrame`, reports its clip's `markers`.
    func mark(_ id: VoiceID, markers: [Marker], from startFrame: Double)
    /// Records a play that never started (a refusal by a sound's limit or cooldown).
    func recordRefusal(_ reason: VoiceEndReason, sound: UInt32)

    /// The slot of a live voice; nil for one that ended.
    func slot(_ id: VoiceID) -> Int?
    func stop(_ id: VoiceID, fade: Double)
    /// Stops the voice in slot `index` with the steal fade; it ends as ``VoiceEndReason/stolen``.
    func steal(_ index: Int)
    func setGain(_ id: VoiceID, _ gain: Float)
    func setPitch(_ id: VoiceID, _ pitch: Float, now: Double)
    func setPaused(_ id: VoiceID, _ paused: Bool, now: Double)

    // What the curves write (Parameters/), by slot index within one AL section.
    func setGain(ofSlot index: Int, _ gain: Float)
    func setPitch(ofSlot index: Int, _ pitch: Float, now: Double)
    func setPriority(ofSlot index: Int, _ priority: UInt8)
    /// A layer keeps in step with its first layer (pause, position or pan).
    func follow(_ index: Int, id: VoiceID, leader: Int, now: Double)
    /// A layer whose first layer ended or stopped stops too.
    func stopLayer(_ index: Int, id: VoiceID)

    // What the curves read: a voice's state (read-only), the live voices, the buses' holds, an
    // emitter's generation and the sources' filters.
    var voiceStates: SlotTable<VoiceState>.ReadOnly { get }
    /// Slots of the live voices, unordered.
    var live: [Int] { get }
    /// Whether each bus's voices are held (index = bus index).
    var busPaused: [Bool] { get }
    /// Each source's sends and filters (nil without EFX).
    var router: SendRouter? { get }
    /// Calls `body` with each source a real voice plays on (nothing for a virtual one): its own,
    /// and a channel pair's second (VoicePool+Balance.swift) — what a voice's filters go on.
    func forEachSource(ofSlot index: Int, _ body: (ALuint) -> Void)
    /// The generation of emitter `index` (its handle's; a reused emitter slot has a new one).
    func emitterGeneration(_ index: Int) -> UInt32

    // What a sound's rules read of its voices (slot indices from `slot(_:)`).
    func gain(ofSlot index: Int) -> Float
    func pitch(ofSlot index: Int) -> Float
    func priority(ofSlot index: Int) -> UInt8
    /// Whether the voice is held back by its sound's instance limit (`virtual` mode).
    func isHeld(_ index: Int) -> Bool
    /// The emitter the voice follows (−1: none).
    func emitter(ofSlot index: Int) -> Int
    /// Whether the voice was stolen for its sound's limit (its fade-out may still sound).
    func wasStolen(_ index: Int) -> Bool
    /// How loud the voice is heard now.
    func heardLevel(_ index: Int) -> Float
    /// Lets a voice held by its sound's limit compete for a source again.
    func release(held index: Int)
    /// Live voices of the sound `key`.
    func count(ofSound key: UInt32) -> Int
    /// The live voices of the sound `key`, oldest first.
    func voices(ofSound key: UInt32) -> [VoiceID]
    /// Detaches every voice from a removed sound: they play on as clip voices.
    func forgetSound(_ key: UInt32)

    // What a timeline sound asks (Timelines/): a loop ended at its pass's end (seconds until
    // then), a voice's status, and the end of the whole filed for the tasks awaiting it.
    func endLoop(_ id: VoiceID, now: Double) -> Double?
    func status(_ id: VoiceID, now: Double) -> VoiceStatus
    func fileAwaitedEnd(_ id: VoiceID, reason: VoiceEndReason)
}

extension VoicePool: VoiceKernel {}
