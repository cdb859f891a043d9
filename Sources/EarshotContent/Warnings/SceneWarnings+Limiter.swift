import Earshot
import Foundation

extension Scene {
    /// A warning when the scene's gains can push the mix over full scale, where the engine's
    /// output limiter turns it down (see Earshot's `OutputLimiter`); nil when they cannot.
    ///
    /// The estimate is for one channel: every voice that can sound at a moment adds its clip's
    /// peak (decoded; 1.0 for a clip that cannot be read, a sound's loudest clip with its `gain`
    /// variation) × its gain (the largest a `set:` gives it) × the gain its distance model gives
    /// at its closest approach to the listener (a one-shot: where it plays) × its bus's gain; a
    /// music track adds its volume (streams are not decoded: full scale is assumed). Voices last
    /// their clip's length (÷ pitch, × loops), looping emitters until stopped; a sound's limit
    /// and cooldown apply as in the engine (a refused play is silent, a stolen voice ends); a bus
    /// that ducks another lowers it by the duck's level while any voice of its own sounds.
    /// Copies of one clip or sound started within a millisecond of each other are in phase, so
    /// their levels add; different sounds add in power (their peaks rarely meet). A total over
    /// full scale at some moment *can* reach the limiter; whether it does depends on phase and
    /// panning, which `earshot render` reports exactly ("the output limiter worked for … s").
    /// It takes time in proportion to the events (sorted once) and the clips' samples.
    func limiterWarning() -> SceneWarning? {
        let peaks = clipPeaks()
        let ownGain = Dictionary(self.buses.compactMap { b in b.gainDB.map { (b.name, Float(pow(10, $0 / 20))) } },
                                 uniquingKeysWith: { a, _ in a })
        // A bus is heard at the product of its own and its groups' gains (the bus tree).
        let parents = Dictionary(self.buses.compactMap { b in b.parent.map { (b.name, $0) } }, uniquingKeysWith: { a, _ in a })
        var busGain = ownGain
        for b in Set(ownGain.keys).union(parents.keys) {
            var g = ownGain[b] ?? 1, k = parents[b], steps = 0
            while let p = k, steps < Bus.maxTreeDepth {
                g *= ownGain[p] ?? 1
                k = parents[p]
                steps += 1
            }
            busGain[b] = g
        }
        let soundsByID = Dictionary(self.sounds.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        /// The loudest peak `id` (a clip or a sound) plays, and its longest length in seconds.
        func source(_ id: String) -> (peak: Float, seconds: Double, bus: String) {
            if let s = soundsByID[id] {
                let variation = Float(pow(10, abs(s.gainDB) / 20))
                let peak = s.clips.map { peaks[$0]?.peak ?? 1 }.max() ?? 1
                let seconds = s.clips.map { peaks[$0]?.seconds ?? duration }.max() ?? duration
                return (peak * variation, seconds, s.bus)
            }
            return (peaks[id]?.peak ?? 1, peaks[id]?.seconds ?? duration, "sfx")
        }
        struct Span {
            var start: Double; var end: Double; var level: Float; var name: String; var source: String; var bus: String
            /// Where the warning points when this is the loudest: its event, or its entry (`emitters.car`).
            var event: SceneEvent? = nil; var entry = ""
        }
        var spans: [Span] = []
        // Emitters: from their start until stopped (looping) or for their clip's length.
        var setGains: [String: Float] = [:]
        for e in events {
            if case .set(.emitter(let id), let changes, _, _) = e.action {
                for c in changes where c.property == .gain { setGains[id] = max(setGains[id] ?? 0, c.value) }
            }
        }
        var stops: [String: [Double]] = [:]   // each emitter's stop times, in order
        for e in events { if case .stop(let id, _) = e.action { stops[id, default: []].append(e.time) } }
        let volumes = Dictionary(self.music.map { ($0.id, $0.volume) }, uniquingKeysWith: { a, _ in a })
        let soundAttenuations = self.soundAttenuations
        for em in emitters {
            let s = source(em.clip)
            let stop = stops[em.id]?.first { $0 >= em.start } ?? duration
            let end = em.loop ? stop : min(stop, em.start + s.seconds / Double(max(em.pitch, 0.1)))
            let closest = closestApproach(of: em, until: end, steps: 200)
            let distanceGain = distanceSettings(of: em, soundAttenuations).distanceGain(
                distance: closest, model: distanceModel)
            let gain = max(em.gain, setGains[em.id] ?? 0)
            spans.append(
                Span(
                    start: em.start, end: end, level: s.peak * gain * min(distanceGain, 16) * (busGain[s.bus] ?? 1),
                    name: "emitter \(em.id)", source: em.clip, bus: s.bus, entry: "emitters.\(em.id)"))
        }
        // One-shots: for their clip's length (÷ pitch, × passes).
        var playing: [String: Double] = [:]   // music: when it started
        for e in events {
            switch e.action {
            case .play(let p):
                let s = source(p.id)
                let length = s.seconds / Double(max(p.pitch, 0.1)) * Double(max(1, p.loops + 1))
                var distanceGain: Float = 1
                if let position = p.position {
                    let a = soundAttenuations[p.id] ?? self.attenuation
                    distanceGain = min(
                        16,
                        a.spatial(position: .zero).distanceGain(
                            distance: (position - listener.path.position(at: e.time)).length,
                            model: distanceModel))
                }
                spans.append(
                    Span(
                        start: e.time, end: e.time + length,
                        level: s.peak * p.gain * distanceGain * (busGain[p.bus ?? s.bus] ?? 1),
                        name: "play \(p.id)", source: p.id, bus: p.bus ?? s.bus, event: e))
            case .music(let id, let action):
                switch action {
                case .play:
                    if playing[id] == nil { playing[id] = e.time }
                case .stop, .pause:
                    if let start = playing.removeValue(forKey: id) {
                        let volume = volumes[id] ?? 1
                        spans.append(
                            Span(
                                start: start, end: e.time, level: volume * (busGain["music"] ?? 1), name: "music \(id)",
                                source: "music " + id, bus: "music"))
                    }
                case .fade:
                    break
                }
            default:
                break
            }
        }
        for (id, start) in playing {
            let volume = volumes[id] ?? 1
            spans.append(
                Span(
                    start: start, end: duration, level: volume * (busGain["music"] ?? 1), name: "music \(id)",
                    source: "music " + id, bus: "music"))
        }
        // A sound's limit and cooldown, as the engine applies them: a play within the cooldown
        // or over a refusing limit never sounds; over another limit, the oldest voice ends.
        var spansOf: [String: [Int]] = [:]
        for i in spans.indices { spansOf[spans[i].source, default: []].append(i) }
        for sound in self.sounds where sound.limit != nil || sound.cooldown > 0 {
            var kept: [Int] = []      // its sounding spans, oldest first
            var lastStart = -Double.infinity
            for i in spansOf[sound.id] ?? [] {
                let start = spans[i].start
                if start - lastStart < sound.cooldown { spans[i].end = start; continue }
                kept.removeAll { spans[$0].end <= start }
                if let limit = sound.limit, kept.count >= limit.count {
                    if limit.steal == .refuse { spans[i].end = start; continue }
                    spans[kept.removeFirst()].end = start
                }
                kept.append(i)
                lastStart = start
            }
        }
        spans.removeAll { $0.end <= $0.start }
        // The loudest moment: sweep the starts and ends in time order (ends first at a tie).
        // Copies of one clip or sound started within a millisecond play in phase: their levels
        // add. Different sounds are not in phase: they add in power (the square root of the
        // sum of squares), as their peaks rarely meet.
        var groupOf: [String: Int] = [:]
        let group = spans.map { span -> Int in
            let key = "\(span.source)@\(Int((span.start * 1_000).rounded()))"
            if let g = groupOf[key] { return g }
            groupOf[key] = groupOf.count
            return groupOf.count - 1
        }
        var groupLevel = [Float](repeating: 0, count: groupOf.count)
        // Sidechain ducking: while a bus that ducks another sounds, the other is that much lower.
        let busNames = Array(Set(spans.map(\.bus))).sorted()
        let busIndex = Dictionary(uniqueKeysWithValues: busNames.enumerated().map { ($1, $0) })
        let ducks: [(source: Int, target: Int, gain: Double)] = self.buses.flatMap { b in
            b.ducks.compactMap { d in
                guard let s = busIndex[b.name], let t = busIndex[d.target] else { return nil }
                return (s, t, pow(10, min(d.level, 0) / 20))
            }
        }
        var busPower = [Double](repeating: 0, count: busNames.count)
        var busVoices = [Int](repeating: 0, count: busNames.count)
        let edges = spans.indices.flatMap { [($0, spans[$0].start, true), ($0, spans[$0].end, false)] }
            .sorted { $0.1 != $1.1 ? $0.1 < $1.1 : (!$0.2 && $1.2) }
        var active = Set<Int>(), worst: Double = 0, worstAt = 0.0, worstSet: [Int] = []
        for (i, time, starts) in edges {
            let g = group[i], b = busIndex[spans[i].bus] ?? 0
            busPower[b] -= Double(groupLevel[g] * groupLevel[g])
            if starts {
                active.insert(i); groupLevel[g] += spans[i].level
            } else {
                active.remove(i); groupLevel[g] -= spans[i].level
            }
            busPower[b] += Double(groupLevel[g] * groupLevel[g])
            busVoices[b] += starts ? 1 : -1
            guard starts else { continue }
            var gains = [Double](repeating: 1, count: busNames.count)
            for d in ducks where busVoices[d.source] > 0 { gains[d.target] *= d.gain }
            var power = 0.0
            for k in busNames.indices { power += max(0, busPower[k]) * gains[k] * gains[k] }
            if power > worst * worst * (1 + 1e-6) {
                worst = power.squareRoot(); worstAt = time; worstSet = active.sorted()
            }
        }
        guard worst > 1 else { return nil }
        let loudest = worstSet.sorted { spans[$0].level > spans[$1].level }
        let names = loudest.prefix(4).map { spans[$0].name }
        let more = worstSet.count > 4 ? " and \(worstSet.count - 4) more" : ""
        // At the loudest voice's event or entry: where a gain would be lowered.
        let at = loudest.first.map { spans[$0] }
        return warning(at: at?.event, at?.entry ?? "mix", "")
            .with(
                key: "mix",
                message: String(
                    format:
                        "at %.2f s, %d voices and tracks can reach %+.1f dB over full scale (%@%@; their peaks × gains, in-phase copies added, other sounds added in power): the output limiter will turn the mix down there; lower their gains to leave it untouched",
                    worstAt, worstSet.count, 20 * log10(worst),
                    names.joined(separator: ", "), more))
    }


    /// Each clip's peak as it plays (largest absolute sample times its own gain, 1.0 when it cannot
    /// be decoded) and length.
    func clipPeaks() -> [String: (peak: Float, seconds: Double)] {
        var out: [String: (peak: Float, seconds: Double)] = [:]
        for clip in self.clips {
            guard let audio = try? ClipDecoder.decode(path: clip.path) else { continue }
            var peak: Float = 0
            switch audio.samples {
            case .int16(let s): peak = Float(s.reduce(0) { max($0, abs(Int32($1))) }) / 32_768
            case .float32(let s): peak = s.reduce(0) { max($0, abs($1)) }
            }
            // As it plays: its own `loudness:` and `gain:` (measured by the parser already).
            peak *= Float(pow(10, ((try? clip.playDecibels()) ?? 0) / 20))
            out[clip.id] = (
                peak, Double(audio.samples.count / max(audio.channels, 1)) / Double(max(audio.sampleRate, 1))
            )
        }
        return out
    }
}

extension SceneWarning {
    /// This warning's place, with another key and message.
    func with(key: String, message: String) -> SceneWarning {
        SceneWarning(file: file, line: line, column: column, key: key, message: message)
    }
}
