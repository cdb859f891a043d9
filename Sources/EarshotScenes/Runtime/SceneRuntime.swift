import Earshot
import Foundation

extension Scene {
    /// The engine configuration the scene asks for, on `output`.
    public func engineConfiguration(output: Output) -> AudioEngine.Configuration {
        var c = AudioEngine.Configuration(output: output, hrtf: hrtf, distanceModel: distanceModel,
                                          dopplerFactor: dopplerFactor, speedOfSound: speedOfSound)
        if let realVoices { c.maxRealVoices = realVoices }
        if let virtualVoices { c.maxVirtualVoices = virtualVoices }
        c.randomSeed = seed
        if let clipMemory { c.maxTotalClipBytes = clipMemory }
        if let limiter { c.limiter = limiter }
        // Music sets: a change plays the old state (fading) and the new one at once, with a
        // bridge and stingers; each track holds a music source while it plays.
        let setSources = self.musicSets.reduce(0) { n, s in
            n + 2 * (s.definition.states.map(\.segments.count).max() ?? 1) + min(s.definition.stingers.count, 4) + 1
        }
        if setSources > 0 { c.musicSources = min(64, max(c.musicSources, 4 + setSources)) }
        return c
    }
}

/// Drives one engine through a scene: loads its clips and music, starts emitters, runs events
/// and moves the listener and emitters. Shared by ``SceneRenderer`` and ``ScenePlayer``; used
/// from one thread.
final class SceneRuntime {
    enum Step {
        case startEmitter(Int)
        case event(Int)
        /// `scene.followUps[i]`, placed on the timeline once its voice's end is known.
        case followUp(Int)
    }

    let scene: Scene
    let engine: AudioEngine
    let session: SceneSessionControl
    private let bank: ClipBank
    private(set) var clips: [String: Clip] = [:]
    private var sounds: [String: Sound] = [:]
    var mixSnapshots: [String: Snapshot] = [:]
    private(set) var tracks: [String: MusicTrack] = [:]
    private var trackVolumes: [String: Float] = [:]
    /// The scene's music sets by id, and the bar lines and state changes heard (SceneRuntime+MusicSets.swift).
    var musicSets: [String: MusicSet] = [:]
    /// The scene's ambisonic beds and the volume each returns to (SceneRuntime+Beds.swift).
    var beds: [String: AmbisonicBed] = [:]
    var bedVolumes: [String: Float] = [:]
    var musicLog: SceneMusicLog?
    var stateChanges: [(time: Double, label: String)] = []
    /// What the scene's lines showed and hid (SceneRuntime+Dialogue.swift).
    let subtitleLog = SubtitleLog()
    var emitters: [Emitter?]   // internal: SceneRuntime+Parameters makes one early for a parameter
    private var voices: [Voice?]
    private var cancelled: [Bool]
    /// Each emitter's gain and pitch now (its own, or what `set:` events made them).
    private var emitterGain: [Float]
    private var emitterPitch: [Float]
    /// Each emitter's voice's level beyond the emitter's gain, kept by a `set:` of that gain
    /// (SceneRuntime+Levels.swift).
    var voiceLevels: [EmitterVoiceLevel]
    var emitterEnvironment: [EnvironmentProperties]
    /// `set:` ramps under way.
    private var ramps: [SceneRamp] = []
    let emitterIndex: [String: Int]
    /// Named plays, for `set:` events on a parameter `of:` one (SceneRuntime+Parameters.swift).
    var parameterVoices: [String: Voice] = [:]
    /// Emitter starts and events, in time order; `next` is the first not run yet.
    let timeline: [(time: Double, step: Step)]
    private(set) var next = 0
    /// Follow-ups placed as their voices' ends and markers become known (SceneRuntime+After.swift).
    var placedFollowUps = FollowUpQueue()
    /// The `after:` events and the named voices they wait for (SceneRuntime+After.swift).
    var after = AfterState()
    private let listenerMoves: Bool
    /// The emitters whose path moves, in scene order: the only ones ``frame(at:)`` repositions.
    private let movingEmitters: [Int]

