import Earshot
import EarshotScenes
import Foundation

/// Scene value fuzzing (issue 24): scenes written from every documented key of
/// Demos/Scenes/README.md, each value drawn at its range's edges, just inside and just outside
/// them, or anywhere inside, in random combinations — then checked as `earshot validate` checks
/// them and, when valid, rendered (a short section, in process) as `earshot render` renders them.
///
/// A finding is a scene that validates but does not render, a render with a non-finite sample,
/// or (by killing the process) a trap or signal. Invalid scenes are an accepted outcome.
///
/// ```swift
/// let report = SceneValueFuzzer(assets: "Assets", seed: 1).run(cases: 100)
/// print(report.summary)
/// ```
public struct SceneValueFuzzer {
    /// The folder holding `Sounds/` and `Music/` (the package's `Assets`).
    public var assets: String
    public var seed: UInt64
    /// Seconds of each valid scene rendered.
    public var renderSeconds: Double = 0.2
    /// Where the renders go (a tmpfs by default).
    public var scratch: String = "/dev/shm"
    /// The largest `offset:` of a play event drawn (the shortest asset lasts 0.14 s: 0.2 reaches
    /// past clip ends, which validate and render both refuse, by one checker).
    public var maxOffset: Double = 0.2
    /// How often a scene has a music set, and how often that set comes from an included bank.
    public var musicSetChance = 0.35
    /// How often a scene has a bus tree and VCAs (SceneValueFuzzer+BusTree.swift).
    public var busTreeChance = 0.3
    public var includedSetChance = 0.5
    /// How often a scene has `beds:` (SceneValueFuzzer+Beds.swift). 0 (the default) draws
    /// nothing for them, so a seed's scenes are those it made before beds existed;
    /// `earshot-fuzz scenes` sets 0.3.
    public var bedChance = 0.0

    /// `assets` relative to the working directory is made absolute (scene paths are relative
    /// to the scene file).
    public init(assets: String, seed: UInt64) {
        self.assets = assets.hasPrefix("/") ? assets : FileManager.default.currentDirectoryPath + "/" + assets
        self.seed = seed
    }

    public struct Report: FuzzReport {
        public var cases = 0
        public var valid = 0
        /// Valid scenes whose music set comes from an included bank (issue 35 item 2).
        public var validIncludedSets = 0
        public var rendered = 0
        public var warnings = 0
        /// Valid scenes with game parameters and a layered sound (issue 28).
        public var validLayered = 0
        /// Valid scenes with ambisonic beds (issue 39).
        public var validBeds = 0
        /// Valid scenes with a loudness-normalised clip (`clips: { id: { file:, loudness: } }`).
        public var validNormalisedClips = 0
        public var findings: [String] = []
        public var seconds = 0.0
        public var summary: String {
            "scene values: \(cases) cases (\(valid) valid, \(validLayered) of them layered, \(validBeds) with beds, \(validNormalisedClips) with normalised clips, \(rendered) rendered, \(warnings) warnings) in "
                + String(format: "%.1f s", seconds) + ", \(findings.count) findings"
        }
    }

