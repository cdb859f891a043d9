/// Adaptive music: named states (a track, a sequence of segments, or layered stems) that change
/// on the beat, the bar, a cue or a segment's end of the music that is playing, by the rules of
/// a ``MusicSetDefinition``, with stingers on the next beat or bar and stem gains.
///
/// Make one with ``AudioEngine/makeMusicSet(_:)``. Every change is planned on the audio clock
/// (``AudioEngine/audioTime``, see <doc:TimeAndScheduling>) from where the *playing* segment is
/// heard now: the new state's first sample is heard exactly on the chosen boundary of that
/// segment's grid (to the frame on a loopback engine; live, within the device's mixing period —
/// a boundary less than ``minimumLiveLead`` ahead moves to the next one), a bridge (`via:`) plays
/// from the boundary and the new state begins when it ends, and the old state stops on the
/// boundary or fades out from it over the rule's `fade`. See <doc:AdaptiveMusic>.
///
/// **A second request while a change is pending** (asked for, its boundary not reached yet)
/// replaces it: the pending change is cancelled — nothing of it is heard, the old state plays on
/// as if it had not been asked — and the new request is planned from the state playing now, by
/// its own rule. Once the boundary has passed, the change is done and a new request starts from
/// the new state.
///
/// ```swift
/// var def = MusicSetDefinition(name: "level1")
/// let tempo = Tempo(bpm: 120, beatsPerBar: 4)
/// def.states = [
///     .init(name: "explore", content: .track(.init(path: "Assets/Music/theme.ogg", tempo: tempo))),
///     .init(name: "combat", content: .track(.init(path: "Assets/Music/drums.ogg", tempo: tempo))),
/// ]
/// def.transitions = [.init(from: "explore", to: "combat", at: .nextBar, fade: 0.5, curve: .equalPower)]
/// let music = try engine.makeMusicSet(def)
/// try music.play(state: "explore")
/// // later, when the first enemy sees the player:
/// let heardAt = try music.setState("combat")   // the audio time combat begins: the next bar line
/// ```
public final class MusicSet: @unchecked Sendable {
    // @unchecked Sendable: every mutable field lives in `inner`, reached only inside `lock`;
    // the rest are constants. Lock order: the set's lock, then the stream lock (the tracks'
    // calls), then the AL lock; the music system never calls into a set.
    /// The definition the set was made from.
    public let definition: MusicSetDefinition
    /// The set's name.
    public var name: String { definition.name }
    weak var engine: AudioEngine?
    let system: MusicSystem
    let lock: Locked<Inner>

    /// How fast a stinger's duck falls (``playStinger(_:at:duck:)``), and how fast it recovers.
    public static let stingerDuckAttack = 0.05
    public static let stingerDuckRelease = 0.25

    /// Live devices: the least time between a request and its boundary; a boundary closer than
    /// this moves to the next one, so that its start can be set up in time.
    public static let minimumLiveLead = 0.05

    /// The parameters the set's stems follow (MusicSet+Parameters.swift); empty for most sets,
    /// which then cost nothing a frame.
    let followedParameters: [String]

    init(engine: AudioEngine, definition: MusicSetDefinition, inner: Inner) {
        self.engine = engine
        self.system = engine.musicSystem
        self.definition = definition
        self.followedParameters = Self.parameters(followedIn: definition)
        self.lock = Locked(inner)
    }

    // MARK: State

    /// The state heard now: the one whose boundary has passed (nil before ``play(state:at:)``
    /// and after ``stop(fade:)``).
    public var currentState: String? {
        let now = engine?.audioTime ?? 0
        return lock.withLock { inner in
            inner.commit(now: now)
            return inner.current
        }
    }

    /// The state a pending change goes to, and the audio time it begins at; nil when none is pending.
    public var pendingState: (state: String, audioTime: Double)? {
        let now = engine?.audioTime ?? 0
        return lock.withLock { inner in
            inner.commit(now: now)
            return inner.pending.map { ($0.to, $0.begins) }
        }
    }

    /// The names of the states.
    public var stateNames: [String] { definition.states.map(\.name) }

