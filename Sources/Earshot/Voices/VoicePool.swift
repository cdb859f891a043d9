import COpenAL

/// The voice manager: many logical voices on a fixed set of OpenAL sources.
///
/// ## The rules
/// - **Audibility** = master × bus gain × voice gain × distance attenuation (the engine's distance
///   model, computed in Swift exactly as OpenAL Soft does) × cone factor. Non-positional voices
///   have attenuation 1.
/// - **Standing**: voices are ranked by priority first (0 beats 255), then by audibility (louder
///   wins; compared to within 1/128, about 0.07 dB, so float noise between equally loud voices
///   cannot reorder them), then by age: **the newer voice wins** — the older one has been heard
///   the longest.
/// - Each ``schedule(now:)`` gives the real sources to the best-standing voices. Voices that are paused,
///   waiting for their start delay, or quieter than the audibility floor never hold a source.
/// - A voice losing its source **fades out** over `fadeTime` (default 5 ms) before its source is
///   stopped and reused: OpenAL Soft 1.19.1 clicks on a hard stop.
/// - A voice without a source is **virtual**: its playhead runs on the engine clock (frozen while
///   paused). When it wins a source it resumes at that playhead, fading in over `fadeTime` — unless
///   it was never heard and is less than `lateStartTolerance` late, in which case it starts from its
///   first frame at full gain (so a stolen-for gunshot keeps its attack). A one-shot whose playhead
///   passes its end while virtual ends (``VoiceEndReason/finished``).
/// - At most `maxVirtualVoices` voices exist beyond the real sources. When `start` finds the pool
///   full, the lowest-standing voice among the virtual ones and the new request loses: either the
///   request is refused (``VoiceStatus/refused``) or that virtual voice is evicted
///   (``VoiceEndReason/evicted``). Nothing throws on this path.
/// - Music tracks use sources reserved outside this pool: they are never stolen.
///
/// Everything here runs under the engine's AL lock. Steady-state work allocates nothing: every
/// array is sized at creation.
///
/// ## Where the parts live
/// The pool is the voice kernel: with its sources and the AL section it runs in, it is all that
/// touches a voice's slot. The engine's public voice API (`AudioEngine+Voices.swift`,
/// `AudioEngine+Emitters.swift`, `AudioEngine+VoiceEvents.swift`) and the features (sounds,
/// parameters, layers) call its methods, which say what they want done (start, stop, setGain,
/// setPaused, …).
/// - `VoicePool.swift` (this file): the state, slots and handles (generation-counted
///   `VoiceID`s), and `end`, which frees a slot and records why.
/// - `VoicePool+Start.swift`: `start` (a request to a slot) and `startReal` (a slot to a playing
///   source): the one place a voice's source is started; what a source is sent (gain, placement,
///   pitch, environment), each only when it differs from what the source has; the audibility and
///   the playhead a start needs. Everything a play runs in the pool is here.
/// - `VoicePool+Ranking.swift`: `outranks`, a scan for the worst virtual voice, the order of the
///   voices waiting for a source. The standing rule itself (the packed key and
///   the quickselect) is `VoiceRanking.swift`.
/// - `VoicePool+Schedule.swift`: `schedule` (once per frame: time, ends, standings, steals and
///   resumes), virtual voices' playheads, own envelopes, and delays held back by pauses.
/// - `VoicePool+Service.swift`: `service` (fades, completed fades releasing sources, starts),
///   `nextFadeBoundary`, `virtualize`, `releaseSource`.
/// - `VoicePool+Controls.swift`: stop, stopAll, a live voice's properties (setGain, setPitch,
///   setPan, setPosition, setPaused, …), detach, the engine's other controls.
/// - `VoicePool+DeviceLoss.swift`: suspendAll, replaceSources, rebindBuffers.
/// - `VoicePool+Emitters.swift`: the pool's side of the emitter table (`EmitterTable.swift`:
///   handles, properties, cached attenuations) and the removal of an emitter's voices.
/// - `VoicePool+Starts.swift`: voices waiting for their start time, in a min-heap the loopback
///   render cuts its mix calls at; `VoicePool+LiveStarts.swift`: exact starts on a live device.
/// - `VoicePool+Eviction.swift`: the min-heap of virtual voices' standings a full pool evicts from.
/// - `VoicePool+Timeline.swift`: where a voice is on its clip's timeline, and the markers it passes.
/// - `VoicePool+Levels.swift`: how loud a bus's real voices are, for the sidechain's detector.
/// - `VoicePool+Balance.swift`: a 2D stereo voice's two channels on two sources (a balance).
/// - `VoicePool+Sounds.swift`: what sounds' rules read of their voices (through ``VoiceKernel``).
/// - `VoicePool+MonitorSource.swift`: the read-only view the monitor copies.
/// - `EndedRing.swift`: the ended voices not yet delivered as events.
final class VoicePool {
    // Every stored property is `@exclusivity(unchecked)` (and EmitterTable's): the pool is only
    // touched under the AL lock, so the dynamic check verifies nothing the lock does not already
    // guarantee, and it costs (`earshot stress`: `schedule` +18 % per voice at 1,024 voices,
    // +50 % at 10,000 voices with 1,024 real).
    //
    // The pool's code is spread over the VoicePool+*.swift extensions, which cannot reach
    // `private` members: state they write is internal (or `private(set)` where they only read
    // it). That is for the pool's own files: everything else goes through the pool's methods.
    struct Settings {
        var fadeTime: Double
        var audibilityFloor: Float
        var lateStartTolerance: Double
        var maxVirtualVoices: Int
        /// Extra time a live device needs after a fade reached zero before the source may stop
        /// (two of its mixing periods); zero on loopback, where render boundaries are exact.
        var settleTime: Double
    }

