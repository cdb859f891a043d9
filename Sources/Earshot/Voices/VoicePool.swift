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
/// - Each ``update`` gives the real sources to the best-standing voices. Voices that are paused,
///   waiting for their start delay, or quieter than the audibility floor never hold a source.
/// - A voice losing its source **fades out** over `fadeTime` (default 5 ms) before its source is
///   stopped and reused: OpenAL Soft 1.19.1 clicks on a hard stop.
/// - A voice without a source is **virtual**: its playhead runs on the engine clock (frozen while
///   paused). When it wins a source it resumes at that playhead, fading in over `fadeTime` — unless
///   it was never heard and is less than `lateStartTolerance` late, in which case it starts from its
///   first frame at full gain (so a stolen-for gunshot keeps its attack). A one-shot whose playhead
///   passes its end while virtual ends (``VoiceEndReason/finished``).
/// - At most `maxVirtualVoices` voices exist beyond the real sources. When `play` finds the pool
///   full, the lowest-standing voice among the virtual ones and the new request loses: either the
///   request is refused (``VoiceStatus/refused``) or that virtual voice is evicted
///   (``VoiceEndReason/evicted``). Nothing throws on this path.
/// - Music tracks use sources reserved outside this pool: they are never stolen.
///
/// Everything here runs under the engine's AL lock. Steady-state work allocates nothing: every
/// array is sized at creation.
final class VoicePool {
    // Every stored property is `@exclusivity(unchecked)`: the pool is only touched under the AL
    // lock, and a dynamic exclusivity check on each access cost more than the per-voice work of
    // a frame (measured: ~15 ns of ~50 ns per voice in `update`).
    //
    // The pool's code is spread over the VoicePool+*.swift extensions, which cannot reach
    // `private` members: state they write is internal (or `private(set)` where they only read
    // it). That is for the pool's own files: the engine goes through the pool's methods and the
    // state it already set (settings, router, bus gains, listener), as before the split.
    struct Settings {
        var fadeTime: Double
        var audibilityFloor: Float
        var lateStartTolerance: Double
        var maxVirtualVoices: Int
        /// Extra time a live device needs after a fade reached zero before the source may stop
        /// (two of its mixing periods); zero on loopback, where render boundaries are exact.
        var settleTime: Double
    }