    /// Runs `cases` scenes (or until `seconds` have passed), and returns what happened.
    public func run(cases: Int, seconds: Double = .infinity, log: ((String) -> Void)? = nil) -> Report {
        let out = "\(scratch)/earshot-scene-fuzz-\(getpid()).wav"
        defer {
            unlink(out)
            unlink("\(scratch)/earshot-scene-fuzz-marked-\(getpid()).wav")
            unlink("\(scratch)/earshot-scene-fuzz-dense-\(getpid()).wav")
            unlink(includedSetBank())
        }
        return FuzzDriver(seed: seed, logEvery: 500).run(Report(), cases: cases, seconds: seconds, log: log) { i, g, report in
            let yaml = scene(&g)
            switch Scene.check(yaml: yaml, path: "\(assets)/fuzz-\(i).yaml") {
            case .failure(let problems):
                if problems.problems.isEmpty { report.findings.append("case \(i): a failure without a problem\n\(yaml)") }
                _ = problems.description
            case .success(let scene):
                report.valid += 1
                if scene.sounds.contains(where: { !$0.layers.isEmpty }) { report.validLayered += 1 }
                if !scene.includedFiles.isEmpty, !scene.musicSets.isEmpty { report.validIncludedSets += 1 }
                if !scene.beds.isEmpty { report.validBeds += 1 }
                if scene.clips.contains(where: { $0.loudness != nil }) { report.validNormalisedClips += 1 }
                let warnings = scene.warnings()
                report.warnings += warnings.count
                for w in warnings { _ = w.description }
                do {
                    let result = try SceneRenderer(scene: scene).render(to: out, format: .f32, duration: min(renderSeconds, scene.duration))
                    report.rendered += 1
                    let audio = try SndFileDecoder.decode(path: out)
                    if case .float32(let s) = audio.samples, let bad = s.firstIndex(where: { !$0.isFinite }) {
                        report.findings.append("case \(i): sample \(bad) is \(s[bad])\n\(yaml)")
                    }
                    if result.frames != audio.frameCount { report.findings.append("case \(i): \(result.frames) frames said, \(audio.frameCount) written\n\(yaml)") }
                    _ = LevelPlot.svg(levels: result.levels, events: result.events, title: scene.name, duration: result.duration,
                                      timeline: result.timeline, scene: scene)
                    // A section's plot: the scene's clock from a later start (its lanes and map too).
                    _ = LevelPlot.svg(levels: result.levels, events: result.events, title: scene.name, duration: result.duration,
                                      timeline: result.timeline, scene: scene, start: Double(i % 4) * 0.75)
                } catch {
                    report.findings.append("case \(i): validate ok but render failed: \(error)\n\(yaml)")
                }
            }
        }
    }

    /// The scene of case `index` of this seed's run, and what validate says of it.
    public func sample(index: Int) -> (yaml: String, problems: String) {
        var g = SplitMix64(seed: seed)
        var yaml = ""
        for _ in 0...index { yaml = scene(&g) }
        switch Scene.check(yaml: yaml, path: "\(assets)/fuzz.yaml") {
        case .success: return (yaml, "valid")
        case .failure(let p): return (yaml, p.description)
        }
    }

    // MARK: Values

