import Foundation

/// How a ``MusicSet`` plans: its tracks, where the playing segment is, the boundaries of its
/// grid, and the starts, stops and fades a change schedules on the audio clock. Everything here
/// runs under the set's lock.
extension MusicSet {
    /// One file of the set and how it plays: a state's segment or stem, a stinger or a bridge.
    final class Part: Sendable {   // constants only, each Sendable
        let track: MusicTrack
        let segment: MusicSegment
        /// The stem's name (layered states only).
        let layer: String?
        /// Whether it loops until stopped.
        let loops: Bool
        /// Where it starts (its entry cue), and where an `end` transition leaves it, in seconds.
        let entry: Double
        let exit: Double?
        /// Its cues, seconds, in order (listed and from the file).
        let cues: [Double]
        /// What each pass of a looping part plays, in seconds (the whole file without a loop).
        let loopRegion: Range<Double>

        init(track: MusicTrack, segment: MusicSegment, layer: String?, loops: Bool, entry: Double, exit: Double?, cues: [Double],
             loopRegion: Range<Double>? = nil) {
            self.track = track
            self.segment = segment
            self.layer = layer
            self.loops = loops
            self.entry = entry
            self.exit = exit
            self.cues = cues
            self.loopRegion = loopRegion ?? 0..<track.duration
        }

        var length: Double { track.duration }
        /// Where a pass of the part ends: its loop's end when it loops, else the file's end.
        var passEnd: Double { loops ? loopRegion.upperBound : length }
    }

    /// A change asked for whose boundary has not passed: what it scheduled, so that a second
    /// request can take it all back.
    struct Pending {
        var to: String
        /// Where the old state stops (or starts fading), and where the new one's first sample is
        /// heard (later than `boundary` by a bridge's length).
        var boundary: Double
        var begins: Double
        /// Tracks it scheduled to start (the new state's, a bridge, a stinger).
        var started: [MusicTrack]
        /// The old state's tracks it stops or fades at the boundary, with their volumes before.
        var old: [(track: MusicTrack, volume: Float)]
        /// Segments of the old state that were chained to follow the heard one, unchained.
        var unchained: [(follower: MusicTrack, after: MusicTrack)]
        /// When the new state's start was set up, to restore if the change is cancelled.
        var previousStart: (time: Double, part: Part)?
    }

    struct Inner {
        var parts: [String: [Part]]
        var layered: Set<String>
        var stingers: [String: Part]
        var bridges: [String: Part]
        var current: String?
        /// When the current state's first part started and which part that was (its position
        /// before its source exists: a start in the future).
        var stateStart: (time: Double, part: Part)?
        var pending: Pending?
        /// Tracks still fading out of the last change.
        var leaving: [MusicTrack] = []
        var layerGains: [String: Float] = [:]
        /// What each stem's parameter curves make of it now (MusicLayer.curves; 1 without),
        /// multiplied into its layer gain (MusicSet+Parameters.swift).
        var curveGains: [String: Float] = [:]

        /// A stem's volume: its layer gain times its curves'.
        func stemVolume(_ state: String, _ layer: String) -> Float {
            let key = Self.key(state, layer)
            return (layerGains[key] ?? 1) * (curveGains[key] ?? 1)
        }
        var paused = false
        var deferred: String?
        /// A change put aside while the bus held the music (``MusicSet/tick()``).
        var heldDeferred: String?
        /// Stingers' ducks under way: until when, and the tracks with the volume to return to.
        var ducks: [(until: Double, tracks: [(MusicTrack, Float)])] = []
        var history: [Change] = []
        /// Live: how long before its boundary a change is settled (its starts set up).
        var margin: Double

        static func key(_ state: String, _ layer: String) -> String { state + "\u{1F}" + layer }

        static func unknown(_ state: String, in set: MusicSet) -> String {
            "music set \(set.name) has no state \"\(state)\" (states: \(set.stateNames.joined(separator: ", ")))"
        }

        var allTracks: [MusicTrack] {
            parts.values.flatMap { $0.map(\.track) } + stingers.values.map(\.track) + bridges.values.map(\.track)
        }

        func isLayered(_ state: String) -> Bool { layered.contains(state) }

        /// A pending change whose boundary is reached is done.
        mutating func commit(now: Double) {
            guard let p = pending, now >= p.boundary - margin else { return }
            current = p.to
            leaving = p.old.map(\.track)
            pending = nil
            history.append(Change(state: p.to, audioTime: p.begins))
            if history.count > MusicSetDefinition.maxEntries * 16 { history.removeFirst(history.count - MusicSetDefinition.maxEntries * 16) }
        }

