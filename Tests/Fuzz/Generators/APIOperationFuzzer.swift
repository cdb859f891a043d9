// `simulateDeviceLoss()` (package access), the device loss the engine's own tests simulate on
// loopback (a real one needs a sound server): a plain import, so that `swift build -c release`
// of the whole package builds this target too.
import Earshot
import Foundation

/// API operation fuzzing (issue 24): random sequences of public calls on a loopback engine —
/// play, stop, move, voice and bus settings, emitters, buses, reverb zones, bus effects,
/// snapshots, ducking, the listener, music transport, device loss, shutdown and a new engine —
/// with random in-range and edge values (0, the maxima, just past them, NaN, ±∞, 1e30), rendering
/// between them.
///
/// Invariants, each a finding when broken: no trap (it kills the process: the run's exit
/// status), every rendered sample finite and within full scale, and resident memory flat over
/// the run (measured after a warm-up; ``Report/rssGrowthKiB``). Typed errors are accepted
/// outcomes.
///
/// ```swift
/// let report = APIOperationFuzzer(assets: "Assets", seed: 1).run(operations: 10_000)
/// print(report.summary)
/// ```
public struct APIOperationFuzzer {
    public var assets: String
    public var seed: UInt64
    /// Largest RSS growth after the warm-up, in KiB, before it counts as a leak.
    public var leakLimitKiB = 16_384
    /// With EARSHOT_FUZZ_TRACE set, each operation's number and kind go to stderr first.
    let trace = ProcessInfo.processInfo.environment["EARSHOT_FUZZ_TRACE"] != nil

    public init(assets: String, seed: UInt64) {
        self.assets = assets
        self.seed = seed
    }

    public struct Report: FuzzReport {
        public var operations = 0
        /// The driver's cases are operations.
        public var cases: Int {
            get { operations }
            set { operations = newValue }
        }
        public var errors = 0
        public var renders = 0
        public var engines = 0
        public var peak: Float = 0
        public var rssStartKiB = 0
        public var rssEndKiB = 0
        public var rssGrowthKiB: Int { rssEndKiB - rssStartKiB }
        public var findings: [String] = []
        public var seconds = 0.0
        public var summary: String {
            "API operations: \(operations) (\(errors) typed errors, \(renders) renders, \(engines) engines), peak |x| "
                + String(format: "%.4f", peak) + ", RSS \(rssStartKiB) → \(rssEndKiB) KiB, "
                + String(format: "%.1f s", seconds) + ", \(findings.count) findings"
        }
    }

    /// The process's resident set, KiB (`/proc/self/statm`).
    static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    /// Everything one engine's operations act on.
    private final class World {
        let engine: AudioEngine
        var clips: [Clip] = []
        var voices: [Voice] = []
        var emitters: [Emitter] = []
        var buses: [Bus] = [.sfx, .music, .ui, .voice]
        var snapshots: [Snapshot] = []
        var tracks: [MusicTrack] = []
        var sets: [MusicSet] = []
        var listenerIDs: [ListenerID] = []
        init(engine: AudioEngine) { self.engine = engine }
    }