    @exclusivity(unchecked) private(set) var settings: Settings
    @exclusivity(unchecked) var sources: [ALuint]
    @exclusivity(unchecked) var freeSources: [ALuint]
    /// The buffer each source still holds, indexed by source name. A released source keeps its
    /// buffer so that the next voice of the same clip skips `AL_BUFFER` (which allocates inside
    /// OpenAL Soft); buffers are detached only when their clip is unloaded.
    @exclusivity(unchecked) var attached: SlotTable<ALuint>
    /// What each source was last given (indexed by source name): properties are only sent to
    /// OpenAL when they differ, so starting a voice costs a few AL calls, not fifteen.
    @exclusivity(unchecked) var pushed: SlotTable<PushedState>

    struct PushedState {
        var spatial: SpatialProperties?
        var loop: Bool?
        var pitch: Float?
        /// `AL_SOURCE_SPATIALIZE_SOFT` and `AL_STEREO_ANGLES`, as a stereo voice last set them
        /// (VoicePool+Image.swift); mono voices leave them (both values play mono the same).
        var spatialize: ALint?
        var angles: (left: Float, right: Float)?
    }
    let slots: SlotTable<VoiceState>
    /// The slots, read-only: what the features read of a voice (Parameters/, Time/); they change
    /// one through the pool's methods.
    var voiceStates: SlotTable<VoiceState>.ReadOnly {
        @inline(__always) get { slots.readOnly }
    }
    @exclusivity(unchecked) var freeSlots: [Int]
    /// Indices of occupied slots, unordered.
    @exclusivity(unchecked) var live: [Int]
    /// Indices of real voices, unordered.
    @exclusivity(unchecked) var real: [Int]
    /// Desired voices still waiting for a source.
    @exclusivity(unchecked) var waiting: [Int]
    /// Candidates of the current update: packed standing keys and slot indices.
    @exclusivity(unchecked) var rankScratch: [RankEntry]

