import Earshot
import Foundation

/// The voice-count workload of `earshot stress`, run by the engine and by raw OpenAL calls.
///
/// N looping mono voices (by default of a 1 s, 48 kHz, 440 Hz tone), each on its own emitter
/// moving on a circle of radius 5 around the listener; positions set every frame; rendered
/// through the loopback device at 48 kHz stereo float. The baseline does the same with raw
/// OpenAL: as many sources as the engine had real voices, each moved every frame with
/// `alSource3f`, rendered the same way — so the ratio of the two CPU times is the engine's own
/// cost.
///
/// A value of this type is the run's configuration; ``run(withBaseline:allocations:progress:)``
/// does the work and returns the figures (``StressResult``), which ``StressReport`` summarizes.
/// Nothing is printed. Build with `-c release` for figures that mean anything.
///
/// ```swift
/// var workload = StressWorkload(voices: 256, seconds: 5)
/// workload.reverbSends = 1
/// let result = try workload.run()
/// let report = StressReport(workload: workload, result: result)
/// print(report.table)
/// ```
public struct StressWorkload: Sendable {
    /// Voices (emitters) to play, 1 or more.
    public var voices: Int
    /// Seconds of audio to render (rounded to whole updates, at least one).
    public var seconds: Double
    /// Cap on real voices (at most 4,096); the rest go virtual. Nil: enough for all, up to 4,096.
    public var maxReal: Int?
    /// Render with HRTF (engine and baseline).
    public var hrtf: Bool
    /// Reverb sends active per voice (0, 1 or 2): the listener stands inside that many reverb
    /// zones (the engine) or slots (the baseline), every voice sending to each.
    public var reverbSends: Int
    /// Frames mixed per game update (800: 60 updates a second at 48 kHz).
    public var updateFrames: Int
    /// What every voice loops (default: the 1 s 440 Hz tone, ``tone()``). The baseline needs a
    /// mono 16-bit clip.
    public var clip: PCMAudio = StressWorkload.tone()
    /// Call `update()` every frame without rendering (a game on a live device, where the device
    /// mixes on its own thread): measures the frame cost of `update` when the render clock does
    /// not advance between frames. No baseline.
    public var updateOnly: Bool
    /// Play on the system's default output (a live device mixing on its own thread, in real
    /// time) instead of the loopback device; implies `updateOnly`, and frames are paced at 60 Hz.
    public var live: Bool
    /// Listeners (split screen, 1…8): the first at the origin, the others 40 m apart along +x;
    /// with more than one every voice is heard through the listeners' blend (Listeners/).
    public var listeners = 1

    /// The mix's sample rate.
    public static let rate = 48_000
    /// Game frames per second of a live run (and of the default ``updateFrames``).
    public static let framesPerSecond = 60
    /// The reverb presets of the zones (and of the baseline's slots), one per send.
    static let reverbPresets = ["hangar", "stoneroom"]

    /// A workload of `voices` looping tones; the other settings as their properties describe.
    public init(voices: Int, seconds: Double = 10, maxReal: Int? = nil, hrtf: Bool = false,
                reverbSends: Int = 0, updateFrames: Int = 800, updateOnly: Bool = false, live: Bool = false) {
        self.voices = voices
        self.seconds = seconds
        self.maxReal = maxReal
        self.hrtf = hrtf
        self.reverbSends = reverbSends
        self.updateFrames = updateFrames
        self.updateOnly = updateOnly
        self.live = live
    }

    /// Timed frames of a run: `seconds` in updates of `updateFrames`, at least one.
    public var frames: Int { max(1, Int((seconds * Double(Self.rate) / Double(updateFrames)).rounded())) }

    /// The default clip: 1 s of a 440 Hz sine at a quarter of full scale, mono 16-bit, 48 kHz.
    public static func tone() -> PCMAudio {
        let samples = (0..<rate).map {
            Int16((0.25 * 32767 * sin(2 * .pi * 440 * Double($0) / Double(rate))).rounded())
        }
        return PCMAudio(sampleRate: rate, channels: 1, samples: .int16(samples))
    }

    static func threadCPUTime() -> Double { Clocks.threadCPU() }
    static func wallTime() -> Double { Clocks.monotonic() }