    /// Loads everything the scene uses (nothing plays yet) and places the listener.
    init(scene: Scene, engine: AudioEngine,
         session makeSession: ((AudioEngine, Scene, [MusicTrack]) -> SceneSessionControl)? = nil) throws(EarshotError) {
        self.scene = scene
        self.engine = engine
        bank = ClipBank(engine: engine)
        for c in scene.clips {
            clips[c.id] = try c.handle(bank.preload(name: c.id, path: c.path))   // `loudness:`, `gain:` (SceneClip+Loudness.swift)
        }
        // Parameters before the buses and sounds whose curves name them.
        for p in scene.parameters { try engine.defineParameter(p.definition) }
        // Buses before music, sounds and plays: they may name them. Groups before their children.
        _ = try scene.definitions.makeBusTree(in: engine)
        _ = try scene.definitions.defineVCAs(in: engine)   // SceneRuntime+VCAs.swift runs vca: events
        for b in scene.buses {
            let bus = Bus(b.name)
            if let gain = b.linearGain { try engine.setGain(gain, for: bus) }
            if !b.curves.isEmpty { try engine.setCurves(b.curves, for: bus) }
        }
        var ordered: [MusicTrack] = []
        for m in scene.music {
            let track = try engine.loadMusic(path: m.path, bus: Bus(m.bus))
            try m.apply(to: track)
            tracks[m.id] = track
            trackVolumes[m.id] = m.volume
            ordered.append(track)
        }
        session = makeSession?(engine, scene, ordered)
            ?? EngineSceneSession(engine: engine, settings: scene.session, tracks: ordered)
        emitters = Array(repeating: nil, count: scene.emitters.count)
        voices = Array(repeating: nil, count: scene.emitters.count)
        cancelled = Array(repeating: false, count: scene.emitters.count)
        emitterGain = scene.emitters.map(\.gain)
        emitterPitch = scene.emitters.map(\.pitch)
        voiceLevels = Array(repeating: EmitterVoiceLevel(), count: scene.emitters.count)
        emitterEnvironment = scene.emitters.map(\.environment)
        var index: [String: Int] = [:]
        for (i, e) in scene.emitters.enumerated() { index[e.id] = i }
        emitterIndex = index
        // Emitter starts come before events at the same time (so a stop at that time finds them).
        var steps: [(time: Double, order: Int, step: Step)] = []
        for (i, e) in scene.emitters.enumerated() { steps.append((e.start, i, .startEmitter(i))) }
        for (i, e) in scene.events.enumerated() { steps.append((e.time, scene.emitters.count + i, .event(i))) }
        timeline = steps.sorted { ($0.time, $0.order) < ($1.time, $1.order) }.map { ($0.time, $0.step) }
        listenerMoves = scene.listener.changes || scene.otherListeners.contains { $0.changes }
        movingEmitters = scene.emitters.indices.filter { scene.emitters[$0].path.moves }
        placeListeners(at: 0)
        try engine.setReverbZones(scene.zones)
        try startRooms()
        // An emitter a track follows exists from the start (moving along its path), so that the
        // track is placed whenever it plays; its own clip, if any, still starts at `start:`.
        for m in scene.music {
            guard let id = m.emitter, let i = emitterIndex[id], let track = tracks[m.id] else { continue }
            if emitters[i] == nil {
                let e = try engine.makeEmitter(scene.emitters[i].spatial(at: 0))
                if emitterEnvironment[i] != .open { engine.setEnvironment(emitterEnvironment[i], of: e) }
                emitters[i] = e
            }
            if let e = emitters[i] { try track.follow(e) }
        }
        let clipPaths = Dictionary(scene.clips.map { ($0.id, $0.path) }, uniquingKeysWith: { first, _ in first })
        let clipDecibels = try SceneClip.playDecibels(scene.clips)   // clips measured as they play
        for s in SceneSound.makingOrder(scene.sounds) {   // a switch after its cases
            var d = s.definition(clips: clips, spatial: s.attenuation.spatial(position: .zero), sounds: sounds)
            d.gain *= try s.loudnessFactor(clipPaths: clipPaths, clipDecibels: clipDecibels)   // `loudness:` (SceneSound+Loudness.swift)
            sounds[s.id] = try engine.makeSound(d)
        }
        try loadMusicSets()
        try loadBeds()
        try applyMixSettings()
        try setUpDialogue()   // SceneRuntime+Dialogue.swift
        try checkPlayTiming(clips: clips)
        prepareAfter()
    }