    typealias RankEntry = VoiceRanking.Entry
    /// The virtual voices as a min-heap on their standing key (the worst on top), so that a play
    /// into a full pool finds its victim in O(log n), not by scanning every voice
    /// (VoicePool+Eviction.swift). Valid only while ``evictionHeapValid``.
    @exclusivity(unchecked) var evictionHeap: [RankEntry]
    /// Whether ``evictionHeap`` holds every virtual voice with its current standing: cleared by
    /// anything that changes a standing or makes a voice virtual other than `start` (an update,
    /// a fade that hands a source back, `modify`, a lost device); rebuilt on the next eviction.
    @exclusivity(unchecked) var evictionHeapValid = false
    /// The age stamp of the newest voice (a later one is newer).
    @exclusivity(unchecked) var sequence: UInt64 = 0
    /// Voices waiting for their start time, as a min-heap on it (VoicePool+Starts.swift): the
    /// loopback render cuts its mix calls at the earliest, so a delayed voice starts on its frame.
    @exclusivity(unchecked) var pendingStarts: [PendingStart]
    /// Exact starts on a live device: mixing-clock targets, lead-ins, silence buffers
    /// (VoicePool+LiveStarts.swift).
    let liveStarts: LiveStartTable
    /// Why the last voice of each slot ended: what ``Voice/finished`` answers for a voice that
    /// ended before it was asked (exact while the slot has not ended another voice since).
    @exclusivity(unchecked) var endReasons: [VoiceEndReason]
    /// Ends of voices a task awaits (VoiceState.awaited), kept apart from the bounded ring of
    /// events so that none is lost; taken by the engine after each update and render.
    @exclusivity(unchecked) private var awaitedEnds: [(id: VoiceID, reason: VoiceEndReason)] = []
    /// The engine clock as the pool last saw it (play, schedule, a render's service): when an end
    /// that has no exact time of its own (a stop, an eviction) is recorded.
    @exclusivity(unchecked) var clock: Double = 0
    /// Where each voice is on its clip's timeline, its start's audio time and its clip's
    /// markers (VoiceTimeline.swift, VoicePool+Timeline.swift).
    let timeline: VoiceTimeline
    /// Emitters: handles, properties, environments and cached attenuations (EmitterTable.swift).
    let emitterTable = EmitterTable()
    /// The emitter table's columns under the names the pool and the engine read them by.
    var emitters: SlotTable<EmitterTable.State> {
        @inline(__always) get { emitterTable.states }
    }
    var emitterSpatial: SlotTable<SpatialProperties> {
        @inline(__always) get { emitterTable.spatial }
    }
    /// Ended voices not yet delivered as events (bounded ring; the oldest are dropped when full).
    @exclusivity(unchecked) private var ended = EndedRing(capacity: 4096)
    @exclusivity(unchecked) var stats = Stats()
    /// The buffer names queued for a voice with a loop count (grown to the largest count seen).
    @exclusivity(unchecked) var queueScratch: [ALuint] = []
    /// Whether ``service(now:lookahead:)`` has anything to do: a fade, a voice waiting for its
    /// first mix or for a freed source, or a property change. A render skips it otherwise.
    @exclusivity(unchecked) var serviceNeeded = true
    /// Whether some real voice has a fade action (steal or stop) under way: only then does
    /// ``service(now:lookahead:)`` look for completed fades.
    @exclusivity(unchecked) var releasesPending = false
    /// Whether the last update had more candidates than sources (see `schedule`).
    @exclusivity(unchecked) var expectOversubscribed = false

    /// Counters since the pool was made (see ``EngineStats`` for what each counts).
    struct Stats {
        /// Real voices that lost their source to a better-standing voice (the pool was full).
        var steals = 0
        /// Real voices that gave up their source because they, their bus or the whole engine
        /// (an audio-session interruption) were paused.
        var pauses = 0
        /// Real voices that gave up their source because they fell below the audibility floor.
        var virtualizations = 0
        var refusals = 0
        var evictions = 0
        var resumes = 0
        var finished = 0
        /// 2D stereo voices that found no second source free and played on one (the image
        /// moving with `pan`) until their next start.
        var balanceFallbacks = 0
    }