    @exclusivity(unchecked) var settings: Settings
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
    }
    let slots: SlotTable<VoiceState>
    @exclusivity(unchecked) private var freeSlots: [Int]
    /// Indices of occupied slots, unordered.
    @exclusivity(unchecked) private(set) var live: [Int]
    /// Indices of real voices, unordered.
    @exclusivity(unchecked) var real: [Int]
    /// Desired voices still waiting for a source.
    @exclusivity(unchecked) var waiting: [Int]
    /// Candidates of the current update: packed standing keys and slot indices.
    @exclusivity(unchecked) var rankScratch: [RankEntry]

    typealias RankEntry = VoiceRanking.Entry
    @exclusivity(unchecked) private var sequence: UInt64 = 0
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
    /// Whether ``service(now:lookahead:)`` has anything to do: a fade, a voice waiting for its
    /// first mix or for a freed source, or a property change. A render skips it otherwise.
    @exclusivity(unchecked) var serviceNeeded = true
    /// Whether some real voice has a fade action (steal or stop) under way: only then does
    /// ``service(now:lookahead:)`` look for completed fades.
    @exclusivity(unchecked) var releasesPending = false
    /// Whether the last update had more candidates than sources (see `update`).
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
    }

    /// Bus gains without master (index = bus index), and master; kept current by the engine.
    /// Each source's environment: reverb sends and occlusion filters (Environment/).
    @exclusivity(unchecked) var router: SendRouter?
    /// Per emitter and per voice slot: occlusion, obstruction, air absorption, send level.
    var emitterEnvironment: SlotTable<EnvironmentProperties> {
        @inline(__always) get { emitterTable.environment }
    }
    let voiceEnvironment: SlotTable<EnvironmentProperties>
    @exclusivity(unchecked) var busGains: [Float] = []
    @exclusivity(unchecked) var busPaused: [Bool] = []
    /// Engine time up to which paused spans have been added to the start times of voices still
    /// waiting for their delay (see ``accountPauses(now:)``).
    @exclusivity(unchecked) var pausesAccountedUntil: Double = 0
    /// Some voice may have its own envelope moving (a fade-in or stop fade): only then does
    /// ``service(now:lookahead:)`` read each real voice's own envelope, which lies outside the
    /// hot line. Cleared by a service pass that found none moving.
    @exclusivity(unchecked) var ownFadesMayRun = false
    @exclusivity(unchecked) var masterGain: Float = 1
    @exclusivity(unchecked) var listenerPosition = Vector3.zero {
        didSet { if listenerPosition != oldValue { geometryEpoch &+= 1 } }
    }
    @exclusivity(unchecked) var distanceModel: DistanceModel = .inverseClamped {
        didSet { if distanceModel != oldValue { geometryEpoch &+= 1 } }
    }
    /// Bumped when the listener moves or the distance model changes: every cached emitter
    /// attenuation is stale then.
    @exclusivity(unchecked) private(set) var geometryEpoch: UInt32 = 1

    init(sources: [ALuint], settings: Settings) {
        self.sources = sources
        self.settings = settings
        freeSources = sources.reversed()
        attached = SlotTable(repeating: 0, count: Int(sources.max() ?? 0) + 1)
        pushed = SlotTable(repeating: PushedState(), count: Int(sources.max() ?? 0) + 1)
        let capacity = sources.count + settings.maxVirtualVoices
        slots = SlotTable(repeating: VoiceState(), count: capacity)
        voiceEnvironment = SlotTable(repeating: .open, count: capacity)
        freeSlots = Array((0..<capacity).reversed())
        live = []
        live.reserveCapacity(capacity)
        real = []
        real.reserveCapacity(sources.count)
        waiting = []
        waiting.reserveCapacity(capacity)
        rankScratch = []
        rankScratch.reserveCapacity(capacity)
        for s in sources {
            alSourcef(s, AL_MAX_GAIN, 16)
        }
    }

    var capacity: Int { slots.count }
    var realCount: Int { real.count }
    var liveCount: Int { live.count }

    // MARK: Handles

    func slot(_ id: VoiceID) -> Int? {
        let i = Int(id.index)
        guard i < slots.count, slots[i].phase != .free, slots[i].generation == id.generation else { return nil }
        return i
    }

    func status(_ id: VoiceID, now: Double) -> VoiceStatus {
        if id.index == VoiceID.refused.index { return .refused }
        guard let i = slot(id) else { return .stopped }
        switch slots[i].phase {
        case .free: return .stopped
        case .real: return .real
        case .virtual: return slots[i].startAt > now ? .pending : .virtual
        }
    }

    // MARK: Play

    struct Request {
        var clipID: UInt32
        var buffer: ALuint
        var frames: Int
        var rate: Int
        var channels: Int
        var options: PlayOptions
        var busIndex: Int
        var emitterIndex: Int
    }

    /// Starts a voice: on a free source at once when it may be heard now, else as a virtual voice
    /// that the next update ranks. Returns ``VoiceID/refused`` when the pool is full and the request
    /// has the lowest standing.
    func play(_ r: Request, now: Double) -> VoiceID {
        serviceNeeded = true
        var v = VoiceState()
        v.clipID = r.clipID
        v.buffer = r.buffer
        v.clipFrames = r.frames
        v.clipRate = Double(r.rate)
        v.clipChannels = r.channels
        v.gain = r.options.gain
        v.pitch = r.options.pitch
        v.loop = r.options.loop
        v.priority = r.options.priority
        v.busIndex = r.busIndex
        switch r.options.placement {
        case .pan(let p):
            v.placement = .pan
            v.pan = p
        case .spatial(let s):
            v.placement = .spatial
            v.spatial = s
        case .emitter:
            v.placement = .emitter
            v.emitterIndex = r.emitterIndex
            v.emitterVersion = emitters[r.emitterIndex].version
            v.emitterFullVersion = emitters[r.emitterIndex].fullVersion
        }
        v.startAt = now + r.options.delay
        if r.options.delay > 0, r.busIndex < busPaused.count, busPaused[r.busIndex] {
            // Born on a paused bus: the delay counts from the resume. The next accounting adds
            // everything since `pausesAccountedUntil`, so count from there.
            v.startAt = min(now, pausesAccountedUntil) + r.options.delay
        }
        v.playheadClock = v.startAt
        if r.options.fadeIn > 0 {
            v.ownFade = 0
            v.ownTarget = 1
            v.ownRate = Float(1 / r.options.fadeIn)
            ownFadesMayRun = true
        }
        sequence &+= 1
        v.sequence = sequence
        v.phase = .virtual
        v.audibility = audibility(of: v)

        let index: Int
        if let free = freeSlots.popLast() {
            index = free
        } else {
            guard let victim = worstVirtual(), outranks(v, slots[victim]) else {
                stats.refusals += 1
                return .refused
            }
            stats.evictions += 1
            end(victim, reason: .evicted)
            guard let free = freeSlots.popLast() else { return .refused }
            index = free
        }
        v.generation = slots[index].generation
        v.liveIndex = live.count
        slots[index] = v
        voiceEnvironment[index] = r.options.environment
        live.append(index)

        if r.options.delay == 0, !busPaused[r.busIndex], v.audibility >= settings.audibilityFloor,
           let source = freeSources.popLast() {
            startReal(index, on: source, now: now)
        }
        return VoiceID(index: UInt32(index), generation: slots[index].generation)
    }

    // MARK: Update

    /// Once per game frame: advance virtual time, end finished voices, recompute standings, steal
    /// and resume. Then `service` pushes properties and fades.
    func update(now: Double) {
        // 1. Time, ends, emitters, audibility — and, in the same pass, the candidates. Unless
        // the last update had more candidates than sources, every candidate is taken as a winner
        // for now (the common case: enough sources for all); otherwise none is, and the ranking
        // marks the winners (fewer writes when thousands of voices compete for the sources).
        let tentative = !expectOversubscribed
        if !emitters.isEmpty { refreshEmitterGains() }
        rankScratch.removeAll(keepingCapacity: true)
        waiting.removeAll(keepingCapacity: true)
        var stopping = 0
        // Whether some real voice may change course (it lost its candidacy, or its steal fade
        // may be called off): only then does step 3 visit every real voice.
        var realPassNeeded = false
        // Delays run in playback time: a voice waiting for its start while it or its bus is
        // paused has its start moved on by the paused span.
        let pausedFrom = pausesAccountedUntil
        let pausedSpan = max(0, now - pausedFrom)
        pausesAccountedUntil = max(now, pausedFrom)
        var i = 0
        while i < live.count {
            let index = live[i]
            if pausedSpan > 0, slots[index].startAt > pausedFrom,
               slots[index].paused || busPaused[slots[index].busIndex] {
                slots[index].startAt += pausedSpan
            }
            guard advance(index, now: now) else { continue }   // it ended: `live[i]` is another voice now
            i += 1
            let isReal = slots[index].phase == .real
            if isReal {
                switch slots[index].fadeAction {
                case .stop:
                    slots[index].desired = false
                    stopping += 1
                    continue
                case .virtualize: realPassNeeded = true
                case .none: break
                }
            }
            if slots[index].paused || busPaused[slots[index].busIndex] || slots[index].startAt > now
                || slots[index].audibility < settings.audibilityFloor {
                slots[index].desired = false
                if isReal { realPassNeeded = true }
                continue
            }
            slots[index].desired = tentative
            rankScratch.append(RankEntry(key: VoiceRanking.standing(slots[index]), index: index))
            if tentative, !isReal { waiting.append(index) }
        }
        // 2. More candidates than sources: rank them; the best are desired, the rest are not.
        let available = max(sources.count - stopping, 0)
        let oversubscribed = rankScratch.count > available
        if oversubscribed { VoiceRanking.selectBest(available, in: &rankScratch) }
        let winners = min(available, rankScratch.count)
        if tentative {
            if oversubscribed {
                for k in winners..<rankScratch.count { slots[rankScratch[k].index].desired = false }
            }
        } else {
            for k in 0..<winners { slots[rankScratch[k].index].desired = true }
        }
        if oversubscribed || !tentative {
            waiting.removeAll(keepingCapacity: true)
            for k in 0..<winners where slots[rankScratch[k].index].phase == .virtual {
                waiting.append(rankScratch[k].index)
            }
        }
        if oversubscribed { realPassNeeded = true }
        expectOversubscribed = oversubscribed

        // 3. Losers fade out; winners that are fading out fade back in; desired virtual voices wait.
        if realPassNeeded {
            for index in real {
                let action = slots[index].fadeAction
                if action == .stop { continue }
                if !slots[index].desired {
                    if action != .virtualize {
                        slots[index].fadeAction = .virtualize
                        slots[index].fadeTarget = 0
                        slots[index].fadeRate = Float(1 / settings.fadeTime)
                        slots[index].silentSince = -1
                        // Why it loses its source: paused (voice, bus or interruption), too
                        // quiet to hear, or outranked — only the last is a steal.
                        if slots[index].paused || busPaused[slots[index].busIndex] {
                            stats.pauses += 1
                        } else if slots[index].audibility < settings.audibilityFloor {
                            stats.virtualizations += 1
                        } else {
                            stats.steals += 1
                        }
                        releasesPending = true
                    }
                } else if action == .virtualize {
                    slots[index].fadeAction = .none
                    slots[index].fadeTarget = 1
                    slots[index].silentSince = -1
                }
            }
        }
        // Best first, so that sources freed one at a time go to the most important voices.
        if waiting.count > 1 { sortWaiting() }
        // Steals, resumes and starts need a service; moved emitters were sent above, and fades
        // or property changes already asked for one.
        if realPassNeeded || !waiting.isEmpty { serviceNeeded = true }
    }

    /// Moves the start of every voice still waiting for its delay on by the time it or its bus
    /// was paused since the last accounting: a delay is playback time. The engine calls this
    /// before a pause changes (bus or voice), so each span is counted with the pauses it had;
    /// ``update(now:)`` does the same for the span up to its frame.
    func accountPauses(now: Double) {
        let from = pausesAccountedUntil
        guard now > from else { return }
        pausesAccountedUntil = now
        for index in live where slots[index].startAt > from {
            let b = slots[index].busIndex
            if slots[index].paused || (b < busPaused.count && busPaused[b]) { slots[index].startAt += now - from }
        }
    }

    /// Advances one live voice to `now`. Returns false when the voice ended (and left `live`).
    private func advance(_ index: Int, now: Double) -> Bool {
        let e = slots[index].emitterIndex
        if e >= 0, slots[index].emitterVersion != emitters[e].version {
            // The voice reads its emitter's properties. A real voice sends them now (this runs
            // inside the frame's deferred batch); a virtual one sends everything when it starts.
            let full = slots[index].emitterFullVersion != emitters[e].fullVersion
            slots[index].emitterFullVersion = emitters[e].fullVersion
            slots[index].emitterVersion = emitters[e].version
            if slots[index].phase == .real {
                if full || slots[index].dirtySpatial {
                    slots[index].dirtySpatial = false
                    slots[index].dirtyPosition = false
                    pushSpatial(index, to: slots[index].source)
                } else {
                    slots[index].dirtyPosition = false
                    pushPosition(index, to: slots[index].source)
                }
            } else if full {
                slots[index].dirtySpatial = true
            } else {
                slots[index].dirtyPosition = true
            }
        }
        switch slots[index].phase {
        case .virtual:
            guard catchUpPlayhead(index, now: now) else {
                stats.finished += 1
                end(index, reason: .finished)
                return false
            }
            if slots[index].ownStops, slots[index].ownFade == 0 {
                end(index, reason: .stopped)
                return false
            }
        case .real:
            if !slots[index].loop {
                var state: ALint = 0
                alGetSourcei(slots[index].source, AL_SOURCE_STATE, &state)
                if state == AL_STOPPED {
                    stats.finished += 1
                    end(index, reason: .finished)
                    return false
                }
            }
        case .free:
            break
        }
        slots[index].audibility = audibility(of: slots[index])
        return true
    }

    /// Brings a voice's playhead up to `now` on the engine clock: time counts from its start and
    /// stands still while the voice or its bus is paused; a loop wraps. Returns false when a
    /// one-shot's playhead has passed its end.
    @inline(__always)
    private func catchUpPlayhead(_ index: Int, now: Double) -> Bool {
        let from = max(slots[index].playheadClock, slots[index].startAt)
        if now > from, !slots[index].paused, !busPaused[slots[index].busIndex] {
            if slots[index].isOwnFading { stepOwnFade(index, by: now - from) }   // playback time
            slots[index].playhead += (now - from) * slots[index].clipRate * Double(slots[index].pitch)
            if slots[index].playhead >= Double(slots[index].clipFrames) {
                guard slots[index].loop else { return false }
                slots[index].playhead = slots[index].playhead.truncatingRemainder(dividingBy: Double(slots[index].clipFrames))
            }
        }
        slots[index].playheadClock = max(now, slots[index].playheadClock)
        return true
    }

    /// Moves a voice's own envelope on by `seconds` of playback time.
    @inline(__always)
    private func stepOwnFade(_ index: Int, by seconds: Double) {
        let step = slots[index].ownRate * Float(seconds)
        let f = slots[index].ownFade, t = slots[index].ownTarget
        slots[index].ownFade = f < t ? min(t, f + step) : max(t, f - step)
    }

    // MARK: Service: fades, starts, property pushes

    /// Pushes what changed to OpenAL for the time span `now … now + lookahead`: fade envelopes are
    /// set to their value at the span's end (OpenAL ramps the gain linearly across its next mix),
    /// finished fades release sources, waiting voices take free sources, dirty properties go out.
    /// Wrap calls in `alDeferUpdatesSOFT`/`alProcessUpdatesSOFT` for one batch.
    func service(now: Double, lookahead: Double) {
        // Completed fades first: they free sources.
        var i = 0
        while releasesPending, i < real.count {
            let index = real[i]
            if slots[index].fadeAction != .none, slots[index].fade == 0, slots[index].silentSince >= 0,
               now - slots[index].silentSince >= settings.settleTime {
                if slots[index].fadeAction == .stop {
                    end(index, reason: .stopped)
                } else {
                    virtualize(index, now: now)
                }
                continue   // `real[i]` now holds another voice
            }
            i += 1
        }
        // Waiting winners take the free sources.
        var w = 0
        while w < waiting.count, !freeSources.isEmpty {
            let index = waiting[w]
            w += 1
            guard slots[index].phase == .virtual, slots[index].desired else { continue }
            let source = freeSources.removeLast()
            startReal(index, on: source, now: now)
        }
        if w > 0 { waiting.removeFirst(w) }

        // Envelopes and properties of real voices.
        var more = !waiting.isEmpty && !freeSources.isEmpty
        var pending = false
        let checkOwn = ownFadesMayRun
        var ownSeen = false
        for index in real {
            let source = slots[index].source
            if checkOwn, slots[index].isOwnFading { ownSeen = true }
            if slots[index].awaitingFirstMix {
                slots[index].awaitingFirstMix = false
                more = true
                continue
            }
            if slots[index].fadeAction != .none {
                more = true
                pending = true
            }
            if checkOwn, slots[index].isOwnFading, !slots[index].paused, !busPaused[slots[index].busIndex] {
                // The own envelope moves only while the voice plays (playback time); a paused
                // voice is fading out to virtual meanwhile and keeps its level for the resume.
                more = true
                stepOwnFade(index, by: lookahead)
                slots[index].dirtyGain = true
                if slots[index].ownStops, slots[index].ownFade == 0, slots[index].fadeAction != .stop {
                    // The stop fade is over: silent now; end once the mix has ramped to zero.
                    slots[index].fadeAction = .stop
                    slots[index].fade = 0
                    slots[index].fadeTarget = 0
                    slots[index].silentSince = now + lookahead
                    pending = true
                }
            }
            if slots[index].isFading {
                more = true
                let step = slots[index].fadeRate * Float(lookahead)
                let f = slots[index].fade, t = slots[index].fadeTarget
                slots[index].fade = f < t ? min(t, f + step) : max(t, f - step)
                slots[index].dirtyGain = true
            }
            if slots[index].fade == 0, slots[index].fadeAction != .none, slots[index].silentSince < 0 {
                // Silent once the mix that follows has ramped to zero.
                slots[index].silentSince = now + lookahead
            }
            if slots[index].dirtyGain {
                slots[index].dirtyGain = false
                alSourcef(source, AL_GAIN, effectiveGain(index))
            }
            if slots[index].dirtyPitch {
                slots[index].dirtyPitch = false
                pushPitch(slots[index].pitch, to: source)
            }
            if slots[index].dirtySpatial {
                slots[index].dirtySpatial = false
                slots[index].dirtyPosition = false
                pushSpatial(index, to: source)
            } else if slots[index].dirtyPosition {
                slots[index].dirtyPosition = false
                pushPosition(index, to: source)
            }
        }
        serviceNeeded = more
        releasesPending = pending
        // Virtual voices move theirs with the playhead; one that takes a source sets the flag again.
        if checkOwn, !ownSeen { ownFadesMayRun = false }
    }

    /// The time until the next fade event a render should stop at, or nil when no fade runs.
    func nextFadeBoundary() -> Double? {
        var next: Double?
        for index in real {
            if slots[index].awaitingFirstMix {
                next = min(next ?? .infinity, 0.001)
            } else if slots[index].isFading, slots[index].fadeRate > 0 {
                let remaining = Double(abs(slots[index].fadeTarget - slots[index].fade) / slots[index].fadeRate)
                next = min(next ?? .infinity, max(remaining, 0.0005))
            } else if ownFadesMayRun, slots[index].isOwnFading, slots[index].ownRate > 0 {
                let remaining = Double(abs(slots[index].ownTarget - slots[index].ownFade) / slots[index].ownRate)
                next = min(next ?? .infinity, max(remaining, 0.0005))
            } else if slots[index].fadeAction != .none, slots[index].fade == 0 {
                next = min(next ?? .infinity, 0.0005)
            }
        }
        if !waiting.isEmpty, !freeSources.isEmpty { next = min(next ?? .infinity, 0.0005) }
        return next
    }

    @inline(__always)
    private func effectiveGain(_ index: Int) -> Float {
        slots[index].gain * busGains[slots[index].busIndex] * slots[index].fade * slots[index].ownFade
    }

    /// Sends a voice's placement to its source: only what differs from what the source has.
    private func pushSpatial(_ index: Int, to source: ALuint) {
        let s: SpatialProperties
        switch slots[index].placement {
        case .pan:
            // Head-relative on the unit circle, no distance attenuation: a constant-power pan.
            s = SpatialProperties(position: PlayOptions.panPosition(slots[index].pan), referenceDistance: 1, rolloff: 0, isRelative: true)
        case .spatial:
            s = slots[index].spatial
        case .emitter:
            s = emitterSpatial[slots[index].emitterIndex]
        }
        let i = Int(source)
        let old = pushed[i].spatial
        if old?.isRelative != s.isRelative { alSourcei(source, AL_SOURCE_RELATIVE, s.isRelative ? AL_TRUE : AL_FALSE) }
        if old?.position != s.position { alSource3f(source, AL_POSITION, s.position.x, s.position.y, s.position.z) }
        if old?.velocity != s.velocity { alSource3f(source, AL_VELOCITY, s.velocity.x, s.velocity.y, s.velocity.z) }
        if old?.direction != s.direction { alSource3f(source, AL_DIRECTION, s.direction.x, s.direction.y, s.direction.z) }
        if old?.coneInnerAngle != s.coneInnerAngle { alSourcef(source, AL_CONE_INNER_ANGLE, s.coneInnerAngle) }
        if old?.coneOuterAngle != s.coneOuterAngle { alSourcef(source, AL_CONE_OUTER_ANGLE, s.coneOuterAngle) }
        if old?.coneOuterGain != s.coneOuterGain { alSourcef(source, AL_CONE_OUTER_GAIN, s.coneOuterGain) }
        if old?.referenceDistance != s.referenceDistance { alSourcef(source, AL_REFERENCE_DISTANCE, s.referenceDistance) }
        if old?.maxDistance != s.maxDistance { alSourcef(source, AL_MAX_DISTANCE, s.maxDistance) }
        if old?.rolloff != s.rolloff { alSourcef(source, AL_ROLLOFF_FACTOR, s.rolloff) }
        pushed[i].spatial = s
        router?.apply(source: source, positioned: slots[index].placement != .pan, bus: slots[index].busIndex,
                      environment: environment(ofSlot: index), starting: slots[index].phase != .real)
    }

    /// The occlusion, obstruction, air absorption and send level of a voice (its emitter's when
    /// it follows one).
    @inline(__always)
    func environment(ofSlot index: Int) -> EnvironmentProperties {
        slots[index].placement == .emitter ? emitterEnvironment[slots[index].emitterIndex] : voiceEnvironment[index]
    }

    /// Where a positioned voice is (its own position, or its emitter's); nil for a panned voice.
    @inline(__always)
    func position(ofSlot index: Int) -> Vector3? {
        switch slots[index].placement {
        case .pan: return nil
        case .spatial: return slots[index].spatial.position
        case .emitter: return emitterSpatial[slots[index].emitterIndex].position
        }
    }

    /// Moves a voice's position only (the per-frame hot path for emitters and voices).
    @inline(__always)
    private func pushPosition(_ index: Int, to source: ALuint) {
        guard let p = position(ofSlot: index) else { return }
        alSource3f(source, AL_POSITION, p.x, p.y, p.z)
        // Keep the per-source cache true to what OpenAL has: a later `pushSpatial` compares with
        // it, and a stale cached position made a move back to it (A → B → A) look redundant.
        pushed[Int(source)].spatial?.position = p
    }

    private func pushPitch(_ pitch: Float, to source: ALuint) {
        guard pushed[Int(source)].pitch != pitch else { return }
        alSourcef(source, AL_PITCH, pitch)
        pushed[Int(source)].pitch = pitch
    }

    private func startReal(_ index: Int, on source: ALuint, now: Double) {
        // Edited in place (a slot is 256 bytes: copying it out and back cost more than the edits).
        // The playhead was last brought up to date at the previous update (a one-shot past its
        // end is clamped to its last frame below).
        _ = catchUpPlayhead(index, now: now)
        let v = slots.pointer(index)
        // A stopped source that already holds this clip's buffer plays it again from the start;
        // setting `AL_BUFFER` anyway would allocate a new buffer-queue item inside OpenAL Soft.
        if attached[Int(source)] != v.pointee.buffer {
            alSourcei(source, AL_BUFFER, ALint(bitPattern: v.pointee.buffer))
            attached[Int(source)] = v.pointee.buffer
        }
        if pushed[Int(source)].loop != v.pointee.loop {
            alSourcei(source, AL_LOOPING, v.pointee.loop ? AL_TRUE : AL_FALSE)
            pushed[Int(source)].loop = v.pointee.loop
        }
        pushPitch(v.pointee.pitch, to: source)
        pushSpatial(index, to: source)
        let late = now - v.pointee.startAt
        let fromStart = v.pointee.fresh && late <= settings.lateStartTolerance
        v.pointee.realClock = now
        if fromStart {
            v.pointee.playhead = 0
            v.pointee.realOffset = 0
        } else {
            var offset = v.pointee.playhead
            if v.pointee.loop { offset = offset.truncatingRemainder(dividingBy: Double(v.pointee.clipFrames)) }
            offset = min(max(0, offset), Double(v.pointee.clipFrames - 1))
            v.pointee.realOffset = offset
            alSourcef(source, AL_SAMPLE_OFFSET, Float(offset))
            // Joining mid-clip: start silent, then fade in (OpenAL ramps only after a first mix).
            v.pointee.fade = 0
            v.pointee.fadeTarget = 1
            v.pointee.fadeRate = Float(1 / settings.fadeTime)
            stats.resumes += 1
        }
        if v.pointee.isOwnFading { ownFadesMayRun = true }
        if v.pointee.fade < 1 || v.pointee.fadeTarget < 1 || v.pointee.ownFade < 1 {
            v.pointee.awaitingFirstMix = true
        }
        v.pointee.fadeAction = .none
        v.pointee.silentSince = -1
        v.pointee.fresh = false
        v.pointee.phase = .real
        v.pointee.source = source
        v.pointee.dirtyGain = false
        v.pointee.dirtySpatial = false
        v.pointee.dirtyPosition = false
        v.pointee.dirtyPitch = false
        v.pointee.realIndex = real.count
        real.append(index)
        alSourcef(source, AL_GAIN, effectiveGain(index))
        alSourcePlay(source)
    }

    /// The sources of the voices playing on a source now: whether each is positioned, its bus
    /// index and its environment.
    func realSources() -> [(source: ALuint, positioned: Bool, bus: Int, environment: EnvironmentProperties)] {
        real.map { (slots[$0].source, slots[$0].placement != .pan, slots[$0].busIndex, environment(ofSlot: $0)) }
    }

    /// Takes the source from a real voice (its fade has completed) and keeps it going as virtual.
    private func virtualize(_ index: Int, now: Double) {
        let source = slots[index].source
        var offset: ALfloat = 0
        alGetSourcef(source, AL_SAMPLE_OFFSET, &offset)
        var state: ALint = 0
        alGetSourcei(source, AL_SOURCE_STATE, &state)
        releaseSource(index)
        slots[index].phase = .virtual
        if state == AL_STOPPED, !slots[index].loop {
            stats.finished += 1
            end(index, reason: .finished)
            return
        }
        slots[index].playhead = Double(offset)
        slots[index].playheadClock = now
        // It will fade in when it comes back.
        slots[index].fade = 0
        slots[index].fadeTarget = 0
        slots[index].fadeAction = .none
        slots[index].silentSince = -1
    }

    private func releaseSource(_ index: Int) {
        let source = slots[index].source
        alSourceStop(source)
        freeSources.append(source)
        removeFromReal(index)
        slots[index].source = 0
    }

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
    func end(_ index: Int, reason: VoiceEndReason) {
        if slots[index].phase == .real { releaseSource(index) }
        let id = VoiceID(index: UInt32(index), generation: slots[index].generation)
        Self.swapRemove(index, from: &live, position: \.liveIndex, in: slots)
        slots[index].phase = .free
        slots[index].desired = false
        slots[index].generation &+= 1
        freeSlots.append(index)
        // Record the event (the ring keeps the newest 4096 between drains).
        ended.record(id, reason)
    }

    /// Hands the recorded ends to `body` and forgets them.
    func drainEnded(_ body: (VoiceID, VoiceEndReason) -> Void) {
        while let (id, reason) = ended.popOldest() {
            body(id, reason)
        }
    }

    var hasEnded: Bool { !ended.isEmpty }

    // MARK: Control

    /// Stops a voice: a virtual one at once, a real one after a fade of `fade` seconds.
    func stop(_ id: VoiceID, fade: Double) {
        guard let index = slot(id) else { return }
        stopIndex(index, fade: fade)
    }

    private func stopIndex(_ index: Int, fade: Double) {
        serviceNeeded = true
        if slots[index].phase == .real {
            if fade > settings.fadeTime, !slots[index].paused, !busPaused[slots[index].busIndex] {
                // A stop fade is the voice's own envelope: playback time, frozen by a pause
                // (the voice then waits, virtual, and finishes the fade once resumed).
                slots[index].ownStops = true
                slots[index].ownTarget = 0
                slots[index].ownRate = Float(1 / fade)
                ownFadesMayRun = true
                return
            }
            // The steal fade, or a voice already leaving its source for a pause: out at once.
            slots[index].fadeAction = .stop
            releasesPending = true
            slots[index].fadeTarget = 0
            slots[index].fadeRate = Float(1 / max(fade, settings.fadeTime))
            slots[index].silentSince = -1
        } else {
            end(index, reason: .stopped)
        }
    }

    /// Stops every voice matching `predicate` (with the steal fade).
    func stopAll(where predicate: (VoiceState) -> Bool) {
        var i = 0
        while i < live.count {
            let index = live[i]
            if predicate(slots[index]) {
                let wasVirtual = slots[index].phase == .virtual
                stopIndex(index, fade: settings.fadeTime)
                if wasVirtual { continue }   // it left `live`; `live[i]` is another voice now
            }
            i += 1
        }
    }

    /// Detaches `buffer` from every idle source still holding it, so that it can be deleted.
    func detach(buffer: ALuint) {
        for source in freeSources where attached[Int(source)] == buffer {
            alSourcei(source, AL_BUFFER, 0)
            attached[Int(source)] = 0
        }
    }

    /// Voices (any phase) playing clip `clipID`.
    func count(usingClip clipID: UInt32) -> Int {
        live.reduce(0) { $0 + (slots[$1].clipID == clipID ? 1 : 0) }
    }

    /// Applies `change` to a live voice and marks what must be pushed.
    func modify(_ id: VoiceID, _ change: (inout VoiceState) -> Void) {
        guard let index = slot(id) else { return }
        serviceNeeded = true
        change(&slots[index])
    }

    /// Marks the gain of every voice dirty (a bus or master gain changed).
    func markAllGainsDirty() {
        serviceNeeded = true
        for index in real { slots[index].dirtyGain = true }
    }

    /// Ends every voice (shutdown).
    func endAll() {
        while let index = live.last {
            end(index, reason: .stopped)
        }
    }

    // MARK: Device loss

    /// The output device is gone and every source with it: each real voice goes on as a virtual
    /// one from where it should be now (estimated on the engine clock, since a lost source's
    /// offset reads 0); voices fading out to stop end; no voice gets a source until
    /// ``replaceSources(_:)``.
    func suspendAll(now: Double) {
        while let index = real.last {
            let v = slots[index]
            removeFromReal(index)
            slots[index].source = 0
            slots[index].phase = .virtual
            var playhead = v.realOffset + max(0, now - v.realClock) * v.clipRate * Double(v.pitch)
            let stopping = v.fadeAction == .stop || v.ownStops
            if stopping || (!v.loop && playhead >= Double(v.clipFrames)) {
                stats.finished += stopping ? 0 : 1
                end(index, reason: stopping ? .stopped : .finished)
                continue
            }
            if v.loop { playhead = playhead.truncatingRemainder(dividingBy: Double(v.clipFrames)) }
            slots[index].playhead = playhead
            slots[index].playheadClock = now
            slots[index].fresh = false
            slots[index].fade = 0
            slots[index].fadeTarget = 0
            slots[index].fadeAction = .none
            slots[index].silentSince = -1
            slots[index].awaitingFirstMix = false
        }
        replaceSources([])
    }

    /// Gives the pool a new set of sources (after a rebuild, or none while the device is lost).
    func replaceSources(_ names: [ALuint]) {
        serviceNeeded = true
        precondition(real.isEmpty, "replaceSources with real voices")
        sources = names
        freeSources = names.reversed()
        attached = SlotTable(repeating: 0, count: Int(names.max() ?? 0) + 1)
        pushed = SlotTable(repeating: PushedState(), count: Int(names.max() ?? 0) + 1)
        for s in names { alSourcef(s, AL_MAX_GAIN, 16) }
        waiting.removeAll(keepingCapacity: true)
    }

    /// Points every live voice at its clip's new buffer (after clips were uploaded again).
    func rebindBuffers(_ buffer: (UInt32) -> ALuint) {
        for index in live { slots[index].buffer = buffer(slots[index].clipID) }
    }

}

extension VoiceID {
    /// The handle `play` returns for a refused request.
    static let refused = VoiceID(index: .max, generation: .max)
}