    public func run(operations: Int, seconds: Double = .infinity, log: ((String) -> Void)? = nil) -> Report {
        var world: World?
        let warmUp = min(operations / 10, 5_000)
        var buffer = [Float](repeating: 0, count: 4_096 * 2)
        var report = FuzzDriver(seed: seed, logEvery: 10_000).run(Report(), cases: operations, seconds: seconds, log: log) { i, g, report in
            if i == warmUp { report.rssStartKiB = Self.residentKiB() }
            do throws(EarshotError) {
                if world == nil {
                    var c = AudioEngine.Configuration(output: .loopback(sampleRate: Self.pick(&g, [8_000, 22_050, 44_100, 48_000, 96_000])))
                    c.busEffects = Self.chance(&g, 0.5)
                    c.maxRealVoices = Self.pick(&g, [1, 4, 32, 255])
                    c.randomSeed = g.next()
                    let w = World(engine: try AudioEngine(configuration: c))
                    for name in ["Sounds/beep.wav", "Sounds/coin-ima4.caf", "Sounds/hum-loop.wav", "Sounds/wind-stereo.caf"] {
                        w.clips.append(try w.engine.loadClip(path: "\(assets)/\(name)", forPositioning: !name.contains("stereo")))
                    }
                    world = w
                    report.engines += 1
                }
                guard let w = world else { return }
                let done = try step(w, &g, buffer: &buffer, report: &report)
                if done {
                    w.engine.shutdown()
                    world = nil
                }
            } catch {
                report.errors += 1
                _ = error.description
            }
            // The RSS so far, for the driver's progress line (the final one replaces it).
            if log != nil, report.operations % 10_000 == 0 { report.rssEndKiB = Self.residentKiB() }
        }
        world?.engine.shutdown()
        world = nil
        report.rssEndKiB = Self.residentKiB()
        if report.operations > warmUp, report.rssStartKiB > 0, report.rssGrowthKiB > leakLimitKiB {
            report.findings.append("resident memory grew by \(report.rssGrowthKiB) KiB after the warm-up (limit \(leakLimitKiB))")
        }
        return report
    }

    // MARK: Values

    static func pick<T>(_ g: inout SplitMix64, _ items: [T]) -> T { items[Int(g.next() % UInt64(items.count))] }
    static func chance(_ g: inout SplitMix64, _ p: Double) -> Bool { g.nextUnit() < p }

    /// A value for a parameter documented as `range`: mostly inside, often at or just past an
    /// edge, sometimes not a number at all.
    static func value(_ g: inout SplitMix64, _ range: ClosedRange<Float>) -> Float {
        switch g.next() % 16 {
        case 0: return range.lowerBound
        case 1: return range.upperBound
        case 2: return range.lowerBound.nextDown
        case 3: return range.upperBound.nextUp
        case 4: return pick(&g, [.nan, .infinity, -.infinity, 1e30, -1e30, 0, -0.0, .leastNonzeroMagnitude])
        default: return range.lowerBound + Float(g.nextUnit()) * (range.upperBound - range.lowerBound)
        }
    }

    static func vector(_ g: inout SplitMix64) -> Vector3 {
        if chance(&g, 0.05) { return Vector3(pick(&g, [.nan, .infinity, 1e30]), 0, 0) }
        return Vector3(value(&g, -100...100), value(&g, -100...100), value(&g, -100...100))
    }

    static func seconds(_ g: inout SplitMix64) -> Double {
        pick(&g, [0, 0.001, 0.02, 0.1, 1, 10, -1, .nan, .infinity, g.nextUnit()])
    }

    static func reverb(_ g: inout SplitMix64) throws(EarshotError) -> ReverbProperties {
        var r = try ReverbProperties.preset(named: pick(&g, ReverbProperties.presetNames))
        for (name, range) in ReverbProperties.valueRanges where chance(&g, 0.3) {
            // In range (edges included): out-of-range values are refused by validated(), tested elsewhere.
            _ = r.set(name, to: pick(&g, [range.lowerBound, range.upperBound,
                                          range.lowerBound + Float(g.nextUnit()) * (range.upperBound - range.lowerBound)]))
        }
        r.decayHFLimit = chance(&g, 0.5)
        return r
    }

    // MARK: Operations