    /// The time of the next step, or nil when the timeline is done.
    var nextTime: Double? {
        let fixed = next < timeline.count ? timeline[next].time : nil
        guard let placed = placedFollowUps.firstTime else { return fixed }
        return fixed.map { min($0, placed) } ?? placed
    }

    /// Runs the next step of the timeline; returns the scene event it ran, if it was one.
    @discardableResult
    func runNext() throws(EarshotError) -> SceneEvent? {
        let time: Double, step: Step
        // A follow-up runs after the steps due at its time (file order), never before what already ran.
        if next < timeline.count, placedFollowUps.firstTime.map({ timeline[next].time <= $0 }) ?? true {
            (time, step) = timeline[next]
            next += 1
        } else if let placed = placedFollowUps.popFirst() {
            (time, step) = (placed.time, .followUp(placed.index))
        } else {
            return nil
        }
        switch step {
        case .startEmitter(let i):
            try start(emitter: i, at: time)
            return nil
        case .event(let i):
            let event = scene.events[i]
            try run(event, name: scene.playNames.isEmpty ? nil : scene.playNames[i])
            return event
        case .followUp(let i):
            var event = scene.followUps[i].event
            event.time = time
            try run(event, name: scene.followUps[i].name)
            return event
        }
    }

    /// Runs every step due at or before `time`; returns the scene events run.
    func runDue(upTo time: Double) throws(EarshotError) -> [SceneEvent] {
        var ran: [SceneEvent] = []
        while let t = nextTime, t <= time {
            if let e = try runNext() { ran.append(e) }
        }
        return ran
    }

    /// Once per game frame: moves the listener and the emitters on paths, advances session ramps.
    func frame(at time: Double) {
        if listenerMoves { placeListeners(at: time) }
        // A scene of fixed emitters has nothing to move: no reason to take the AL lock each frame.
        // Moving ones get their path's velocity too, for the Doppler effect.
        if !movingEmitters.isEmpty {
            engine.batch { b in
                for i in movingEmitters {
                    guard let e = emitters[i] else { continue }
                    let spec = scene.emitters[i]
                    if spec.facing == .path {
                        b.setProperties(spec.spatial(at: time), of: e)   // its direction turns with it
                    } else {
                        b.setPosition(spec.path.position(at: time), velocity: spec.path.velocity(at: time), of: e)
                    }
                }
            }
        }
        if !ramps.isEmpty {
            for r in ramps {
                let (v, _) = r.value(at: time)
                apply(r.target, r.property, v)
            }
            ramps.removeAll { $0.value(at: time).done }
        }
        session.advance(to: time)
    }

    // MARK: set: events

    /// A property's value now.
    private func current(_ target: SceneSetTarget, _ property: SceneChange.Property) -> Float {
        switch (target, property) {
        case (.emitter(let id), .pitch): return emitterIndex[id].map { emitterPitch[$0] } ?? 1
        case (.emitter(let id), .occlusion): return emitterIndex[id].map { emitterEnvironment[$0].occlusion } ?? 0
        case (.emitter(let id), _): return emitterIndex[id].map { emitterGain[$0] } ?? 1
        case (.music(let id), .pan): return tracks[id]?.pan ?? 0
        case (.music(let id), .rate): return tracks[id]?.rate ?? 1
        case (.music(let id), _): return trackVolumes[id] ?? 1
        case (.bus(let name), _): return Self.sceneBus { () throws(EarshotError) in try engine.gain(for: Bus(name)) }
        }
    }

