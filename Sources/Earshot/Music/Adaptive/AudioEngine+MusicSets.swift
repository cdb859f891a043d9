/// Adaptive music sets.
extension AudioEngine {
    /// Makes a ``MusicSet`` from `definition`: checks it, opens every file as a streamed track on
    /// the set's bus (nothing plays until ``MusicSet/play(state:at:)``) and gives each its tempo,
    /// cues and loops.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a definition that does not hold together —
    /// no states, two states (or two stems of a state) with one name, more than
    /// ``MusicSetDefinition/maxEntries`` of anything, a rule naming a state, stinger or bridge
    /// the set does not have, a fade that is not 0…600 s, a tempo outside ``Tempo``'s limits, a
    /// cue outside its file, an entry, exit or loop point naming no cue, a loop that is empty,
    /// outside its file or on a segment that does not loop — and what
    /// ``loadMusic(path:bus:)`` throws for a file.
    ///
    /// ```swift
    /// let music = try engine.makeMusicSet(MusicSetDefinition(name: "level1", states: [
    ///     .init(name: "explore", content: .track(.init(path: "Assets/Music/theme.ogg", tempo: Tempo(bpm: 120)))),
    ///     .init(name: "combat", content: .layers([
    ///         .init(name: "drums", segment: .init(path: "Assets/Music/theme.ogg", tempo: Tempo(bpm: 120))),
    ///         .init(name: "pads", segment: .init(path: "Assets/Music/ambience.wav"), gain: 0.5)])),
    /// ], transitions: [.init(from: "*", to: "*", at: .nextBar, fade: 0.5)]))
    /// try music.play(state: "explore")
    /// ```
    public func makeMusicSet(_ definition: MusicSetDefinition) throws(EarshotError) -> MusicSet {
        try MusicSetCheck.check(definition)
        func load(_ s: MusicSegment, layer: String?, loops: Bool, tempo: Bool, markers: Bool) throws(EarshotError) -> MusicSet.Part {
            let track = try loadMusic(path: s.path, bus: definition.bus)
            track.numberOfLoops = loops ? -1 : 0
            if tempo { try track.setTempo(s.tempo) }
            // The file's markers, with the listed cues replacing those of the same name.
            var cues = track.markers.filter { s.cues[$0.name] == nil }
            for (name, seconds) in s.cues.sorted(by: { $0.key < $1.key }) {
                guard seconds.isFinite, seconds >= 0, seconds <= track.duration else {
                    throw .invalidArgument("\(s.path): cue \(name) at \(seconds) s lies outside 0…\(track.duration) s")
                }
                cues.append(MusicTrack.Cue(name: name, seconds: seconds))
            }
            cues.sort { $0.seconds < $1.seconds }
            try track.setMarkers(markers ? cues : [])
            func cue(_ name: String?, _ what: String) throws(EarshotError) -> Double? {
                guard let name else { return nil }
                guard let c = cues.first(where: { $0.name == name }) else {
                    throw .invalidArgument("\(s.path): the \(what) cue \(name) is not one of its cues (\(cues.map(\.name).joined(separator: ", ")))")
                }
                return c.seconds
            }
            let entry = try cue(s.entry, "entry") ?? 0
            let exit = try cue(s.exit, "exit")
            if let exit, exit <= entry {
                throw .invalidArgument("\(s.path): the exit cue (\(exit) s) must come after the entry (\(entry) s)")
            }
            // What a looping segment repeats: its loop, or from its entry to the file's end.
            var region = 0.0..<track.duration
            if let l = s.loop {
                guard loops else { throw .invalidArgument("\(s.path): a loop on a segment that does not loop (a stinger, a bridge or a sequence's earlier segment)") }
                func point(_ p: MusicLoop.Point, _ what: String) throws(EarshotError) -> Double {
                    switch p {
                    case .seconds(let t): return t
                    case .cue(let name): return try cue(name, "loop \(what)") ?? 0
                    }
                }
                region = try point(l.start, "start")..<(try l.end.map { (p) throws(EarshotError) in try point(p, "end") } ?? track.duration)
            } else if loops, entry > 0, Int((entry * Double(track.sampleRate)).rounded()) < track.frameCount {
                region = entry..<track.duration   // (an entry on the file's last frame loops the whole file)
            }
            if loops, region != 0.0..<track.duration {
                guard region.lowerBound.isFinite, region.upperBound.isFinite, region.lowerBound >= 0,
                      region.upperBound <= track.duration, region.upperBound > region.lowerBound else {
                    throw .invalidArgument("\(s.path): the loop \(region.lowerBound)…\(region.upperBound) s is empty or outside 0…\(track.duration) s")
                }
                guard entry < region.upperBound else {
                    throw .invalidArgument("\(s.path): the entry (\(entry) s) lies past the loop's end (\(region.upperBound) s)")
                }
                try track.setLoopRegion(seconds: region.lowerBound...region.upperBound)
            }
            return MusicSet.Part(track: track, segment: s, layer: layer, loops: loops, entry: entry, exit: exit,
                                 cues: cues.map(\.seconds), loopRegion: loops ? region : nil)
        }
        var parts: [String: [MusicSet.Part]] = [:]
        var layered = Set<String>()
        var gains: [String: Float] = [:]
        for state in definition.states {
            switch state.content {
            case .track(let s):
                parts[state.name] = [try load(s, layer: nil, loops: true, tempo: true, markers: true)]
            case .segments(let list):
                var made: [MusicSet.Part] = []
                for (i, s) in list.enumerated() {
                    made.append(try load(s, layer: nil, loops: i == list.count - 1, tempo: true, markers: true))
                }
                parts[state.name] = made
            case .layers(let layers):
                layered.insert(state.name)
                var made: [MusicSet.Part] = []
                for (i, l) in layers.enumerated() {
                    // The first stem is the state's grid: only it reports beats, bars and cues.
                    made.append(try load(l.segment, layer: l.name, loops: true, tempo: i == 0, markers: i == 0))
                    gains[MusicSet.Inner.key(state.name, l.name)] = min(MusicTrack.maxVolume, max(0, l.gain))
                }
                musicSystem.setGroup(made.map(\.track.stream))
                parts[state.name] = made
            }
        }
        var stingers: [String: MusicSet.Part] = [:]
        for (name, s) in definition.stingers { stingers[name] = try load(s, layer: nil, loops: false, tempo: false, markers: false) }
        var bridges: [String: MusicSet.Part] = [:]
        for (name, s) in definition.bridges { bridges[name] = try load(s, layer: nil, loops: false, tempo: true, markers: true) }
        var inner = MusicSet.Inner(parts: parts, layered: layered, stingers: stingers, bridges: bridges,
                                   margin: isLoopback ? 0 : MusicSet.minimumLiveLead)
        inner.layerGains = gains
        let set = MusicSet(engine: self, definition: definition, inner: inner)
        musicSystem.register(set)
        return set
    }
}