        /// Takes back everything a pending change scheduled: nothing of it is heard.
        mutating func cancelPending(system: MusicSystem, engine: AudioEngine) {
            commit(now: engine.audioTime)
            guard let p = pending else { return }
            pending = nil
            for t in p.started { t.stop() }
            for (t, volume) in p.old {
                system.stop(t.stream, at: nil, host: engine)
                t.volume = volume   // cancels the fade at the boundary
                system.setBeatsUntil(t.stream, nil)
            }
            for (f, after) in p.unchained { try? system.chain(f.stream, after: after.stream) }
            if let s = p.previousStart { stateStart = s }
        }

        /// The part of `state` heard now (or, before any is, the one that starts first) and the
        /// file position heard at an audio time.
        func heard(_ state: String, system: MusicSystem, engine: AudioEngine) -> (part: Part, seconds: Double, at: Double)? {
            guard let list = parts[state] else { return nil }
            var best: (part: Part, seconds: Double, at: Double, leadIn: Int)?
            for p in isLayered(state) ? [list[0]] : list {
                guard let pos = system.heardPosition(p.track.stream, host: engine) else { continue }
                let rate = Double(p.track.sampleRate)
                let candidate = (p, Double(pos.frame) / rate, pos.audioTime + Double(pos.leadIn) / rate, pos.leadIn)
                if best == nil || candidate.3 < best!.leadIn { best = candidate }
            }
            if let best { return (best.part, best.seconds, best.at) }
            if let s = stateStart, list.contains(where: { $0 === s.part }) { return (s.part, s.part.entry, s.time) }
            return nil
        }

        /// The audio time of boundary `kind` of the current state's playing segment: the first
        /// point of its grid (beats, bars, cues, its exit) at or after now (live: at least
        /// ``MusicSet/minimumLiveLead`` ahead). Nil with nothing playing.
        func boundary(_ kind: MusicTransition.Boundary, system: MusicSystem, engine: AudioEngine) -> (time: Double, part: Part)? {
            guard let state = current, let (part, x, at) = heard(state, system: system, engine: engine) else { return nil }
            let now = engine.audioTime
            return (Self.boundary(kind, part: part, seconds: x, heardAt: at, earliest: now + margin), part)
        }

        /// The boundary of `kind` of `part`, whose file second `x` is heard at audio time `at`,
        /// not before `earliest`.
        static func boundary(_ kind: MusicTransition.Boundary, part: Part, seconds x: Double, heardAt at: Double,
                             earliest: Double) -> Double {
            // A pass runs to the loop's end (the file's without a loop); the next ones play the
            // loop region again from its start.
            let end = max(part.passEnd, x), loopStart = part.loopRegion.lowerBound
            var points: [Double]
            var grid: (first: Double, step: Double)?
            switch kind {
            case .immediate:
                return earliest
            case .nextBeat, .nextBar:
                guard let t = part.segment.tempo else { return earliest }
                let step = t.secondsPerBeat * (kind == .nextBar ? Double(t.beatsPerBar) : 1)
                grid = (t.firstBeat, step)
                points = []
            case .nextCue:
                points = part.cues
                if points.isEmpty { points = [part.exit ?? end] }
            case .end:
                points = [part.exit ?? end]
            }
            let tolerance = 1e-9
            for pass in 0..<3 {
                // The file second this pass begins at, and the audio time it is heard at.
                let base = pass == 0 ? x : loopStart
                let heard = pass == 0 ? at : at + (end - x) + Double(pass - 1) * (end - loopStart)
                // The earliest file second of this pass that is not in the past.
                let lower = max(base, earliest - heard + base)
                var found: Double?
                if let grid {
                    let k = max(0, ((lower - grid.first) / grid.step - tolerance).rounded(.up))
                    let g = grid.first + k * grid.step
                    if g < end - tolerance { found = g }
                } else {
                    found = points.first { $0 >= lower - tolerance && $0 <= end }
                }
                if let g = found { return heard + g - base }
                if !part.loops || end - loopStart <= 0 { break }
            }
            // Past the last point of a segment that does not loop (or of three passes): its end.
            return max(earliest, at + end - x)
        }

        // MARK: Starting

        /// Starts `parts` (a state) so that its first sample is heard at `time`.
        mutating func start(_ list: [Part], at time: Double, system: MusicSystem, engine: AudioEngine) throws(EarshotError) {
            guard let first = list.first else { return }
            let state = parts.first { $0.value.first === first }?.key
            let layeredState = state.map(isLayered) ?? false
            for p in list {
                if p.track.isPlaying || p.track.isWaitingToPlay {
                    // Still fading out of an earlier change (or queued behind a segment): cut now.
                    p.track.stop()
                }
                leaving.removeAll { $0 === p.track }
                system.setBeatsUntil(p.track.stream, nil)
                let gain = p.layer.flatMap { l in state.map { stemVolume($0, l) } } ?? 1
                p.track.volume = gain
            }
            if layeredState || list.count == 1 {
                for p in list {
                    p.track.currentTime = p.entry
                    try p.track.play(at: time)
                }
            } else {
                list[0].track.currentTime = list[0].entry
                try list[0].track.play(at: time)
                for i in 1..<list.count {
                    list[i].track.currentTime = list[i].entry   // each segment from its entry cue
                    try system.chain(list[i].track.stream, after: list[i - 1].track.stream)
                }
            }
            stateStart = (time, first)
        }

