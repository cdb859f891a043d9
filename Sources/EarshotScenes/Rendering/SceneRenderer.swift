import Earshot
import Foundation

/// Renders a `Scene` offline through OpenAL's loopback device into a WAV file, faster than
/// real time, measuring the level per channel as it goes.
///
/// The scene runs in game frames (60 per second by default, like `FrameLoop`): at each frame
/// the listener and the emitters on paths move, session ramps advance and the engine updates.
/// Events and emitter starts are sample-accurate: a frame's render is cut at the sample where
/// each one falls (`round(time × sampleRate)`), so a one-shot at 1.013 s starts on that sample.
///
/// ```swift
/// let scene = try Scene.load(path: "Demos/Scenes/showcase.yaml")
/// let result = try SceneRenderer(scene: scene).render(to: "out/showcase.wav")
/// let svg = LevelPlot.svg(levels: result.levels, events: result.events, title: scene.name)
/// ```
public struct SceneRenderer {
    public let scene: Scene
    /// Game frames per second.
    public var framesPerSecond: Double

    public init(scene: Scene, framesPerSecond: Double = 60) {
        precondition(framesPerSecond > 0, "SceneRenderer: framesPerSecond must be positive")
        self.scene = scene
        self.framesPerSecond = framesPerSecond
    }

    /// What a render produced.
    public struct Result: Sendable {
        /// The WAV file written.
        public var path: String
        /// Frames (samples per channel) written.
        public var frames: Int
        public var sampleRate: Int
        public var channels: Int
        /// Seconds rendered.
        public var duration: Double { Double(frames) / Double(sampleRate) }
        /// 20 ms RMS per channel.
        public var levels: LevelTrace
        /// The scene events that ran, in order.
        public var events: [SceneEvent]
        /// The most voices on real sources at once (sampled once per frame).
        public var peakRealVoices: Int
        /// The most virtual voices at once (sampled once per frame).
        public var peakVirtualVoices: Int
        /// Sources stolen during the render.
        public var steals: Int
        /// Whether the engine granted HRTF.
        public var hrtfEnabled: Bool
        /// Wall-clock seconds the render took.
        public var renderSeconds: Double
        /// Voices and bus gains over time, in a bounded number of columns (for the plot).
        public var timeline = SceneTimeline(duration: 1)
        /// Seconds of output the engine's limiter turned down because the mix would have
        /// exceeded full scale (counted per game frame: with `from`, the frame the section starts
        /// in counts whole) (0: it never engaged; see Earshot's `OutputLimiter`).
        public var limitedSeconds = 0.0
        /// The deepest gain reduction the limiter applied, in dB (0 when it never engaged).
        public var deepestLimiterReduction: Float = 0
        /// The section's EBU R128 loudness and true peak, and its momentary and short-term
        /// loudness every 100 ms (Rendering/LoudnessTrace.swift).
        public var loudness: LoudnessReading?
        public var loudnessTrace: [LoudnessTrace.Point] = []
        /// The subtitles the scene's `say:` lines showed, in seconds of the render (for
        /// `--subtitles` and the plot's subtitle lane); empty without dialogue.
        public var subtitles: [SubtitleEntry] = []
    }

