import Earshot
import Foundation

// The one conversion of content definitions into engine objects. A scene's runtime, a bank's
// load and reload and `earshot audition` all make their sounds, snapshots, duckings, parameters,
// distance settings and music settings here, so that a key reads the same wherever it is used.
// The bus tree and the VCAs: EngineConversion+BusTree.swift (`makeBusTree`, `defineVCAs`).

extension SceneSound {
    /// The engine's definition of this sound, named by its id — its selection, variation, level,
    /// limits, curves, or its layers — with its clip ids looked up in `clips` (ids missing there
    /// are left out) and `spatial` as the distance settings of its positioned plays (a scene and
    /// a bank pass the sound's own, `attenuation.spatial(position: .zero)`).
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/mix.yaml")
    /// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
    /// var clips: [String: Clip] = [:]
    /// for c in scene.clips { clips[c.id] = try engine.loadClip(path: c.path) }
    /// for p in scene.parameters { try engine.defineParameter(p.definition) }
    /// let sounds = try scene.sounds.map { try engine.makeSound($0.definition(clips: clips)) }
    /// ```
    public func definition(clips: [String: Clip], spatial: SpatialProperties = SpatialProperties(),
                           sounds: [String: Sound] = [:]) -> SoundDefinition {
        var d: SoundDefinition
        if let sw = switchOn {
            // A switch: its cases are sounds made before it (``makingOrder(_:)``).
            var cases: [String: Sound] = [:]
            for c in sw.cases { if let s = sounds[c.sound] { cases[c.label] = s } }
            d = SoundDefinition(switch: SoundSwitch(parameter: sw.parameter, cases: cases,
                                                    defaultCase: sw.defaultSound.flatMap { sounds[$0] },
                                                    follow: sw.follow, fade: sw.fade),
                                limit: limit, cooldown: cooldown)
            d.bus = Bus(bus)
            d.priority = priority
            d.spatial = spatial
        } else if layers.isEmpty {
            d = SoundDefinition(
                clips: self.clips.compactMap { clips[$0] }, selection: select, weights: weights,
                avoidRepeat: avoidRepeat, pitchVariation: pitchCents, gainVariation: gainDB,
                limit: limit, cooldown: cooldown, bus: Bus(bus), priority: priority, loop: loop, spatial: spatial)
            d.curves = curves
        } else {
            let made = layers.compactMap { l -> SoundLayer? in
                guard let clip = clips[l.clip] else { return nil }
                return SoundLayer(
                    clip: clip, gain: Float(pow(10, l.gainDB / 20)), pitch: Float(l.pitch), curves: l.curves,
                    timing: l.timing.map { t in
                        SoundLayer.Timing(delay: t.delay, alternatives: t.alternatives.compactMap { clips[$0] },
                                          selection: t.select, pitchVariation: t.pitchCents, gainVariation: t.gainDB,
                                          loop: t.loop, sustain: t.sustain, tail: t.tail)
                    })
            }
            d = SoundDefinition(
                layers: made, curves: curves, loop: loop, limit: limit, cooldown: cooldown, bus: Bus(bus),
                priority: priority, spatial: spatial)
        }
        d.gain = linearLevel
        d.name = id   // what the monitor shows
        d.spatialMode = spatialMode
        d.spread = spread
        return d
    }
}

extension SceneSnapshot {
    /// The engine's snapshot: its bus gains (dB) and low-pass filters by bus.
    ///
    /// ```swift
    /// let scene = try Scene.load(path: "Demos/Scenes/mix.yaml")
    /// let snapshots = scene.snapshots.map(\.snapshot)
    /// ```
    public var snapshot: Snapshot {
        var gains: [Bus: Double] = [:]
        for (bus, db) in self.gains { gains[Bus(bus)] = db }
        var filters: [Bus: LowPassFilter] = [:]
        for (bus, filter) in self.filters { filters[Bus(bus)] = filter }
        return Snapshot(id, busGains: gains, busFilters: filters)
    }
}

extension SceneBus.Duck {
    /// The engine's ducking of ``target`` (set with `AudioEngine.setDucking(_:of:by:)`).
    public var ducking: Ducking {
        Ducking(level: level, attack: attack, release: release, threshold: threshold, hold: hold)
    }
}

extension SceneBus {
    /// The bus's `gain:` as a linear factor, nil when it names none.
    public var linearGain: Float? { gainDB.map { Float(pow(10, $0 / 20)) } }
}

extension SceneParameter {
    /// The engine's definition (a labelled one for `labels:`).
    public var definition: ParameterDefinition {
        guard labels.isEmpty else {
            var d = ParameterDefinition(name: id, labels: labels)
            d.defaultValue = defaultValue
            return d
        }
        return ParameterDefinition(name: id, range: range, defaultValue: defaultValue, seek: seek)
    }
}

extension SceneSound {
    /// `sounds` in the order they can be made: a switch after the sounds it plays (a case is
    /// never a switch, so one pass suffices).
    public static func makingOrder(_ sounds: [SceneSound]) -> [SceneSound] {
        sounds.filter { $0.switchOn == nil } + sounds.filter { $0.switchOn != nil }
    }
}

extension SceneAttenuation {
    /// Spatial properties at `position` moving at `velocity`, with this attenuation (its
    /// ``explicit`` fields marked explicit, the others not).
    public func spatial(position: Vector3, velocity: Vector3 = .zero) -> SpatialProperties {
        var p = SpatialProperties(
            position: position, velocity: velocity, referenceDistance: referenceDistance,
            maxDistance: maxDistance, rolloff: rolloff, distanceModel: model, beyondMax: beyondMax, curve: curve)
        p.explicitDistance = explicit
        return p
    }
}

extension SceneMusic {
    /// Gives `track` this entry's loop region, volume, loops, rate and pitch mode: what a scene's
    /// render and a bank (`SoundBank`) load alike. The region first: when the track cannot
    /// take it (throws), nothing of the track has changed. A region still given by cue names
    /// (the parser resolves them to seconds) is refused, not dropped.
    public func apply(to track: MusicTrack) throws(EarshotError) {
        if let loop {
            guard case .seconds(let start) = loop.start else {
                throw .invalidArgument("music \(id): the loop's start is a cue not resolved to seconds")
            }
            var end = track.duration
            switch loop.end {
            case .seconds(let e)?: end = e
            case nil: break
            default: throw .invalidArgument("music \(id): the loop's end is a cue not resolved to seconds")
            }
            try track.setLoopRegion(seconds: start...min(end, track.duration))
        } else {
            try track.setLoopRegion(nil)
        }
        track.numberOfLoops = loops
        track.volume = volume
        track.rateMode = tape ? .tape : .keepsPitch
        track.rate = rate
    }
}

extension SceneBed {
    /// The options its bed is opened with (``AudioEngine/openBed(path:options:)``).
    public var options: AmbisonicBed.Options {
        .init(format: format, bus: Bus(bus), volume: volume, lock: lock, yaw: yaw)
    }
}