    /// Voice `i` of `n`'s place at `time`: evenly spread on a circle of radius 5, one turn in 4 s.
    @inline(__always)
    static func circle(_ i: Int, of n: Int, at time: Double) -> Vector3 {
        let phase = Double(i) / Double(max(n, 1)) * 2 * .pi + time * 2 * .pi / 4
        return Vector3(Float(5 * cos(phase)), 0, Float(-5 * sin(phase)))
    }

    /// `count` zones that all hold the listener at the origin (so each is fully heard and every
    /// voice sends to each); their gains share the energy as the engine's blend does.
    static func zones(_ count: Int) throws -> [ReverbZone] {
        try (0..<count).map { i in
            try ReverbZone(name: reverbPresets[i], shape: .sphere(center: Vector3(0, 0, Float(i)), radius: 20),
                           reverb: ReverbProperties.preset(named: reverbPresets[i]), fade: 1)
        }
    }

    /// Runs the engine and, frame by frame beside it, the raw-OpenAL baseline.
    ///
    /// Each frame's CPU time is measured for each side on this thread, so the ratio is immune to
    /// the machine getting faster or slower during the run; which of the two goes first
    /// alternates from frame to frame. The engine's `play` calls are timed one by one after two
    /// rounds of warm-up; allocations are counted (through `allocations`) over those calls and
    /// over the timed frames, not over the baseline's work.
    ///
    /// - Parameters:
    ///   - withBaseline: Run the raw-OpenAL baseline too (ignored when ``updateOnly`` or ``live``).
    ///   - allocations: Counts the process's heap allocations (``AllocationCounter/none``: not counted).
    ///   - progress: Gets the fraction done, every 30 frames, on this thread (not counted).
    /// - Returns: The figures of both sides.
    /// - Throws: ``EarshotError`` from the engine (no device, too few sources), ``StressError``
    ///   from the baseline.
    ///
    /// ```swift
    /// let result = try StressWorkload(voices: 8, seconds: 0.2).run { print($0) }
    /// assert(result.engine.realVoices == 8)
    /// ```
    public func run(withBaseline: Bool = true, allocations: AllocationCounter = .none,
                    progress: (Double) -> Void = { _ in }) throws -> StressResult {
        let counted = allocations.isActive()
        var config = AudioEngine.Configuration(output: live ? .systemDefault : .loopback(sampleRate: Self.rate))
        config.maxRealVoices = min(maxReal ?? voices, 4096)
        config.maxVirtualVoices = max(voices, 4096)
        config.hrtf = hrtf
        let engine = try AudioEngine(configuration: config)
        defer { engine.shutdown() }
        try engine.setReverbZones(try Self.zones(reverbSends))
        if listeners > 1 {
            try engine.setListeners((0..<listeners).map { Listener(position: Vector3(40 * Float($0), 0, 0)) })
        }
        let loaded = try engine.loadClip(self.clip, name: "stress clip")
        var emitters: [Emitter] = []
        emitters.reserveCapacity(voices)
        for i in 0..<voices {
            emitters.append(try engine.makeEmitter(SpatialProperties(position: Self.circle(i, of: voices, at: 0))))
        }
        var result = StressResult.Engine()
        result.voices = voices
        result.grantedSources = engine.stats.voiceSources
        let perFrame = updateFrames
        var buffer = [Float](repeating: 0, count: perFrame * 2)
        let playOptions = emitters.map { PlayOptions(loop: true, emitter: $0) }
        /// A frame's mix: rendered on loopback, waited for (one 60 Hz frame) on a live device.
        func mix() throws {
            if live {
                usleep(UInt32(1_000_000 / Self.framesPerSecond))
            } else {
                try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
            }
        }
        // Warm-up: OpenAL Soft grows its pool of property containers to the most that were ever
        // in flight at once; play everything, stop, let the fades finish — twice, so the timed
        // plays see steady state.
        for _ in 0..<2 {
            for i in 0..<voices { _ = try engine.play(loaded, options: playOptions[i]) }
            engine.update()
            try mix()
            engine.stopAllVoices()
            for _ in 0..<3 {
                engine.update()
                try mix()
            }
        }
        // play(): timed one by one, allocations counted over all of them.
        result.playMicros.reserveCapacity(voices)
        let countBefore = allocations.count()
        allocations.setCounting(true)
        for i in 0..<voices {
            let t0 = Self.wallTime()
            _ = try engine.play(loaded, options: playOptions[i])
            result.playMicros.append((Self.wallTime() - t0) * 1e6)
        }
        allocations.setCounting(false)
        result.playAllocations = Int(allocations.count() - countBefore)

        var updateMicros = [Double](repeating: 0, count: frames)
        var moveMicros = [Double](repeating: 0, count: frames)
        /// The frame's moves: every emitter to its place on the circle at `time`.
        func moveAll(_ time: Double) {
            engine.batch { frame in
                for i in 0..<emitters.count {
                    frame.setPosition(Self.circle(i, of: voices, at: time), of: emitters[i])
                }
            }
        }
        // Warm-up frame: first mixes allocate OpenAL's property caches, first calls Swift's
        // type metadata.
        moveAll(0)
        engine.update()
        try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
        let baseline =
            withBaseline && !updateOnly && !live
            ? try RawBaseline(
                sources: max(1, engine.stats.realVoices), voices: voices, hrtf: hrtf,
                reverbSends: reverbSends, clip: clip) : nil
        defer { baseline?.close() }
        let baselinePlayMicros = baseline?.timePlays() ?? []
        var baselineOut = [Float](repeating: 0, count: perFrame * 2)
        if let baseline { baselineOut.withUnsafeMutableBufferPointer { baseline.frame(time: 0, into: $0) } }
        var engineCPU = 0.0, baselineCPU = 0.0
        /// One baseline frame, timed, its allocations not counted as the engine's.
        func baselineFrame(_ time: Double) {
            guard let baseline else { return }
            allocations.setCounting(false)
            let c = Self.threadCPUTime()
            baselineOut.withUnsafeMutableBufferPointer { baseline.frame(time: time, into: $0) }
            baselineCPU += Self.threadCPUTime() - c
            allocations.setCounting(true)
        }
        let limitedStart = engine.stats.limitedFrames
        let allocStart = allocations.count()
        allocations.setCounting(true)
        for f in 0..<frames {
            let time = Double((f + 1) * perFrame) / Double(Self.rate)
            // Alternate who goes first: each side then runs as often on the caches the other
            // one's mix left behind, so the order biases neither.
            let baselineFirst = f % 2 == 1
            if baselineFirst { baselineFrame(time) }
            let cpu0 = Self.threadCPUTime()
            let t0 = Self.wallTime()
            moveAll(time)
            let t1 = Self.wallTime()
            engine.update(deltaTime: Double(perFrame) / Double(Self.rate))
            updateMicros[f] = (Self.wallTime() - t1) * 1e6
            moveMicros[f] = (t1 - t0) * 1e6
            if !updateOnly && !live {
                try buffer.withUnsafeMutableBufferPointer { try engine.render(into: $0) }
            }
            let cpu1 = Self.threadCPUTime()
            engineCPU += cpu1 - cpu0
            if live {
                // Pace the frames at 60 Hz: the device's clock moves between updates.
                let rest = 1 / Double(Self.framesPerSecond) - (Self.wallTime() - t0)
                if rest > 0 { usleep(UInt32(rest * 1e6)) }
            }
            if !baselineFirst { baselineFrame(time) }
            if f % 30 == 0 {
                allocations.setCounting(false); progress(Double(f) / Double(frames)); allocations.setCounting(true)
            }
        }
        result.cpuSeconds = engineCPU
        allocations.setCounting(false)
        result.allocationsPerFrame = Double(allocations.count() - allocStart) / Double(max(frames, 1))
        result.renderedSeconds = Double(frames * perFrame) / Double(Self.rate)
        result.updateMicros = updateMicros
        result.moveMicros = moveMicros
        let stats = engine.stats
        result.limitedFrames = stats.limitedFrames - limitedStart
        result.realVoices = stats.realVoices
        result.virtualVoices = stats.virtualVoices
        result.steals = stats.steals
        let rendered = Double(frames * perFrame) / Double(Self.rate)
        let baselineResult = baseline.map { b in
            var r = StressResult.Baseline()
            r.sources = b.context.grantedMonoSources >= 1 ? max(1, stats.realVoices) : 0
            r.cpuSeconds = baselineCPU
            r.renderedSeconds = rendered
            r.playMicros = baselinePlayMicros
            return r
        }
        return StressResult(engine: result, baseline: baselineResult, allocationsCounted: counted)
    }
}