    /// Renders the scene (or its first `duration` seconds) to a WAV file; with `from`, only the
    /// section from `from` to the end is written — everything before it runs exactly as in a
    /// whole render (events, paths, ramps, music) but silently, so the section sounds as it does
    /// there. The result's times, levels, timeline and events then count from `from`.
    ///
    /// Throws what loading the scene's audio, the engine or the writer throw, and the error of a
    /// music track that fails part-way (corrupt data, a chained Ogg changing format: never a
    /// render with silence in its place); a partly written file is removed. With a
    /// `transaction`, the file is staged for its commit instead of put in place. `progress` is
    /// called once per game frame with 0…1.
    @discardableResult
    public func render(
        to path: String, format: AudioFileWriter.Format = .s16, from: Double = 0, duration: Double? = nil,
        session: ((AudioEngine, Scene, [MusicTrack]) -> SceneSessionControl)? = nil,
        transaction: (any OutputStaging)? = nil,
        progress: ((Double) -> Void)? = nil
    ) throws(EarshotError) -> Result {
        if let duration, !(duration.isFinite && duration > 0) {
            throw .invalidArgument("render duration \(duration) (must be a positive number of seconds)")
        }
        let seconds = min(duration ?? scene.duration, scene.duration)
        guard from.isFinite, from >= 0, from < seconds else {
            throw .invalidArgument("render from \(from) s (must be at least 0 and before the end, \(seconds) s)")
        }
        let started = Date()
        let engine = try AudioEngine(
            configuration: scene.engineConfiguration(output: .loopback(sampleRate: scene.sampleRate)))
        defer { engine.shutdown() }
        let runtime = try SceneRuntime(scene: scene, engine: engine, session: session)
        let rate = engine.sampleRate
        let channels = engine.outputChannels
        // Refused before rendering when the folder cannot hold it; nothing partial is left behind.
        let writer = try AudioFileWriter(
            path: path, sampleRate: rate, channels: channels, format: format,
            expectedFrames: Int(((seconds - from) * Double(rate)).rounded()), transaction: transaction)
        do {
            var result = try run(
                runtime, engine: engine, writer: writer, from: from, seconds: seconds, progress: progress)
            try writer.close()
            result.renderSeconds = Date().timeIntervalSince(started)
            result.path = path
            return result
        } catch {
            writer.discard()
            throw error
        }
    }