        /// Ducks the current state's playing tracks by `db` from `time`; ``releaseDucks(now:)``
        /// brings them back after `until`. Nothing while a change is pending.
        mutating func duck(by db: Float, at time: Double, until: Double) {
            guard pending == nil, let state = current, let list = parts[state] else { return }
            let factor = Float(pow(10, Double(db) / 20))
            var tracks: [(MusicTrack, Float)] = []
            for p in list where p.track.isPlaying && !leaving.contains(where: { $0 === p.track }) {
                let volume = p.layer.map { stemVolume(state, $0) } ?? 1
                p.track.fade(to: volume * factor, duration: MusicSet.stingerDuckAttack, at: time)
                tracks.append((p.track, volume))
            }
            if !tracks.isEmpty && ducks.count < MusicSetDefinition.maxEntries { ducks.append((until, tracks)) }
        }

        /// Ducks whose stinger has played come back up (tracks that left their state meanwhile,
        /// or a pending change's, are left to the change).
        mutating func releaseDucks(now: Double) {
            guard ducks.contains(where: { now >= $0.until }) else { return }
            let heard = current.flatMap { parts[$0] } ?? []
            for d in ducks where now >= d.until {
                for (t, volume) in d.tracks where pending == nil && heard.contains(where: { $0.track === t })
                    && !leaving.contains(where: { $0 === t }) && t.isPlaying {
                    t.fade(to: volume, duration: MusicSet.stingerDuckRelease)
                }
            }
            ducks.removeAll { now >= $0.until }
        }

        func startStinger(_ part: Part, at time: Double) throws(EarshotError) {
            part.track.stop()
            part.track.currentTime = part.entry
            try part.track.play(at: time)
        }

        // MARK: Changing

        /// Plans the change from `from` to `to` by `rule`; returns when the new state begins.
        mutating func change(from: String, to: String, rule: MusicTransition, definition: MusicSetDefinition,
                             system: MusicSystem, engine: AudioEngine) throws(EarshotError) -> Double {
            guard let targets = parts[to] else { return engine.audioTime }
            let b = boundary(rule.at, system: system, engine: engine)?.time ?? (engine.audioTime + margin)
            var started: [MusicTrack] = []
            var begins = b
            if let via = rule.via, let bridge = bridges[via] {
                try startStinger(bridge, at: b)
                started.append(bridge.track)
                let end = bridge.exit ?? bridge.length
                if bridge.exit != nil { try bridge.track.stop(at: b + end - bridge.entry) }
                begins = b + max(0, end - bridge.entry)
            }
            // The old state: its heard tracks stop (or fade out) on the boundary; segments
            // chained to follow them are unchained; its beats end there.
            var old: [(MusicTrack, Float)] = []
            var unchained: [(MusicTrack, MusicTrack)] = []
            let oldParts = parts[from] ?? []
            for (i, p) in oldParts.enumerated() {
                let t = p.track
                if t.isWaitingToPlay, !t.isPlaying {
                    t.pause()   // cancels the wait
                    if i > 0 { unchained.append((t, oldParts[i - 1].track)) }
                    continue
                }
                guard system.read(t.stream, { $0.state != .idle }) else { continue }
                old.append((t, t.volume))
                system.setBeatsUntil(t.stream, b)
                if rule.fade > 0 {
                    t.fade(to: 0, duration: rule.fade, curve: rule.curve, stopsAtEnd: true, at: b)
                } else {
                    try t.stop(at: b)
                }
            }
            let previousStart = stateStart
            do throws(EarshotError) {
                try start(targets, at: begins, system: system, engine: engine)
            } catch {
                pending = Pending(to: to, boundary: b, begins: begins, started: started + targets.map(\.track), old: old,
                                  unchained: unchained, previousStart: previousStart)
                cancelPending(system: system, engine: engine)
                throw error
            }
            if rule.fadeIn > 0 {
                // The new state rises from silence on its first sample (a sequence's first segment;
                // every stem of a layered state), to the volume it starts at.
                for p in isLayered(to) ? targets : Array(targets.prefix(1)) {
                    let volume = p.track.volume
                    p.track.volume = 0
                    p.track.fade(to: volume, duration: rule.fadeIn, curve: rule.curve, at: begins)
                }
            }
            started += targets.map(\.track)
            if let name = rule.stinger, let s = stingers[name] {
                try? startStinger(s, at: b)
                started.append(s.track)
            }
            pending = Pending(to: to, boundary: b, begins: begins, started: started, old: old, unchained: unchained,
                              previousStart: previousStart)
            return begins
        }
    }
}