    /// Sets a property (the parser allowed only the properties each target takes).
    private func apply(_ target: SceneSetTarget, _ property: SceneChange.Property, _ value: Float) {
        switch (target, property) {
        case (.emitter(let id), .pitch):
            guard let i = emitterIndex[id] else { return }
            emitterPitch[i] = value
            voices[i]?.pitch = voiceLevels[i].voicePitch(emitterPitch: value)
        case (.emitter(let id), .occlusion):
            guard let i = emitterIndex[id] else { return }
            emitterEnvironment[i].occlusion = value
            if let e = emitters[i] { engine.setEnvironment(emitterEnvironment[i], of: e) }
        case (.emitter(let id), _):
            guard let i = emitterIndex[id] else { return }
            emitterGain[i] = value
            voices[i]?.gain = voiceLevels[i].voiceGain(emitterGain: value)
        case (.music(let id), .pan): tracks[id]?.pan = value
        case (.music(let id), .rate): tracks[id]?.rate = value
        case (.music(let id), _):
            trackVolumes[id] = min(MusicTrack.maxVolume, value)
            tracks[id]?.volume = min(MusicTrack.maxVolume, value)
        case (.bus(let name), _): Self.sceneBus { () throws(EarshotError) in try engine.setGain(value, for: Bus(name)) }
        }
    }

    /// A bus call on a bus of the scene: the parser lets `set` name only buses the scene declares
    /// or the built-in ones, `start` added every declared bus, and ramp values are finite and
    /// ≥ 0, so it cannot throw — if it did, that would be a bug here, and it traps.
    private static func sceneBus<T>(_ body: () throws(EarshotError) -> T) -> T {
        do { return try body() } catch { preconditionFailure("a scene bus call failed: \(error)") }
    }

    private func start(emitter i: Int, at time: Double) throws(EarshotError) {
        guard !cancelled[i] else { return }
        let spec = scene.emitters[i]
        if let e = emitters[i] { return try playVoice(i, on: e) }   // made at load for a track that follows it
        let e = try engine.makeEmitter(spec.spatial(at: time))
        if emitterEnvironment[i] != .open { engine.setEnvironment(emitterEnvironment[i], of: e) }
        emitters[i] = e
        try playVoice(i, on: e)
    }

    /// Starts emitter `i`'s clip (or sound) on `e` with its gain and pitch now.
    private func playVoice(_ i: Int, on e: Emitter) throws(EarshotError) {
        let spec = scene.emitters[i]
        if spec.clip.isEmpty { return }   // an emitter only a music track follows: it plays nothing itself
        if let sound = sounds[spec.clip] {
            // A sound: its selection, variation and limit apply; a refused play leaves no voice.
            var options = SoundPlayOptions(emitter: e, gain: emitterGain[i])
            options.pitch = emitterPitch[i]
            options.loop = spec.loop
            options.priority = spec.priority
            options.spread = spec.spread
            let voice = try engine.play(sound, options: options)
            voices[i] = voice
            voiceLevels[i] = Self.level(of: voice, sound: sound, gain: emitterGain[i], pitch: emitterPitch[i],
                                        loop: spec.loop)
            return
        }
        guard let clip = clips[spec.clip] else {
            preconditionFailure("scene emitter \(spec.id): clip \(spec.clip) was validated but not loaded")  // trap: parser invariant
        }
        var options = PlayOptions(gain: emitterGain[i], pitch: emitterPitch[i], loop: spec.loop,
                                  priority: spec.priority, emitter: e)
        options.spread = spec.spread
        voices[i] = try engine.play(clip, options: options)
        voiceLevels[i] = Self.level(of: clip, gain: emitterGain[i], pitch: emitterPitch[i])
    }