    /// Starts the set in `state` (default: the first state) at audio time `time` (default: now),
    /// from its entry cue. Any state already playing stops at once.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a state the set does not have (or a
    /// time that is not finite), ``EarshotError/engineShutDown`` after shutdown, and what
    /// ``MusicTrack/play(at:)`` throws.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
    ///     .init(name: "calm", content: .track(.init(path: "Assets/Music/theme.ogg")))]))
    /// try music.play(state: "calm", at: engine.audioTime + 0.1)
    /// ```
    public func play(state: String? = nil, at time: Double? = nil) throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        guard let name = state ?? definition.states.first?.name else { throw .invalidArgument("music set \(self.name) has no states") }
        if let time, !time.isFinite { throw .invalidArgument("play(state:at:) with a time that is not finite: \(time)") }
        let system = self.system
        try lock.withLock { (inner: inout Inner) throws(EarshotError) in
            guard let parts = inner.parts[name] else { throw .invalidArgument(Inner.unknown(name, in: self)) }
            inner.cancelPending(system: system, engine: engine)
            inner.heldDeferred = nil
            inner.deferred = nil
            inner.paused = false
            for list in inner.parts.values { for p in list { p.track.stop() } }
            for p in inner.stingers.values { p.track.stop() }
            for p in inner.bridges.values { p.track.stop() }
            let at = time ?? engine.audioTime
            try inner.start(parts, at: at, system: system, engine: engine)
            inner.current = name
            inner.pending = nil
            inner.history.append(.init(state: name, audioTime: at))
        }
    }

    /// Changes to `state` by the first rule of ``MusicSetDefinition/transitions`` that matches
    /// (none: at once, no fade), and returns the audio time the new state begins at. With nothing
    /// playing, it starts `state` now (``play(state:at:)``). Asking for the state already playing
    /// cancels a pending change and changes nothing else. A second request while a change is
    /// pending replaces it (see ``MusicSet``). While the set is paused (``pause()``) the change
    /// waits for ``resume()``, which plans it from where the music is then; the time returned is
    /// the audio time now.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a state the set does not have and
    /// ``EarshotError/engineShutDown`` after shutdown.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
    ///     .init(name: "calm", content: .track(.init(path: "Assets/Music/theme.ogg", tempo: Tempo(bpm: 120)))),
    ///     .init(name: "tense", content: .track(.init(path: "Assets/Music/ambience.wav")))],
    ///     transitions: [.init(to: "tense", at: .nextBeat, fade: 1)]))
    /// try music.play(state: "calm")
    /// let begins = try music.setState("tense")
    /// print("tense from \(begins) s")
    /// ```
    @discardableResult
    public func setState(_ state: String) throws(EarshotError) -> Double {
        guard let engine else { throw .engineShutDown }
        let system = self.system
        let now = engine.audioTime
        let idle = try lock.withLock { (inner: inout Inner) throws(EarshotError) -> Bool in
            guard inner.parts[state] != nil else { throw .invalidArgument(Inner.unknown(state, in: self)) }
            inner.commit(now: now)
            return inner.current == nil
        }
        if idle {
            try play(state: state, at: now)
            return now
        }
        return try lock.withLock { (inner: inout Inner) throws(EarshotError) -> Double in
            inner.cancelPending(system: system, engine: engine)
            inner.heldDeferred = nil
            if inner.paused {
                // Planned from where the music is when ``resume()`` is called.
                inner.deferred = state
                return now
            }
            guard let from = inner.current, from != state else { return now }
            let rule = definition.rule(from: from, to: state) ?? MusicTransition(from: from, to: state, at: .immediate)
            return try inner.change(from: from, to: state, rule: rule, definition: definition, system: system, engine: engine)
        }
    }

    /// Plays stinger `name` (``MusicSetDefinition/stingers``) on the next beat (or bar, cue, …)
    /// of the playing segment, on the set's bus, over the music; returns the audio time it starts
    /// at. A stinger already playing starts again there. With nothing playing (or a boundary the
    /// segment has no grid for) it plays at once.
    ///
    /// It ducks nothing unless asked: with `duck` below 0 (dB, down to −60) the current state's
    /// tracks fall by that much over ``stingerDuckAttack`` from the stinger's first sample and
    /// come back over ``stingerDuckRelease`` once it has played (within a render or a game
    /// frame). While a change is pending nothing is ducked: the change's own fade has the tracks.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a stinger the set does not have or a
    /// `duck` outside −60…0 dB.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
    ///     .init(name: "calm", content: .track(.init(path: "Assets/Music/theme.ogg", tempo: Tempo(bpm: 120))))],
    ///     stingers: ["hit": .init(path: "Assets/Sounds/beep.wav")]))
    /// try music.play(state: "calm")
    /// try music.playStinger("hit", at: .nextBeat)
    /// ```
    @discardableResult
    public func playStinger(_ name: String, at boundary: MusicTransition.Boundary = .nextBeat, duck: Float = 0) throws(EarshotError) -> Double {
        guard duck.isFinite, (-60...0).contains(duck) else { throw .invalidArgument("stinger duck \(duck) dB is not −60…0") }
        guard let engine else { throw .engineShutDown }
        let system = self.system
        return try lock.withLock { (inner: inout Inner) throws(EarshotError) -> Double in
            guard let part = inner.stingers[name] else {
                throw .invalidArgument("music set \(self.name) has no stinger \"\(name)\" (stingers: \(definition.stingers.keys.sorted().joined(separator: ", ")))")
            }
            inner.commit(now: engine.audioTime)
            let at = inner.boundary(boundary, system: system, engine: engine)?.time ?? engine.audioTime
            try inner.startStinger(part, at: at)
            if duck < 0 { inner.duck(by: duck, at: at, until: at + part.length - part.entry) }
            return at
        }
    }

    /// Sets the gain (0…``MusicTrack/maxVolume``, +12 dB; clamped) of stem `layer` — of `state`, or of every state that has a
    /// stem of that name — over `fade` seconds of playback (0: at once). A stem that is not
    /// playing starts at that gain next time; one about to start (the state a change goes to)
    /// fades from its first sample. The gain of a stem leaving in a change is left to
    /// the change's fade. This is the one entry for stem levels: code, scenes, and game
    /// parameters bound to a stem all come through it.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` when no state (or not `state`) has that stem.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
    ///     .init(name: "combat", content: .layers([
    ///         .init(name: "drums", segment: .init(path: "Assets/Music/theme.ogg")),
    ///         .init(name: "pads", segment: .init(path: "Assets/Music/ambience.wav"), gain: 0)]))]))
    /// try music.play(state: "combat")
    /// try music.setLayerGain(0.8, layer: "pads", fade: 2)   // the pads come in over two seconds
    /// ```
    public func setLayerGain(_ gain: Float, layer: String, state: String? = nil, fade: Double = 0) throws(EarshotError) {
        guard gain.isFinite, fade.isFinite, fade >= 0 else { throw .invalidArgument("layer gain \(gain) over \(fade) s") }
        let g = min(MusicTrack.maxVolume, max(0, gain))
        let now = engine?.audioTime ?? 0
        try lock.withLock { (inner: inout Inner) throws(EarshotError) in
            inner.commit(now: now)
            var found = false
            for (stateName, parts) in inner.parts where state == nil || state == stateName {
                for p in parts where p.layer == layer {
                    found = true
                    let key = Inner.key(stateName, layer)
                    inner.layerGains[key] = g
                    if inner.leaving.contains(where: { $0 === p.track }) { continue }
                    let volume = g * (inner.curveGains[key] ?? 1)   // times its parameter curves
                    // A stem about to start (a change's new state) fades from its first sample.
                    if fade > 0, p.track.isPlaying || system.read(p.track.stream, { $0.startAt != nil || $0.waiting }) {
                        p.track.fade(to: volume, duration: fade)
                    } else {
                        p.track.volume = volume
                    }
                }
            }
            if !found { throw .invalidArgument("music set \(self.name) has no layer \"\(layer)\"\(state.map { " in state \($0)" } ?? "")") }
        }
    }

    /// The gain of stem `layer` of `state` (nil when it has no such stem).
    public func layerGain(_ layer: String, state: String) -> Float? {
        lock.withLock { inner in
            guard inner.parts[state]?.contains(where: { $0.layer == layer }) == true else { return nil }
            return inner.layerGains[Inner.key(state, layer)] ?? 1
        }
    }

    // MARK: Transport

    /// Pauses every track of the set together (stems in one OpenAL call, so they stay aligned).
    /// A pending change is put aside and planned again by ``resume()`` from where the music is.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
    ///     .init(name: "calm", content: .track(.init(path: "Assets/Music/theme.ogg")))]))
    /// try music.play(state: "calm")
    /// music.pause()          // the game's pause menu
    /// try music.resume()
    /// ```
    public func pause() {
        guard let engine else { return }
        let system = self.system
        lock.withLock { inner in
            inner.commit(now: engine.audioTime)
            if let p = inner.pending {
                inner.deferred = p.to
                inner.cancelPending(system: system, engine: engine)
            }
            system.pauseGroup(inner.allTracks.map(\.stream), host: engine)
            inner.paused = true
        }
    }

    /// Resumes what ``pause()`` paused, together; a change put aside is asked for again. Tracks
    /// whose bus is still held (paused by the game, or an interruption that ended without
    /// resuming) are readied and start together when the hold ends.
    public func resume() throws(EarshotError) {
        guard let engine else { throw .engineShutDown }
        let system = self.system
        let deferred = lock.withLock { inner -> String? in
            inner.paused = false
            system.resumeGroup(inner.allTracks.map(\.stream), host: engine)
            defer { inner.deferred = nil }
            return inner.deferred
        }
        if let deferred { try setState(deferred) }
    }

    /// Moves the current state's segment (all its stems together) to `seconds` into its file.
    /// A pending change is cancelled and asked for again from the new position. Throws
    /// ``EarshotError/invalidArgument(_:)`` for a time that is not finite.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
    ///     .init(name: "calm", content: .track(.init(path: "Assets/Music/theme.ogg")))]))
    /// try music.play(state: "calm")
    /// try music.seek(to: 4)   // the third bar of a 120 bpm piece
    /// ```
    public func seek(to seconds: Double) throws(EarshotError) {
        guard seconds.isFinite else { throw .invalidArgument("seek to \(seconds) s") }
        guard let engine else { throw .engineShutDown }
        let system = self.system
        let again = lock.withLock { inner -> String? in
            inner.commit(now: engine.audioTime)
            let again = inner.pending?.to
            inner.cancelPending(system: system, engine: engine)
            guard let current = inner.current, let parts = inner.parts[current] else { return again }
            let group = inner.isLayered(current) ? parts : [inner.heard(current, system: system, engine: engine)?.part ?? parts[0]]
            let rate = Double(group[0].track.sampleRate)
            system.seekGroup(group.map(\.track.stream), toFrame: Int(min(max(0, seconds * rate), 1e12).rounded()), host: engine)
            return again
        }
        if let again { try setState(again) }
    }

    /// Stops the set: every track fades out over `fade` seconds (0, negative or not finite: at
    /// once) and stops; ``currentState`` is nil after it.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "m", states: [
    ///     .init(name: "calm", content: .track(.init(path: "Assets/Music/theme.ogg")))]))
    /// try music.play(state: "calm")
    /// music.stop(fade: 2)   // the level is over
    /// ```
    public func stop(fade: Double = 0) {
        guard let engine else { return }
        let system = self.system
        lock.withLock { inner in
            inner.cancelPending(system: system, engine: engine)
            for t in inner.allTracks {
                if fade > 0, fade.isFinite, t.isPlaying { t.fade(to: 0, duration: fade, stopsAtEnd: true) } else { t.stop() }
            }
            inner.current = nil
            inner.paused = false
            inner.heldDeferred = nil
            inner.deferred = nil
        }
    }

    /// Called by the music system before each loopback render and after each game frame: a
    /// change pending while the bus holds the set's music (paused by the game, an interruption)
    /// is put aside — its boundary was planned on the audio clock, which runs on while the music
    /// stands — and asked for again from where the music is when the hold ends.
    func tick() {
        guard let engine else { return }
        let system = self.system
        let now = engine.audioTime
        let replan = lock.withLock { inner -> String? in
            if !inner.ducks.isEmpty { inner.releaseDucks(now: now) }
            guard !inner.paused else { return nil }
            if let p = inner.pending {
                if p.old.contains(where: { system.isHeldByBus($0.track.stream) }) {
                    inner.heldDeferred = p.to
                    inner.cancelPending(system: system, engine: engine)
                }
                return nil
            }
            guard let again = inner.heldDeferred else { return nil }
            if let current = inner.current, inner.parts[current]?.contains(where: { system.isHeldByBus($0.track.stream) }) == true {
                return nil
            }
            inner.heldDeferred = nil
            return again
        }
        if let replan {
            do throws(EarshotError) { try setState(replan) } catch { engine.logger.warning("music set \(name): \(replan) could not be planned again after a hold: \(error)") }
        }
    }

    /// Every track the set plays (its segments, stems, stingers and bridges): the
    /// ``MarkerEvent/track`` of a beat, bar or cue of the set is one of them.
    public var tracks: [MusicTrack] { lock.withLock { $0.allTracks } }

    /// A state the set entered and the audio time it began, in order (``changes``).
    public struct Change: Sendable, Equatable {
        /// The state.
        public var state: String
        /// The audio time its first sample is heard.
        public var audioTime: Double
    }

    /// The state changes so far (planned ones included once their boundary has passed; the most
    /// recent ``MusicSetDefinition/maxEntries`` × 16 are kept).
    public var changes: [Change] {
        let now = engine?.audioTime ?? 0
        return lock.withLock { inner in
            inner.commit(now: now)
            return inner.history
        }
    }
}