/// The checks ``AudioEngine/makeMusicSet(_:)`` makes before opening any file.
enum MusicSetCheck {
    static func check(_ d: MusicSetDefinition) throws(EarshotError) {
        let limit = MusicSetDefinition.maxEntries
        func fail(_ why: String) -> EarshotError { .invalidArgument("music set \(d.name): \(why)") }
        guard !d.states.isEmpty else { throw fail("it has no states") }
        for (what, n) in [("states", d.states.count), ("transitions", d.transitions.count), ("stingers", d.stingers.count),
                          ("bridges", d.bridges.count)] where n > limit {
            throw fail("\(n) \(what) (at most \(limit))")
        }
        var names = Set<String>()
        for state in d.states {
            guard !state.name.isEmpty, state.name != "*" else { throw fail("a state needs a name (not \"\(state.name)\")") }
            guard names.insert(state.name).inserted else { throw fail("two states are named \(state.name)") }
            let segments = state.segments
            guard !segments.isEmpty else { throw fail("state \(state.name) plays nothing") }
            guard segments.count <= limit else { throw fail("state \(state.name) has \(segments.count) parts (at most \(limit))") }
            if case .layers(let layers) = state.content {
                var stems = Set<String>()
                for l in layers where !stems.insert(l.name).inserted { throw fail("state \(state.name) has two layers named \(l.name)") }
                for l in layers where !l.gain.isFinite { throw fail("layer \(l.name) of \(state.name) has gain \(l.gain)") }
                for l in layers {
                    guard l.curves.count <= ParameterCurve.maxCurvesPerTarget else {
                        throw fail("layer \(l.name) of \(state.name) has \(l.curves.count) curves (at most \(ParameterCurve.maxCurvesPerTarget))")
                    }
                    for c in l.curves {
                        guard c.property == .gain else { throw fail("layer \(l.name) of \(state.name): a stem's curves drive its gain only, not \(c.property.rawValue)") }
                        try c.validate()
                    }
                }
            }
            for s in segments { try segment(s, fail) }
        }
        for s in Array(d.stingers.values) + Array(d.bridges.values) { try segment(s, fail) }
        for (i, t) in d.transitions.enumerated() {
            for (end, name) in [("from", t.from), ("to", t.to)] where name != "*" && !names.contains(name) {
                throw fail("transitions[\(i)].\(end): no state \(name) (states: \(d.states.map(\.name).joined(separator: ", ")))")
            }
            guard t.fade.isFinite, (0...600).contains(t.fade) else { throw fail("transitions[\(i)].fade \(t.fade) is not 0…600 s") }
            guard t.fadeIn.isFinite, (0...600).contains(t.fadeIn) else { throw fail("transitions[\(i)].fadeIn \(t.fadeIn) is not 0…600 s") }
            if let s = t.stinger, d.stingers[s] == nil { throw fail("transitions[\(i)].stinger: no stinger \(s)") }
            if let v = t.via, d.bridges[v] == nil { throw fail("transitions[\(i)].via: no bridge \(v)") }
        }
    }

    private static func segment(_ s: MusicSegment, _ fail: (String) -> EarshotError) throws(EarshotError) {
        if let t = s.tempo, !t.isValid { throw fail("\(s.path): tempo \(t) is outside its limits") }
        guard s.cues.count <= MusicTrack.maxMarkers else { throw fail("\(s.path): \(s.cues.count) cues (at most \(MusicTrack.maxMarkers))") }
    }
}