    /// Runs `event`; `name`: the `name:` of a play others wait for.
    private func run(_ event: SceneEvent, name: String? = nil) throws(EarshotError) {
        switch event.action {
        case .music(let id, let action):
            guard let track = tracks[id] else {
                preconditionFailure("scene music \(id) was validated but not loaded")  // trap: parser invariant
            }
            switch action {
            case .play(let volume, let rate, let tape):
                if let volume { trackVolumes[id] = volume }
                if let tape { track.rateMode = tape ? .tape : .keepsPitch }
                if let rate { track.rate = rate }
                track.volume = trackVolumes[id] ?? 1
                if session.isInterrupted { session.resumeLater(track) } else { try track.play() }
            case .pause:
                track.pause()
            case .stop(let fade):
                if track.isPlaying {
                    track.fade(to: 0, duration: max(fade, 0.02), stopsAtEnd: true)
                } else {
                    track.stop()
                }
            case .fade(let volume, let duration):
                trackVolumes[id] = volume
                track.fade(to: volume, duration: duration)
            }
        case .musicSet(let id, let action):
            try run(id, action, sceneTime: event.time)
        case .bed(let id, let action):
            try run(bed: id, action)
        case .say(let s):
            try say(s, at: event.time)   // SceneRuntime+Dialogue.swift
        case .play(let p):
            // The parser refuses position and pan together: one placement.
            // A clip has the scene's distance settings; a sound its own (SoundPlayOptions.position).
            let placement: PlayOptions.Placement =
                p.position.map { .spatial(scene.attenuation.spatial(position: $0)) } ?? .pan(p.pan)
            // A refused play is the pool's (or the sound's limit's) decision, not an error.
            if let sound = sounds[p.id] {
                var options = SoundPlayOptions()
                options.gain = p.gain
                options.pitch = p.pitch
                options.priority = p.priority
                options.bus = p.bus.map(Bus.init)
                options.offset = p.offset
                options.loopCount = p.loops
                options.spread = p.spread
                if let position = p.position { options.position = position } else { options.placement = placement }
                let voice = try engine.play(sound, options: options)
                if let name { parameterVoices[name] = voice }
                if let name { played(name, voice: voice, at: event.time, clip: nil, p) }
            } else if let clip = clips[p.id] {
                var options = PlayOptions(gain: p.gain, pitch: p.pitch, priority: p.priority ?? 128,
                                          bus: p.bus.map(Bus.init) ?? .sfx, placement: placement)
                options.offset = p.offset
                options.loopCount = p.loops
                options.spread = p.spread
                let voice = try engine.play(clip, options: options)
                if let name { parameterVoices[name] = voice }
                if let name { played(name, voice: voice, at: event.time, clip: clip, p) }
            } else {
                preconditionFailure("scene clip or sound \(p.id) was validated but not loaded")  // trap: parser invariant
            }
        case .snapshot(let id, let begins, let fade, let intensity):
            try runSnapshot(id, begins: begins, fade: fade, intensity: intensity)
        case .vca(let id, let db, let fade):
            try runVCA(id, gainDB: db, fade: fade)
        case .parameter(let p):
            try runParameter(p, at: event.time)
        case .hint(let begins):
            session.secondaryAudioHint(begins: begins, at: event.time)
        case .interruption(let began, let shouldResume):
            try session.interruption(began: began, shouldResume: shouldResume, at: event.time)
            if began { interruptionBegan() }   // a held voice ends later than foreseen
        case .stop(let id, let fade):
            guard let i = emitterIndex[id] else { return }
            if let voice = voices[i] { voice.stop(fade: fade) } else { cancelled[i] = true }
        case .start(let id):
            guard let i = emitterIndex[id] else { return }
            cancelled[i] = false
            if let e = emitters[i] {
                // From the top, on the same emitter: a voice still playing fades out (20 ms, no
                // click) as the new one starts.
                voices[i]?.stop(fade: 0.02)
                try playVoice(i, on: e)
            } else {
                try start(emitter: i, at: event.time)
            }
        case .portal(let id, let open, let ramp):
            try runPortal(id, open: open, ramp: ramp)
        case .set(let target, let changes, let ramp, let curve):
            for c in changes {
                ramps.removeAll { $0.target == target && $0.property == c.property }
                if ramp <= 0 {
                    apply(target, c.property, c.value)
                } else {
                    ramps.append(
                        SceneRamp(
                            target: target, property: c.property, from: current(target, c.property), to: c.value,
                            start: event.time, duration: ramp,
                            curve: curve ?? (c.property == .gain ? .exponential : .linear)))
                }
            }
        }
    }

    /// Stops every voice and track (each with a fade) — the end of a live run.
    func stopEverything(fade: Double) {
        engine.stopAllVoices()
        for t in tracks.values where t.isPlaying { t.fade(to: 0, duration: max(fade, 0.02), stopsAtEnd: true) }
    }
}