    /// Each source's environment: reverb sends and occlusion filters (Environment/).
    @exclusivity(unchecked) private(set) var router: SendRouter?
    /// Per emitter and per voice slot: occlusion, obstruction, air absorption, send level.
    var emitterEnvironment: SlotTable<EnvironmentProperties> {
        @inline(__always) get { emitterTable.environment }
    }
    let voiceEnvironment: SlotTable<EnvironmentProperties>
    /// Where the rooms' propagation says each positioned voice is heard from (VoicePool+Heard.swift).
    let heard: SlotTable<HeardPlacement>
    /// Some voice has been given a heard placement: only then do the pushes look it up. Never cleared.
    @exclusivity(unchecked) var heardInUse = false
    /// Per voice slot: degrees between a spread voice's channels (``PlayOptions/spread``; read
    /// only for voices with the spread flag, VoicePool+Image.swift).
    let voiceSpread: SlotTable<Float>
    /// Per voice slot: the gain of the clip handle that started it (``Clip/gain``, in its gain):
    /// a live edit of that handle's gain moves the voices it started, and only those
    /// (VoicePool+ClipGain.swift). A column, as the slot's 256 bytes are full.
    let voiceClipGain: SlotTable<Float>
    /// Per voice slot: its level before a live edit took its clip handle's gain to 0, so that an
    /// edit back restores it (VoicePool+ClipGain.swift; nil, or another voice's: none).
    let voiceClipMute: SlotTable<ClipMute?>
    /// Per voice slot: a stereo clip's channel buffers and, while it plays as a channel pair, its
    /// second source (read only for stereo voices, VoicePool+Balance.swift).
    let balance: SlotTable<BalanceState>
    /// Real voices playing as a channel pair: each holds a second source the ranking counts.
    @exclusivity(unchecked) var partnersInUse = 0
    /// Some 2D stereo voice with channel buffers has played (never cleared): only then does the
    /// ranking count the second source each waiting one needs.
    @exclusivity(unchecked) var pairsInUse = false
    /// Bus gains without master (index = bus index), each bus's hold, and master; kept current
    /// by the engine.
    @exclusivity(unchecked) private(set) var busGains: [Float] = []
    @exclusivity(unchecked) private(set) var busPaused: [Bool] = []
    /// Engine time up to which paused spans have been added to the start times of voices still
    /// waiting for their delay (see ``accountPauses(now:)``).
    @exclusivity(unchecked) var pausesAccountedUntil: Double = 0
    /// Some voice may have its own envelope moving (a fade-in or stop fade): only then does
    /// ``service(now:lookahead:)`` read each real voice's own envelope, which lies outside the
    /// hot line. Cleared by a service pass that found none moving.
    @exclusivity(unchecked) var ownFadesMayRun = false
    /// Some voice or emitter has had distance settings the engine computes a gain for (a curve,
    /// a distance model of its own, `beyondMax: silent`; see
    /// ``SpatialProperties/hasPlainDistance``): only then does `schedule` work out each
    /// positioned voice's ``VoiceState/distanceGain`` (until then every one is 1). Never cleared.
    @exclusivity(unchecked) var engineDistanceInUse = false
    @exclusivity(unchecked) private(set) var masterGain: Float = 1
    @exclusivity(unchecked) private(set) var listenerPosition = Vector3.zero {
        didSet { if listenerPosition != oldValue { geometryEpoch &+= 1 } }
    }
    @exclusivity(unchecked) private(set) var distanceModel: DistanceModel = .inverseClamped {
        didSet { if distanceModel != oldValue { geometryEpoch &+= 1 } }
    }
    /// Bumped when the listener moves or the distance model changes: every cached emitter
    /// attenuation is stale then.
    @exclusivity(unchecked) private(set) var geometryEpoch: UInt32 = 1
    /// Several listeners (Listeners/, through ``ListenerRig``): how a place in the world is heard
    /// through the one OpenAL listener. Nil with one listener, the common case, which maps
    /// nothing (VoicePool+Listeners.swift).
    @exclusivity(unchecked) private(set) var rig: (any ListenerRig)?
    /// The OpenAL listener's orientation: where a spread voice's channels go (VoicePool+Image.swift).
    @exclusivity(unchecked) private(set) var listenerAt = Vector3(0, 0, -1)
    @exclusivity(unchecked) private(set) var listenerUp = Vector3(0, 1, 0)
    /// Whether a move must send a voice's whole placement, not its position alone: several
    /// listeners (the heard velocity follows the position), or a spread voice has played (its
    /// channels' angles follow it). Never cleared once a spread voice played.
    @exclusivity(unchecked) var mapsPositions = false
    /// Whether some voice has played with a spread (never cleared): then a listener's move sends
    /// the spread voices' angles again.
    @exclusivity(unchecked) var spreadInUse = false
    /// Whether the device pans by OpenAL Soft's stereo pair law (stereo output without HRTF):
    /// spread voices' angles are compensated for its widening (``StereoImage``).
    @exclusivity(unchecked) private(set) var stereoPairPanning = true