    /// One operation on `w`; true when it shut the engine down.
    private func step(_ w: World, _ g: inout SplitMix64, buffer: inout [Float], report: inout Report) throws(EarshotError) -> Bool {
        let e = w.engine
        if trace { FileHandle.standardError.write(Data("op \(report.operations)\n".utf8)) }
        func voice() -> Voice? { w.voices.isEmpty ? nil : w.voices[Int(g.next() % UInt64(w.voices.count))] }
        func bus() -> Bus { Self.pick(&g, w.buses + [Bus("nowhere")]) }
        let kind = g.next() % 40
        if trace { FileHandle.standardError.write(Data("kind \(kind)\n".utf8)) }
        switch kind {
        case 0...5:
            var clip = Self.pick(&g, w.clips)
            if Self.chance(&g, 0.1) {
                // Markers given in code, at and around the clip's edges: refused with a typed
                // error outside the clip, and only inside it when accepted.
                let frames = clip.info.frameCount
                var markers: [Marker] = []
                for _ in 0..<(g.next() % 4) {
                    let frame = Self.pick(&g, [0, 1, frames / 2, frames, frames + 1, -1, Int.max, Int.min])
                    let length: Int? = Self.chance(&g, 0.5) ? nil : Self.pick(&g, [0, 1, frames &- frame, frames &- frame &+ 1, -1, Int.max])
                    markers.append(Marker(name: "m", frame: frame, length: length))
                }
                clip = try clip.withMarkers(markers)
                for m in clip.markers where m.frame < 0 || m.frame > frames || (m.length.map { $0 < 0 || $0 > frames - m.frame } ?? false) {
                    report.findings.append("withMarkers accepted \(m) on a clip of \(frames) frames")
                }
            }
            let placement: PlayOptions.Placement
            switch g.next() % 3 {
            case 0: placement = .pan(Self.value(&g, -1...1))
            case 1: placement = .spatial(SpatialProperties(position: Self.vector(&g), velocity: Self.vector(&g)))
            default: placement = w.emitters.isEmpty ? .pan(0) : .emitter(Self.pick(&g, w.emitters))
            }
            var options = PlayOptions(gain: Self.value(&g, 0...16), pitch: Self.value(&g, 0.1...4), loop: Self.chance(&g, 0.4),
                                      priority: UInt8(g.next() % 256), bus: bus(), delay: Self.chance(&g, 0.8) ? 0 : Self.seconds(&g),
                                      fadeIn: Self.chance(&g, 0.8) ? 0 : Self.seconds(&g), placement: placement)
            if Self.chance(&g, 0.1) { options.loopCount = Self.pick(&g, [1, 3, PlayOptions.maxLoopCount, PlayOptions.maxLoopCount + 1, -1]) }
            Self.image(&options, &g)   // spatialMode, spread (APIOperationFuzzer+Listeners.swift)
            let v = try e.play(clip, options: options)
            w.voices.append(v)
            if w.voices.count > 300 { w.voices.removeFirst(100) }
        case 6, 7:
            if let v = voice() { e.stop(v, fade: Self.seconds(&g)) }
        case 8:
            if let v = voice() { e.setPosition(Self.vector(&g), of: v) }
        case 9:
            if let v = voice() {
                switch g.next() % 5 {
                case 0: e.setGain(Self.value(&g, 0...16), of: v)
                case 1: e.setPitch(Self.value(&g, 0.1...4), of: v)
                case 2: e.setPan(Self.value(&g, -1...1), of: v)
                case 3: e.setPriority(UInt8(g.next() % 256), of: v)
                default: e.setPaused(Self.chance(&g, 0.5), of: v)
                }
                _ = e.status(of: v)
            }
        case 10:
            if w.emitters.count < 50 { w.emitters.append(try e.makeEmitter(SpatialProperties(position: Self.vector(&g)))) }
        case 11:
            if !w.emitters.isEmpty { e.setPosition(Self.vector(&g), of: Self.pick(&g, w.emitters)) }
        case 12:
            if !w.emitters.isEmpty { e.removeEmitter(w.emitters.remove(at: Int(g.next() % UInt64(w.emitters.count)))) }
        case 13:
            if w.buses.count < 12 {
                let b = Bus("b\(g.next() % 16)")
                try e.addBus(b)
                if !w.buses.contains(b) { w.buses.append(b) }
            }
        case 14:
            switch g.next() % 5 {
            case 0: try e.setGain(Self.value(&g, 0...4), for: bus())
            case 1: try e.setMuted(Self.chance(&g, 0.5), for: bus())
            case 2: try e.setPaused(Self.chance(&g, 0.5), for: bus())
            case 3:
                if Self.chance(&g, 0.5) { try e.pauseAll(except: [bus()]) } else { e.resumeAll() }
            default: try e.stopAll(on: bus())
            }
        case 15:
            var zones: [ReverbZone] = []
            for z in 0..<Int(g.next() % 3) {
                let shape: ReverbZone.Shape = Self.chance(&g, 0.5)
                    ? .sphere(center: Self.vector(&g), radius: Self.value(&g, 0.01...100))
                    : .box(center: Self.vector(&g), size: Vector3(Self.value(&g, 0.01...50), Self.value(&g, 0.01...50), Self.value(&g, 0.01...50)))
                zones.append(ReverbZone(name: "z\(z)", shape: shape, reverb: try Self.reverb(&g), fade: Self.value(&g, 0...100), gain: Self.value(&g, 0...1)))
            }
            try e.setReverbZones(zones)
        case 16:
            let effect: BusEffect? = Self.chance(&g, 0.2) ? nil : Self.chance(&g, 0.6) ? .reverb(try Self.reverb(&g))
                : .echo(EchoProperties(delay: Self.value(&g, 0...0.207), lrDelay: Self.value(&g, 0...0.404), damping: Self.value(&g, 0...0.99),
                                       feedback: Self.value(&g, 0...1), spread: Self.value(&g, -1...1)))
            try e.setEffect(effect, level: Self.value(&g, 0...1), for: bus())
        case 17:
            let s = Snapshot("s\(g.next() % 4)", busGains: [bus(): Double(Self.value(&g, -120...24))],
                             busFilters: Self.chance(&g, 0.5) ? [bus(): LowPassFilter(gain: Self.value(&g, 0...1), gainHF: Self.value(&g, 0...1))] : [:])
            if Self.chance(&g, 0.5) {
                try e.begin(s, fade: Self.seconds(&g), intensity: Self.value(&g, 0...1))
                w.snapshots.append(s)
            } else if !w.snapshots.isEmpty {
                let old = w.snapshots.removeFirst()
                Self.chance(&g, 0.5) ? e.end(old, fade: Self.seconds(&g)) : try e.setIntensity(Self.value(&g, 0...1), of: old, fade: Self.seconds(&g))
            }
        case 18:
            let d: Ducking? = Self.chance(&g, 0.2) ? nil : Ducking(level: Double(Self.value(&g, -120...0)), attack: Self.seconds(&g),
                                                                   release: Self.seconds(&g), threshold: Double(Self.value(&g, -120...0)), hold: Self.seconds(&g))
            try e.setDucking(d, of: bus(), by: bus())
        case 19:
            e.listener = Listener(position: Self.vector(&g), velocity: Self.vector(&g), at: Self.vector(&g), up: Self.vector(&g))
        case 20:
            if w.tracks.count < 4 {
                w.tracks.append(try e.loadMusic(path: "\(assets)/Music/\(Self.pick(&g, ["ambience.wav", "theme.ogg"]))"))
            }
        case 21, 22:
            guard !w.tracks.isEmpty else { break }
            let t = Self.pick(&g, w.tracks)
            switch g.next() % 9 {
            case 0, 1: try t.play()
            case 2: t.pause()
            case 3: t.stop()
            case 4: t.fade(to: Self.value(&g, 0...1), duration: Self.seconds(&g), stopsAtEnd: Self.chance(&g, 0.3))
            case 5: t.volume = Self.value(&g, 0...1)
            case 6: t.rate = Self.value(&g, 0.5...2)
            case 7: t.numberOfLoops = Self.pick(&g, [-1, 0, 1, 5])
            default: t.pan = Self.value(&g, -1...1)
            }
        case 23:
            if Self.chance(&g, 0.3) { e.simulateDeviceLoss() }
        case 25, 26:
            // Game parameters, curves and layered sounds (APIOperationFuzzer+Parameters.swift).
            let v = voice(), em = w.emitters.isEmpty ? nil : w.emitters[Int(g.next() % UInt64(w.emitters.count))]
            if let played = try Self.parameterOperation(e, voice: v, emitter: em, clips: w.clips, buses: w.buses, &g) {
                w.voices.append(played)
            }
        case 27:
            // A music set (issue 29): three states, rules at every boundary, a stinger.
            if w.sets.count < 2 {
                let m = "\(assets)/Music"
                let tempo = Self.chance(&g, 0.8) ? Tempo(bpm: Self.pick(&g, [1, 60, 120, 999.9, 1_000]), beatsPerBar: Self.pick(&g, [1, 3, 4, 64])) : nil
                let boundary = Self.pick(&g, MusicTransition.Boundary.allCases)
                w.sets.append(try e.makeMusicSet(MusicSetDefinition(name: "s", states: [
                    .init(name: "a", content: .track(.init(path: "\(m)/theme.ogg", tempo: tempo, cues: ["c": 1]))),
                    .init(name: "b", content: .layers([.init(name: "x", segment: .init(path: "\(m)/drums.ogg", tempo: tempo)),
                                                       .init(name: "y", segment: .init(path: "\(m)/bass.ogg"), gain: 0.5)])),
                    .init(name: "c", content: .segments([.init(path: "\(m)/fanfare.ogg", tempo: tempo), .init(path: "\(m)/drums.ogg")])),
                ], transitions: [.init(from: "*", to: "*", at: boundary, fade: Self.chance(&g, 0.5) ? 0 : Double(Self.value(&g, 0...2)),
                                       stinger: Self.chance(&g, 0.3) ? "hit" : nil, via: Self.chance(&g, 0.2) ? "br" : nil)],
                   stingers: ["hit": .init(path: "\(assets)/Sounds/coin.wav")], bridges: ["br": .init(path: "\(m)/fanfare.ogg")])))
            }
        case 28:
            guard !w.sets.isEmpty else { break }
            let s = Self.pick(&g, w.sets)
            switch g.next() % 9 {
            case 0: try s.play(state: Self.pick(&g, ["a", "b", "c", "nope"]), at: Self.chance(&g, 0.7) ? nil : Self.seconds(&g))
            case 1, 2: try s.setState(Self.pick(&g, ["a", "b", "c", "nope"]))
            case 3: try s.playStinger(Self.pick(&g, ["hit", "nope"]), at: Self.pick(&g, MusicTransition.Boundary.allCases),
                                      duck: Self.chance(&g, 0.5) ? 0 : Self.value(&g, -60...0))
            case 4: try s.setLayerGain(Self.value(&g, 0...1), layer: Self.pick(&g, ["x", "y", "z"]), fade: Self.seconds(&g))
            case 5: s.pause()
            case 6: try s.resume()
            case 7: try s.seek(to: Self.seconds(&g))
            default: s.stop(fade: Self.seconds(&g))
            }
            _ = s.currentState
            _ = s.pendingState
        case 29:
            // Several listeners (APIOperationFuzzer+Listeners.swift).
            try Self.listenerOperation(e, ids: &w.listenerIDs, &g)
        case 24:
            if Self.chance(&g, 0.05) { return true }   // shutdown; a new engine follows
            if Self.chance(&g, 0.3), let c = w.clips.popLast() { e.unload(c); if w.clips.isEmpty { return true } }
        default:
            e.update(deltaTime: Self.pick(&g, [0, 1.0 / 60, 0.25, 1, -1, .nan, .infinity]))
            let frames = Self.pick(&g, [1, 2, 64, 480, 800, 4_096])
            let channels = e.outputChannels
            try buffer.withUnsafeMutableBufferPointer { (b) throws(EarshotError) in
                let slice = UnsafeMutableBufferPointer(rebasing: b[0..<(frames * channels)])
                try e.render(into: slice)
                for x in slice {
                    if !x.isFinite || abs(x) > 1 {
                        report.findings.append("render after \(report.operations) operations: sample \(x)")
                        break
                    }
                    report.peak = max(report.peak, abs(x))
                }
            }
            report.renders += 1
            // The bus tree and VCAs (APIOperationFuzzer+BusTree.swift), drawn from a copy of the
            // generator so that each seed's other operations stay those of earlier runs.
            var side = g
            var tree = SplitMix64(seed: side.next() ^ 0x0B05_7EE0)
            if Self.chance(&tree, 0.3) {
                let (added, finding) = try Self.busTreeOperation(e, buses: w.buses, &tree)
                if let added, !w.buses.contains(added), w.buses.count < 16 { w.buses.append(added) }
                if let finding { report.findings.append("after \(report.operations) operations: \(finding)") }
            }
        }
        return false
    }
}