    /// A number for a key whose documented range is `range`: an edge, just inside or outside
    /// one, a special value, or anything inside.
    /// With `outside` false only edges and in-range values come (most scenes are made so, or
    /// almost every scene would be invalid for one of its many values).
    static func number(_ g: inout SplitMix64, _ range: ClosedRange<Double>, whole: Bool = false, outside: Bool = false) -> String {
        let span = range.upperBound - range.lowerBound
        let tiny = whole ? 1 : max(span * 1e-6, 1e-9)
        let v: Double
        var choice = Int(g.next() % 12)
        if !outside, (4...6).contains(choice) { choice = 7 }
        switch choice {
        case 0: v = range.lowerBound
        case 1: v = range.upperBound
        case 2: v = range.lowerBound + tiny
        case 3: v = range.upperBound - tiny
        case 4: v = range.lowerBound - tiny
        case 5: v = range.upperBound + tiny
        case 6: return ["0", "-0", "1", ".nan", ".inf", "-.inf", "1e308", "-1", "0.1", "1e-300"][Int(g.next() % 10)]
        default: v = range.lowerBound + g.nextUnit() * span
        }
        if whole { return String(Int(v.rounded())) }
        return v.rounded() == v && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    static func pick<T>(_ g: inout SplitMix64, _ items: [T]) -> T { items[Int(g.next() % UInt64(items.count))] }
    static func chance(_ g: inout SplitMix64, _ p: Double) -> Bool { g.nextUnit() < p }

    static func vector(_ g: inout SplitMix64, _ r: Double = 50) -> String {
        "[\(number(&g, -r...r)), \(number(&g, -r...r)), \(number(&g, -r...r))]"
    }

    static func path(_ g: inout SplitMix64) -> String {
        if chance(&g, 0.5) {
            return "{ circle: { center: \(vector(&g)), radius: \(number(&g, 0.001...100)), period: \(number(&g, 0.001...100)), "
                + "phase: \(number(&g, -360...360)), direction: \(pick(&g, ["cw", "ccw"])), plane: \(pick(&g, ["xz", "xy", "yz"])) } }"
        }
        var t = 0.0
        var points: [String] = []
        for _ in 0..<(1 + Int(g.next() % 4)) {
            points.append("[\(t), \(number(&g, -100...100)), \(number(&g, -100...100)), \(number(&g, -100...100))]")
            t += chance(&g, 0.1) ? 1e-9 : g.nextUnit() * 2
        }
        return "{ waypoints: [\(points.joined(separator: ", "))] }"
    }

    // MARK: Scenes

    /// One scene: the top-level keys, then clips, music, sounds, buses, snapshots, zones,
    /// emitters and events, each key present with some probability.
    func scene(_ g: inout SplitMix64) -> String {
        // One scene in five has values outside their ranges (each with a small chance).
        let outside = Self.chance(&g, 0.2)
        func n(_ r: ClosedRange<Double>, whole: Bool = false) -> String {
            Self.number(&g, r, whole: whole, outside: outside && Self.chance(&g, 0.1))
        }
        func maybe(_ p: Double = 0.5) -> Bool { Self.chance(&g, p) }
        func unit() -> Double { g.nextUnit() }
        let duration = maybe(0.9) ? 0.3 + g.nextUnit() * 0.3 : 0.3 + g.nextUnit() * 86_399.7
        var y = "duration: \(duration)\n"
        if maybe(0.3) { y += "sampleRate: \(n(8_000...192_000, whole: true))\n" }
        if maybe(0.2) { y += "hrtf: \(Self.pick(&g, ["true", "false"]))\n" }
        if maybe(0.4) { y += "distanceModel: \(Self.pick(&g, ["none", "inverse", "inverseClamped", "linear", "linearClamped", "exponent", "exponentClamped"]))\n" }
        if maybe(0.3) { y += "seed: \(n(0...2_147_483_647, whole: true))\n" }
        if maybe(0.3) { y += "dopplerFactor: \(n(0...10))\n" }
        if maybe(0.3) { y += "speedOfSound: \(n(1...100_000))\n" }
        if maybe(0.3) { y += "referenceDistance: \(n(1e-6...1e9))\n" }
        if maybe(0.3) { y += "maxDistance: \(n(1e-6...1e12))\n" }
        if maybe(0.3) { y += "rolloff: \(n(0...100))\n" }
        y += Self.distanceKeys(&g, outside: outside, block: true, p: 0.1, newOnly: true)
        y += Self.loudnessKeys(after: y, outside: outside)   // SceneValueFuzzer+Loudness.swift
        if maybe(0.2) { y += "voices: { real: \(n(1...4_096, whole: true)), virtual: \(n(0...1_000_000, whole: true)) }\n" }
        if maybe(0.2) {
            y += "session: { category: \(Self.pick(&g, ["ambient", "soloAmbient", "playback"])), ducking: { level: \(maybe(0.2) ? "silent" : n(-120...0)), "
                + "attack: \(n(0...10)), release: \(n(0...10)) } }\n"
        }
        let clipFiles = ["Sounds/beep.wav", "Sounds/coin-ima4.caf", "Sounds/step.wav", "Sounds/hum-loop.wav", "Sounds/wind-stereo.caf"]
        y += "clips:\n"
        for (i, f) in clipFiles.enumerated() {   // `{ file:, loudness:, gain: }` now and then (+Loudness)
            y += "  c\(i): \(Self.clipEntry("\(assets)/\(f)", id: "c\(i)", after: y, outside: outside))\n"
        }
        if let marked = markedClip() { y += "  c5: \(marked)\n" }   // cue markers hit and tail
        if let dense = denseClip() { y += "  c6: \(dense)\n" }   // a cue `tick` on every frame (issue 35.15)
        let hasMusic = maybe(0.4)
        if hasMusic {
            y += "music:\n  m: { file: \(assets)/Music/\(Self.pick(&g, ["ambience.wav", "theme.ogg"])), volume: \(n(0...1)), loops: \(n(-1...3, whole: true)), "
                + "rate: \(n(0.5...2)), tape: \(Self.pick(&g, ["true", "false"]))"
                + (maybe(0.4) ? ", bpm: \(n(1...1_000)), beatsPerBar: \(n(1...64, whole: true)), offset: \(n(0...4)), cues: { drop: \(n(0...2)) }" : "")
                // A loop region (issue 36 item 4): seconds or a cue, around the files' lengths.
                + (maybe(0.3) ? ", loop: { start: \(maybe(0.2) ? "drop" : n(0...2))" + (maybe() ? ", end: \(n(0...4))" : "") + " }" : "") + " }\n"
        }
        // A music set (issue 29): its keys in valid combinations, values at and around their edges.
        let hasSet = maybe(musicSetChance)
        // Game parameters (issue 28): `parameters:`, a layered sound with curves (SceneValueFuzzer+Parameters.swift);
        // with a set, its drum stem's gain may follow rpm.
        let hasParameters = maybe(0.4)
        let stemCurve = hasSet && hasParameters && maybe() ? curve(n, unit, .gain) : nil
        // One set in three comes from an included bank (issue 35 item 2): its events must read
        // as the scene's own set, and what validates must render.
        // Decided off the main sequence (from a copy of it), so the scenes drawn stay those of
        // earlier runs of a seed, a set moved into a bank aside.
        var side = g
        var sideDraw = SplitMix64(seed: side.next() ^ 0x9E37_79B9_7F4A_7C15)
        let includedSet = hasSet && Self.chance(&sideDraw, includedSetChance)
        if includedSet {
            let bank = includedSetBank()
            let written = FileManager.default.createFile(atPath: bank, contents: Data(("music:\n" + musicSet(&g, outside: outside)).utf8))
            y = "include: \(written ? bank : "\(scratch)/missing-bank.yaml")\n" + y
        } else if hasSet {
            if !hasMusic { y += "music:\n" }
            y += musicSet(&g, outside: outside, stemGain: stemCurve)
        }
        if hasParameters { y += parameters(n, unit) + Self.labelledParameter(unit) }   // +Timeline
        let hasSounds = maybe(0.4)
        // Issue 39's keys are drawn off the main sequence (as the included set above), so the
        // scenes of a seed stay those of earlier runs with these keys added.
        var copy39 = g
        var g39 = SplitMix64(seed: copy39.next() ^ 0x3939_3939)
        if hasSounds || hasParameters { y += "sounds:\n" }
        if hasParameters { y += layeredSound(n, unit) + Self.timelineSounds(n, unit, clips: ["c0", "c2", "c3", "c4"]) }
        if hasSounds {
            let select = Self.pick(&g, ["random", "shuffle", "sequence"])
            y += "  s: { clips: [c0, c2], select: \(select), " + (select == "sequence" ? "" : "avoidRepeat: \(n(0...1, whole: true)), ")
                + "pitch: { cents: \(n(0...2_400)) }, gain: { db: \(n(0...48)) }, limit: { count: \(n(1...1_024, whole: true)), "
                + "steal: \(Self.pick(&g, ["oldest", "quietest", "refuse", "virtual"])), perEmitter: 1 }, cooldown: \(n(0...3_600)), "
                + "bus: \(Self.pick(&g, ["sfx", "ui", "voice", "extra"])), priority: \(n(0...255, whole: true)), loop: \(Self.pick(&g, ["true", "false"]))"
                + Self.distanceKeys(&g, outside: outside, p: 0.3) + Self.imageKeys(&g39, outside: outside)
                + Self.soundLoudnessKey(after: y, outside: outside) + " }\n"
        }
        let hasBus = maybe(0.4)
        if hasBus {
            y += "buses:\n  extra: { gain: \(hasParameters && maybe() ? curve(n, unit, .gain) : n(-120...24))"
                + (hasParameters && maybe(0.3) ? ", lowPass: \(curve(n, unit, .lowPass)), pitch: \(curve(n, unit, .pitch))" : "") + " }\n  voice: { gain: \(n(-120...24)), ducks: { sfx: { level: \(n(-120...0)), attack: \(n(0...10)), "
                + "release: \(n(0...10)), threshold: \(n(-120...0)), hold: \(n(0...10)) } } }\n"
        }
        // The bus tree and VCAs (SceneValueFuzzer+BusTree.swift), drawn from a copy of the
        // generator: the scenes a seed drew before stay the same around them.
        var treeSide = g
        var treeDraw = SplitMix64(seed: treeSide.next() ^ 0x0B05_7EE0)
        let tree = Self.chance(&treeDraw, busTreeChance) ? Self.busTree(&treeDraw, outside: outside) : nil
        if let tree { y += (hasBus ? "" : "buses:\n") + tree.buses + tree.vcas }
        let hasSnapshot = maybe(0.3)
        if hasSnapshot {
            y += "snapshots:\n  under: { buses: { sfx: { gain: \(n(-120...24)), filter: { gain: \(n(0...1)), gainHF: \(n(0...1)) } } } }\n"
        }
        if maybe(0.5) {
            y += "zones:\n"
            for z in 0..<(1 + Int(g.next() % 2)) {
                var reverb = "{ preset: \(Self.pick(&g, ReverbProperties.presetNames))"
                for (name, range) in ReverbProperties.valueRanges where maybe(0.35) {
                    reverb += ", \(name): \(n(Double(range.lowerBound)...Double(range.upperBound)))"
                }
                reverb += " }"
                let shape = maybe() ? "sphere: { center: \(Self.vector(&g, 10)), radius: \(n(0.01...1e6)) }"
                                    : "box: { center: \(Self.vector(&g, 10)), size: [\(n(0.01...100)), \(n(0.01...100)), \(n(0.01...100))] }"
                y += "  z\(z): { reverb: \(reverb), \(shape), fade: \(n(0...10_000)), gain: \(n(0...1)) }\n"
            }
        }
        // Split screen (SceneValueFuzzer+Stereo.swift) instead of the one listener, which is
        // drawn all the same (the main sequence stays as it was).
        let split = Self.chance(&g39, 0.15)
        if maybe(0.4) {
            let one = "listener: { " + (maybe() ? "position: \(Self.vector(&g, 10))" : "path: \(Self.path(&g))")
                + (maybe(0.3) ? ", facing: path" : maybe() ? ", at: \(Self.vector(&g, 1)), up: [0, 1, 0]" : "") + " }\n"
            if !split { y += one }
        }
        if split { y += Self.listeners(&g39, outside: outside) }
        let emitterCount = Int(g.next() % 4)
        if emitterCount > 0 {
            y += "emitters:\n"
            for e in 0..<emitterCount {
                var m = "clip: \(Self.pick(&g, hasParameters ? ["c0", "c1", "c2", "c3", "c4", "car"] : ["c0", "c1", "c2", "c3", "c4"]))"
                m += maybe() ? ", position: \(Self.vector(&g))" : ", path: \(Self.path(&g))"
                if maybe() { m += ", loop: true" }
                if maybe(0.3) { m += ", gain: \(n(0...16))" }
                if maybe(0.3) { m += ", pitch: \(n(0.1...4))" }
                if maybe(0.2) { m += ", priority: \(n(0...255, whole: true))" }
                if maybe(0.2) { m += ", referenceDistance: \(n(1e-6...1e9))" }
                if maybe(0.2) { m += ", maxDistance: \(n(1e-6...1e12))" }
                if maybe(0.2) { m += ", rolloff: \(n(0...100))" }
                m += Self.distanceKeys(&g, outside: outside, p: 0.15, newOnly: true)
                if maybe(0.2) {
                    m += maybe() ? ", direction: \(Self.vector(&g, 1))" : ", facing: path"
                    m += ", cone: { inner: \(n(0...180)), outer: \(n(180...360)), outerGain: \(n(0...1)) }"
                }
                if maybe(0.2) { m += ", start: \(n(0...0.5))" }
                if maybe(0.2) { m += ", occlusion: \(n(0...1))" }
                if maybe(0.2) { m += ", obstruction: \(n(0...1))" }
                if maybe(0.2) { m += ", airAbsorption: \(n(0...10))" }
                if maybe(0.2) { m += ", sends: \(n(0...1))" }
                m += Self.spreadKey(&g39, outside: outside)
                y += "  e\(e): { \(m) }\n"
            }
        }
        var events: [String] = []
        var names: [String] = []   // named plays, for `after:` events
        for _ in 0..<Int(g.next() % 6) {
            let at = n(0...0.3)
            switch g.next() % 10 {
            case 1 where hasSet && maybe(0.3):
                // On a bar of the scene's music (valid when a set or a track with bpm starts).
                let bar = "at: { bar: \(n(1...3, whole: true)) }, delay: \(n(0...0.1)), "
                events.append(bar + setEvent(&g, outside: outside))
            case 0, 1:
                var p = "play: \(Self.pick(&g, hasParameters ? ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "car", "car", "motor", "step"] : ["c0", "c1", "c2", "c3", "c4", "c5", "c6"]))"
                p += maybe() ? ", position: \(Self.vector(&g))" : ", pan: \(n(-1...1))"
                if maybe(0.3) { p += ", gain: \(n(0...16)), pitch: \(n(0.1...4))" }
                p += Self.spreadKey(&g39, outside: outside)
                if maybe(0.2) { p += ", offset: \(n(0...maxOffset)), loops: \(n(0...1_000, whole: true))" }
                if maybe(0.2) {
                    p += ", every: \(n(0.001...1)), count: \(n(1...20, whole: true)), jitter: \(n(0...0.0005))"
                } else if maybe(0.4) {
                    p += ", name: v\(events.count)"
                    names.append("v\(events.count)")
                }
                if maybe(0.2) { p += ", bus: \(Self.pick(&g, ["sfx", "ui", "voice", "music"]))" }
                events.append(p)
            case 8 where !names.isEmpty:
                // After a named voice ends (a chain when this play is named too).
                var p = "after: \(Self.pick(&g, names)), delay: \(n(0...0.3)), play: \(Self.pick(&g, ["c0", "c1", "c2", "c3", "c4"]))"
                if maybe(0.3) { p += ", pitch: \(n(0.1...4)), offset: \(n(0...maxOffset))" }
                if maybe(0.4) {
                    p += ", name: v\(events.count)"
                    names.append("v\(events.count)")
                }
                events.append(p)
            case 9 where !names.isEmpty:
                // At a named voice's marker (valid when that voice plays c5, which has them).
                var p = "at: { marker: \(Self.pick(&g, names)).\(Self.pick(&g, ["hit", "tail", "hit", "none", "tick"])) }, play: \(Self.pick(&g, ["c0", "c2", "c5", "c6"]))"
                if maybe() { p += ", delay: \(n(0...0.3))" }
                if maybe(0.3) { p += ", pitch: \(n(0.1...4)), offset: \(n(0...maxOffset))" }
                if maybe(0.3) {
                    p += ", name: v\(events.count)"
                    names.append("v\(events.count)")
                }
                events.append(p)
            case 2 where hasMusic:
                events.append("music: m, action: \(Self.pick(&g, ["play", "pause", "stop"]))"
                              + (maybe() ? ", volume: \(n(0...1)), rate: \(n(0.5...2))" : ""))
            case 3 where hasMusic:
                events.append("music: m, action: fade, volume: \(n(0...1)), duration: \(n(0...2))")
            case 2 where hasSet, 3 where hasSet:
                events.append(setEvent(&g, outside: outside))
            case 4 where emitterCount > 0:
                let target = "e\(g.next() % UInt64(emitterCount))"
                events.append(maybe() ? "stop: \(target), fade: \(n(0...60))" : "start: \(target)")
            case 5:
                let target = emitterCount > 0 && maybe() ? "e0" : (hasMusic && maybe() ? "m" : "sfx")
                let prop = target == "sfx" ? "gain: \(n(0...2))" : Self.pick(&g, ["gain: \(n(0...16))", "pitch: \(n(0.1...4))", "pan: \(n(-1...1))", "rate: \(n(0.5...2))"])
                events.append("set: \(target), \(prop), ramp: \(n(0...3_600)), curve: \(Self.pick(&g, ["linear", "exponential", "sCurve"]))")
            case 6 where hasParameters && maybe():
                events.append(maybe(0.3) ? Self.labelSet(unit, targets: names + (0..<emitterCount).map { "e\($0)" })
                                         : parameterSet(n, unit, targets: names + (0..<emitterCount).map { "e\($0)" }))
            case 6:
                events.append(maybe() ? "hint: \(Self.pick(&g, ["begin", "end"]))" : "interruption: \(Self.pick(&g, ["began", "ended"]))"
                                        + (maybe() ? ", shouldResume: \(Self.pick(&g, ["true", "false"]))" : ""))
            case 7 where hasSnapshot:
                events.append("snapshot: under, action: \(Self.pick(&g, ["begin", "end"])), fade: \(n(0...600)), intensity: \(n(0...1))")
            default:
                events.append("play: c0, pan: \(n(-1...1))")
            }
            let last = events[events.count - 1]
            events[events.count - 1] = last.hasPrefix("after:") || last.hasPrefix("at:") ? "{ \(last) }" : "{ at: \(at), \(last) }"
        }
        for e in tree?.events ?? [] { events.append("{ at: \(Self.number(&treeDraw, 0...0.3)), \(e) }") }
        let bedSection = beds(&g, outside: outside)   // issue 39 (SceneValueFuzzer+Beds.swift)
        y += bedSection.yaml
        if !bedSection.ids.isEmpty, maybe(0.7) { events.append("{ at: \(n(0...0.3)), \(bedEvent(&g, ids: bedSection.ids, outside: outside)) }") }
        if !events.isEmpty { y += "events:\n" + events.map { "  - \($0)\n" }.joined() }
        return y
    }

    /// A music set entry `level`: a track state with cues, a layered state, a state of segments,
    /// rules between them (wildcards, every boundary, fades, curves, a stinger, a bridge).
    /// `stemGain`: a gain curve for the drum stem instead of a number.
    func musicSet(_ g: inout SplitMix64, outside: Bool, stemGain: String? = nil) -> String {
        func maybe(_ p: Double = 0.5) -> Bool { Self.chance(&g, p) }
        func n(_ r: ClosedRange<Double>, _ whole: Bool) -> String { Self.number(&g, r, whole: whole, outside: outside && Self.chance(&g, 0.1)) }
        let music = "\(assets)/Music"
        var y = "  level:\n"
        if maybe(0.8) { y += "    bpm: \(n(1...1_000, false))\n" }
        if maybe(0.3) { y += "    beatsPerBar: \(n(1...64, true))\n" }
        if maybe(0.3) { y += "    offset: \(n(0...2, false))\n" }
        y += "    states:\n"
        let cue = maybe(0.3) ? ", cues: { drop: \(n(0...8, false)), out: \(n(0...8, false)) }" + (maybe() ? ", entry: drop" : "") + (maybe(0.3) ? ", exit: out" : "") : ""
        let loop = maybe(0.3) ? ", loop: { start: \(cue.isEmpty || maybe() ? n(0...2, false) : "drop")" + (maybe() ? ", end: \(n(0...4, false))" : "") + " }" : ""
        y += "      a: { file: \(music)/\(Self.pick(&g, ["theme.ogg", "drums.ogg", "ambience.wav"]))\(cue)\(loop) }\n"
        y += "      b: { layers: { x: { file: \(music)/drums.ogg, gain: \(stemGain ?? n(0...1, false)) }" + (maybe() ? ", y: { file: \(music)/bass.ogg }" : "") + " } }\n"
        if maybe() { y += "      c: { segments: [ { file: \(music)/fanfare.ogg }, { file: \(music)/\(Self.pick(&g, ["theme.ogg", "bass.ogg"])) } ] }\n" }
        let states = y.contains("      c:") ? ["a", "b", "c", "*"] : ["a", "b", "*"]
        let rules = Int(g.next() % 4)
        if rules > 0 {
            y += "    transitions:\n"
            for _ in 0..<rules {
                var r = "from: \"\(Self.pick(&g, states))\", to: \"\(Self.pick(&g, states))\", at: \(Self.pick(&g, MusicTransition.Boundary.allCases.map(\.rawValue)))"
                if maybe() {
                    // Both sides, or { out:, in: } (issue 36 item 3).
                    let fade = maybe(0.7) ? n(0...600, false) : "{ out: \(n(0...600, false)), in: \(n(0...600, false)) }"
                    r += ", fade: \(fade), curve: \(Self.pick(&g, ["linear", "equalPower"]))"
                }
                if maybe(0.3) { r += ", stinger: hit" }
                if maybe(0.2) { r += ", via: br" }
                y += "      - { \(r) }\n"
            }
        }
        y += "    stingers: { hit: { file: \(assets)/Sounds/\(Self.pick(&g, ["coin.wav", "beep.wav"])) } }\n"
        y += "    bridges: { br: { file: \(music)/fanfare.ogg, cues: { x: \(n(0...2, false)) }" + (maybe() ? ", exit: x" : "") + " } }\n"
        return y
    }

    /// An event of the set `level`.
    func setEvent(_ g: inout SplitMix64, outside: Bool) -> String {
        func n(_ r: ClosedRange<Double>, _ whole: Bool) -> String { Self.number(&g, r, whole: whole, outside: outside && Self.chance(&g, 0.1)) }
        switch g.next() % 5 {
        case 0, 1: return "music: level, state: \(Self.pick(&g, ["a", "b", "c", "a"]))"
        case 2: return "music: level, stinger: hit, boundary: \(Self.pick(&g, MusicTransition.Boundary.allCases.map(\.rawValue)))" + (Self.chance(&g, 0.4) ? ", duck: \(n(-60...0, false))" : "")
        case 3: return "music: level, layer: \(Self.pick(&g, ["x", "y"])), volume: \(n(0...1, false)), fade: \(n(0...600, false))"
        default:
            // Each action alone too: `{ music: SET, action: play }` is what an included set's
            // events were misread as a track's on (issue 35 item 2).
            return "music: level, action: \(Self.pick(&g, ["play", "pause", "stop"]))" + Self.pick(&g, [", state: a", ", fade: \(n(0...60, false))", ", state: b", ""])
        }
    }

    /// The bank a case's included music set is written to (one per process, rewritten per case).
    func includedSetBank() -> String { "\(scratch)/earshot-scene-fuzz-bank-\(getpid()).yaml" }

    /// A clip with cue markers (`hit` at 100 frames, `tail` 100 frames before its end) for the
    /// `at: { marker: }` events. Nil when it cannot be written.
    func markedClip() -> String? {
        cuedClip("marked") { frames in frames > 200 ? [("hit", 100), ("tail", frames - 100)] : [] }
    }

    /// A marker-dense clip: a cue `tick` on each of the first 4,096 frames (issue 35.15: with
    /// `loops:`, a follower of it scheduled millions of events; validate now refuses more than
    /// SceneLimits.maxScheduledFollowUps, and render places only what the scene's duration
    /// reaches). Nil when it cannot be written.
    func denseClip() -> String? {
        cuedClip("dense") { frames in (0..<min(frames, MarkerReader.maxMarkers)).map { ("tick", $0) } }
    }

    /// The step asset with the cues `cues(frames)` gives it as a `cue ` and a `LIST/adtl` chunk
    /// appended, written once per process into the scratch folder as `earshot-scene-fuzz-NAME-PID.wav`.
    private func cuedClip(_ name: String, _ cues: (Int) -> [(String, Int)]) -> String? {
        let path = "\(scratch)/earshot-scene-fuzz-\(name)-\(getpid()).wav"
        if FileManager.default.fileExists(atPath: path) { return path }
        guard var data = FileManager.default.contents(atPath: "\(assets)/Sounds/step.wav"),
              let frames = try? ClipDecoder.inspect(path: "\(assets)/Sounds/step.wav").frames else { return nil }
        let list = cues(frames)
        guard !list.isEmpty else { return nil }
        func u32(_ v: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(v).littleEndian) { Array($0) } }
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] { Array(id.utf8) + u32(body.count) + body + (body.count % 2 == 1 ? [0] : []) }
        var cue = u32(list.count), adtl = Array("adtl".utf8)
        for (i, c) in list.enumerated() {
            cue += u32(i + 1) + u32(c.1) + Array("data".utf8) + u32(0) + u32(0) + u32(c.1)
            adtl += chunk("labl", u32(i + 1) + Array(c.0.utf8) + [0])
        }
        data.append(contentsOf: chunk("cue ", cue) + chunk("LIST", adtl))
        data.replaceSubrange(4..<8, with: u32(data.count - 8))
        return FileManager.default.createFile(atPath: path, contents: data) ? path : nil
    }
}