    init(sources: [ALuint], settings: Settings, distanceModel: DistanceModel, router: SendRouter?) {
        self.sources = sources
        self.settings = settings
        self.distanceModel = distanceModel
        self.router = router
        freeSources = sources.reversed()
        attached = SlotTable(repeating: 0, count: Int(sources.max() ?? 0) + 1)
        pushed = SlotTable(repeating: PushedState(), count: Int(sources.max() ?? 0) + 1)
        let capacity = sources.count + settings.maxVirtualVoices
        slots = SlotTable(repeating: VoiceState(), count: capacity)
        voiceEnvironment = SlotTable(repeating: .open, count: capacity)
        heard = SlotTable(repeating: HeardPlacement(), count: capacity)
        voiceSpread = SlotTable(repeating: 0, count: capacity)
        voiceClipGain = SlotTable(repeating: 1, count: capacity)
        voiceClipMute = SlotTable(repeating: nil, count: capacity)
        balance = SlotTable(repeating: BalanceState(), count: capacity)
        freeSlots = Array((0..<capacity).reversed())
        live = []
        live.reserveCapacity(capacity)
        real = []
        real.reserveCapacity(sources.count)
        waiting = []
        waiting.reserveCapacity(capacity)
        rankScratch = []
        rankScratch.reserveCapacity(capacity)
        evictionHeap = []
        evictionHeap.reserveCapacity(2 * capacity)
        pendingStarts = []
        pendingStarts.reserveCapacity(2 * capacity + 1)
        endReasons = [VoiceEndReason](repeating: .finished, count: capacity)
        liveStarts = LiveStartTable(capacity: capacity)
        timeline = VoiceTimeline(capacity: capacity)
        for s in sources {
            alSourcef(s, AL_MAX_GAIN, 16)
        }
    }

    // MARK: What the engine keeps current

    /// Sets bus `index`'s gain (without master) and whether its voices are held; returns which
    /// of the two changed. The caller marks the gains dirty (``markAllGainsDirty()``).
    func setBus(_ index: Int, gain: Float, held: Bool) -> (level: Bool, hold: Bool) {
        let changed = (busGains[index] != gain, busPaused[index] != held)
        busGains[index] = gain
        busPaused[index] = held
        return changed
    }

    /// Replaces every bus's gain and hold (index = bus index): buses were added.
    func setBuses(gains: [Float], held: [Bool]) {
        busGains = gains
        busPaused = held
    }

    var busCount: Int { busGains.count }

    func setMasterGain(_ gain: Float) { masterGain = gain }
    func setListenerPosition(_ position: Vector3) { listenerPosition = position }
    /// The OpenAL listener's pose (the first listener's): its position as above; its orientation
    /// moves the spread voices' channels.
    func setListenerPose(position: Vector3, at: Vector3, up: Vector3) {
        let turned = at != listenerAt || up != listenerUp
        listenerAt = at
        listenerUp = up
        let moved = position != listenerPosition
        listenerPosition = position
        if spreadInUse, turned || moved { markSpatialDirty(spreadOnly: true) }
    }

    func setStereoPairPanning(_ on: Bool) { stereoPairPanning = on }

    /// Installs or removes (nil: one listener again) the several listeners' mapping; every
    /// positioned voice is heard anew.
    func setRig(_ newRig: (any ListenerRig)?) {
        rig = newRig
        mapsPositions = newRig != nil || spreadInUse
        listenersMoved()
    }

    /// The listeners of the rig moved (or changed weight): every cached emitter attenuation is
    /// stale, and every positioned real voice sends its placement again.
    func listenersMoved() {
        geometryEpoch &+= 1
        markSpatialDirty(spreadOnly: false)
    }
    /// A rebuilt device's mixing period: the time a completed fade waits before its source stops.
    func setSettleTime(_ seconds: Double) { settings.settleTime = seconds }

    var capacity: Int { slots.count }
    var realCount: Int { real.count }
    var liveCount: Int { live.count }
    /// Real voices playing as a channel pair (each holds a second source).
    var pairedCount: Int { partnersInUse }

    // MARK: What the engine's frame and the audio clock read (Engine/, Time/)

    /// Whether ``service(now:lookahead:)`` has anything to do (a render skips it otherwise).
    var needsService: Bool { serviceNeeded }
    /// Whether scheduled starts wait: live, the frame starts those due soon with a lead-in.
    var hasPendingStarts: Bool { !pendingStarts.isEmpty }
    /// Whether live lead-ins wait to be trimmed (VoicePool+LiveStarts.swift).
    var hasSettlingLeadIns: Bool { !liveStarts.settling.isEmpty }
    /// Whether some voice's clip has markers it has yet to report.
    var hasMarkedVoices: Bool { !timeline.marked.isEmpty }
    /// The audio time the first frame of the voice in slot `index` is, or was to be, heard at.
    func startAudioTime(ofSlot index: Int) -> Double { timeline.startAudio[index] }

    // MARK: Handles

    func slot(_ id: VoiceID) -> Int? {
        let i = Int(id.index)
        guard i < slots.count, slots[i].phase != .free, slots[i].generation == id.generation else { return nil }
        return i
    }