    /// The render's loop; without a `writer` nothing is written (SceneRenderer+Subtitles.swift).
    func run(
        _ runtime: SceneRuntime, engine: AudioEngine, writer: AudioFileWriter?, from: Double, seconds: Double,
        progress: ((Double) -> Void)?
    ) throws(EarshotError) -> Result {
        let rate = engine.sampleRate
        let channels = engine.outputChannels
        let total = Int((seconds * Double(rate)).rounded())
        let skip = Int((from * Double(rate)).rounded())   // frames run silently before the section
        func sample(_ t: Double) -> Int { Int((t * Double(rate)).rounded()) }
        var levels = LevelTrace(sampleRate: rate, channels: channels)
        var loudness = try LoudnessTrace(sampleRate: rate, channels: channels)
        var buffer = [Float](repeating: 0, count: (Int(Double(rate) / framesPerSecond) + 2) * channels)
        var ran: [SceneEvent] = []
        var peakReal = 0, peakVirtual = 0
        // Every bus gets a lane: the built-in ones and the scene's own.
        let names =
            SceneTimeline.builtInBuses
            + runtime.scene.buses.map(\.name).filter { !SceneTimeline.builtInBuses.contains($0) }
        var timeline = SceneTimeline(duration: seconds - from, buses: names)
        for b in runtime.scene.buses { if let p = b.parent { timeline.busParents[b.name] = p } }
        let buses: [(String, Bus)] = timeline.buses.map { ($0, Bus($0)) }
        let before = engine.stats
        let stealsBefore = before.steals
        // The limiter's work is read once per game frame, with the frame's other counts: what
        // it turned down since the last reading belongs to the frame rendered in between.
        var limitedSoFar = before.limitedFrames
        var frameStart = 0
        func recordLimiting(through frameEnd: Int, limitedNow: Int) {
            if frameEnd > skip {
                timeline.recordLimiting(
                    time: Double(max(frameStart, skip) - skip) / Double(rate), frames: limitedNow - limitedSoFar)
            }
            limitedSoFar = limitedNow
        }
        /// Runs every step due at or before output frame `position`.
        func runDue(at position: Int) throws(EarshotError) {
            while let t = runtime.nextTime, sample(t) <= position {
                if let e = try runtime.runNext() { ran.append(e) }
            }
        }
        var done = 0
        var frame = 0
        while done < total {
            let frameEnd = min(
                total, max(done + 1, Int((Double(frame + 1) * Double(rate) / framesPerSecond).rounded())))
            try runDue(at: done)
            runtime.frame(at: Double(done) / Double(rate))
            engine.update(deltaTime: 1 / framesPerSecond)
            for t in runtime.takeBars(sceneTime: Double(done) / Double(rate)) where t >= from {
                timeline.recordBar(time: t - from)
            }
            runtime.processEnds(sceneTime: Double(done) / Double(rate))  // `after:` events of voices that ended
            try runDue(at: done)  // one of those due now runs before this frame's render
            let stats = engine.stats
            recordLimiting(through: done, limitedNow: stats.limitedFrames)
            frameStart = done
            peakReal = max(peakReal, stats.realVoices)
            peakVirtual = max(peakVirtual, stats.virtualVoices)
            if done >= skip {
                timeline.record(
                    time: Double(done - skip) / Double(rate), realVoices: stats.realVoices,
                    virtualVoices: stats.virtualVoices,
                    busGains: try buses.map { bus throws(EarshotError) in (bus.0, try engine.effectiveGain(for: bus.1))
                    })
            }
            var position = done
            while position < frameEnd {
                // Cut the frame's render where the next event falls.
                var end = frameEnd
                if let t = runtime.nextTime { end = min(end, max(position + 1, sample(t))) }
                // The render is cut exactly where a whole render cuts it (OpenAL ramps gains over
                // each render call, so a cut of its own at `skip` would change the first partial
                // frame): the part before the section is rendered with it and dropped.
                let n = end - position
                let kept = max(0, end - max(position, skip))
                try buffer.withUnsafeMutableBufferPointer { (buf) throws(EarshotError) in
                    let slice = UnsafeMutableBufferPointer(rebasing: buf[0..<(n * channels)])
                    try engine.render(into: slice)
                    guard kept > 0 else { return }
                    let section = UnsafeBufferPointer(rebasing: slice[((n - kept) * channels)...])
                    try writer?.write(section)
                    levels.add(section)
                    try loudness.add(section)
                }
                position = end
                if position < frameEnd { try runDue(at: position) }
            }
            done = frameEnd
            frame += 1
            // A track that failed part-way fails the render (its silence would be a lie).
            for track in runtime.tracks.values { if let error = track.failure { throw error } }
            progress?(Double(done) / Double(max(total, 1)))
        }
        levels.finish()
        for t in runtime.takeBars(sceneTime: Double(done) / Double(rate)) where t >= from {
            timeline.recordBar(time: t - from)
        }
        for c in runtime.stateChanges where c.time >= from {
            timeline.recordStateChange(time: c.time - from, label: c.label)
        }
        let section = ran.filter { $0.time >= from }.map { e -> SceneEvent in
            var moved = e
            moved.time -= from
            return moved
        }
        let after = engine.stats
        recordLimiting(through: done, limitedNow: after.limitedFrames)
        var result = Result(
            path: "", frames: done - skip, sampleRate: rate, channels: channels, levels: levels, events: section,
            peakRealVoices: peakReal, peakVirtualVoices: peakVirtual,
            steals: after.steals - stealsBefore, hrtfEnabled: engine.context.hrtfEnabled,
            renderSeconds: 0)
        result.timeline = timeline
        result.limitedSeconds = Double(timeline.limitedFrames.reduce(0, +)) / Double(rate)
        result.deepestLimiterReduction = after.deepestLimiterReduction
        result.loudness = loudness.meter.reading()
        result.loudnessTrace = loudness.points
        result.subtitles = runtime.subtitleLog.entries(from: from, end: seconds)   // SceneRuntime+Dialogue.swift
        result.timeline.subtitles = result.subtitles
        return result
    }
}