    func status(_ id: VoiceID, now: Double) -> VoiceStatus {
        if id.index == VoiceID.refused.index { return .refused }
        guard let i = slot(id) else { return .stopped }
        // Stopped by the game (or stolen by its sound's limit): stopped from that call on, even
        // while the fade-out still sounds and until the next update ends it.
        if slots[i].ownStops || slots[i].fadeAction == .stop { return .stopped }
        switch slots[i].phase {
        case .free: return .stopped
        case .real: return slots[i].startAt > now ? .pending : .real   // in its lead-in (live)
        case .virtual: return slots[i].startAt > now ? .pending : .virtual
        }
    }

    // MARK: End: a slot freed, its end recorded

    /// Takes a slot out of `real` in O(1).
    func removeFromReal(_ index: Int) {
        Self.swapRemove(index, from: &real, position: \.realIndex, in: slots)
    }

    /// Removes slot `index` from `list` in O(1): the last entry takes its place, and the slot field
    /// at `position` (each slot's own index in that list) follows it.
    @inline(__always)
    private static func swapRemove(_ index: Int, from list: inout [Int], position: WritableKeyPath<VoiceState, Int>,
                                   in slots: SlotTable<VoiceState>) {
        let at = slots[index][keyPath: position]
        let last = list.removeLast()
        if last != index {
            list[at] = last
            slots[last][keyPath: position] = at
        }
        slots[index][keyPath: position] = -1
    }

    /// Ends a voice now (its source, if any, must already be silent or be allowed to cut).
    /// `time`: when it ended on the engine clock — a one-shot's exact last frame when the caller
    /// knows it, else the pool's ``clock``.
    func end(_ index: Int, reason: VoiceEndReason, at time: Double? = nil) {
        if slots[index].phase == .real { releaseSource(index) }
        let id = VoiceID(index: UInt32(index), generation: slots[index].generation)
        Self.swapRemove(index, from: &live, position: \.liveIndex, in: slots)
        slots[index].phase = .free
        slots[index].desired = false
        slots[index].generation &+= 1
        freeSlots.append(index)
        // Record the event (the ring keeps the newest 4096 between drains).
        ended.record(id, reason, sound: slots[index].soundKey, time: min(time ?? clock, clock))
        slots[index].soundKey = 0
        timeline.end(index)
        endReasons[index] = reason
        if slots[index].awaited {
            slots[index].awaited = false
            awaitedEnds.append((id, reason))
        }
    }

    /// What awaiting voice `id` finds: still live (now marked awaited: its end will be filed in
    /// ``awaitedEnds``), or ended — with its reason while the slot remembers it, nil once the
    /// slot has ended another voice since.
    enum AwaitedEnd { case live, ended(VoiceEndReason?) }
    func awaitEnd(_ id: VoiceID) -> AwaitedEnd {
        if let i = slot(id) {
            slots[i].awaited = true
            return .live
        }
        let i = Int(id.index)
        guard i < slots.count else { return .ended(nil) }
        return .ended(slots[i].generation == id.generation &+ 1 ? endReasons[i] : nil)
    }

    /// Files the end of a voice made of several (a timeline sound's, Timelines/) for the tasks
    /// awaiting its handle `id`: delivered with the pool's own awaited ends.
    func fileAwaitedEnd(_ id: VoiceID, reason: VoiceEndReason) {
        awaitedEnds.append((id, reason))
    }

    /// Records a play that never started (refused by the pool, a sound's limit or its cooldown).
    func recordRefusal(_ reason: VoiceEndReason, sound: UInt32) {
        ended.record(.refused, reason, sound: sound, time: clock)
    }

    /// Hands the recorded ends (voice, reason, sound key or 0, engine-clock time) to `body` and
    /// forgets them.
    func drainEnded(_ body: (VoiceID, VoiceEndReason, UInt32, Double) -> Void) {
        while let e = ended.popOldest() {
            body(e.id, e.reason, e.sound, e.time)
        }
    }

    var hasEnded: Bool { !ended.isEmpty || !awaitedEnds.isEmpty }

    /// Hands over the ends awaited since the last call (see ``awaitEnd(_:)``).
    func takeAwaitedEnds() -> [(id: VoiceID, reason: VoiceEndReason)] {
        var taken: [(id: VoiceID, reason: VoiceEndReason)] = []
        swap(&taken, &awaitedEnds)
        return taken
    }
}

extension VoiceID {
    /// The handle `play` returns for a refused request.
    static let refused = VoiceID(index: .max, generation: .max)
}
