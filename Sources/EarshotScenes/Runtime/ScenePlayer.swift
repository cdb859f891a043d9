import Earshot
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Plays a `Scene` live on an output device, in game frames on the wall clock.
///
/// Creating a player opens the device (`EarshotError/noOutputDevice(detail:)` when there is
/// none). ``run(duration:fadeOut:session:status:)`` blocks until the scene ends or
/// ``requestStop()`` is called — from any thread, e.g. a SIGINT handler — then fades everything
/// out and closes the device. Events run at the first frame at or after their time (within one
/// frame, 1/60 s).
///
/// ```swift
/// let player = try ScenePlayer(scene: try Scene.load(path: "Demos/Scenes/showcase.yaml"))
/// _ = try player.run(status: { status in print(status.time, status.realVoices) })
/// ```
public final class ScenePlayer: Sendable {
    public let scene: Scene
    public let engine: AudioEngine
    /// Game frames per second.
    public let framesPerSecond: Double
    private let stopRequested = Atomic<Bool>(false)

    /// What the player reports once per frame.
    public struct Status: Sendable {
        /// Scene time in seconds.
        public var time: Double
        /// The scene's (or the run's) length in seconds.
        public var duration: Double
        /// Voices on real sources.
        public var realVoices: Int
        /// Virtual voices.
        public var virtualVoices: Int
        /// Scene events that ran since the last status.
        public var events: [SceneEvent]
    }

    /// Opens `output` (the system's default device unless told otherwise) with the scene's
    /// engine settings.
    public init(scene: Scene, output: Output = .systemDefault, framesPerSecond: Double = 60) throws(EarshotError) {
        precondition(framesPerSecond > 0, "ScenePlayer: framesPerSecond must be positive")
        self.scene = scene
        self.framesPerSecond = framesPerSecond
        engine = try AudioEngine(configuration: scene.engineConfiguration(output: output))
    }

    /// Asks a running ``run(duration:fadeOut:session:status:)`` to fade out and return. Safe from
    /// any thread and from signal-handling dispatch sources.
    public func requestStop() { stopRequested.store(true, ordering: .relaxed) }

    /// Whether a stop was requested.
    public var isStopRequested: Bool { stopRequested.load(ordering: .relaxed) }

    /// Plays the scene (or its first `duration` seconds), then fades out over `fadeOut` seconds
    /// and shuts the engine down (closing the device). Returns the scene time reached.
    @discardableResult
    public func run(duration: Double? = nil, fadeOut: Double = 0.3,
                    session: ((AudioEngine, Scene, [MusicTrack]) -> SceneSessionControl)? = nil,
                    status: (Status) -> Void = { _ in }) throws(EarshotError) -> Double {
        defer { engine.shutdown() }
        let runtime = try SceneRuntime(scene: scene, engine: engine, session: session)
        let length = min(duration ?? scene.duration, scene.duration)
        let start = Clocks.monotonic()
        var frame = 0
        var t = 0.0
        while !isStopRequested {
            t = Clocks.monotonic() - start
            if t >= length { break }
            let ran = try runtime.runDue(upTo: t)
            runtime.frame(at: t)
            engine.update(deltaTime: 1 / framesPerSecond)
            runtime.processEnds(sceneTime: t)   // `after:` events of voices that ended
            let stats = engine.stats
            status(
                Status(
                    time: t, duration: length, realVoices: stats.realVoices, virtualVoices: stats.virtualVoices,
                    events: ran))
            frame += 1
            let due = Double(frame) / framesPerSecond
            let wait = min(due, length) - (Clocks.monotonic() - start)
            if wait > 0 { usleep(useconds_t(wait * 1e6)) }
        }
        fadeOutAndStop(runtime, over: fadeOut)
        return min(t, length)
    }

    /// Ramps the master gain down, stops every voice and track, and lets the fades finish.
    private func fadeOutAndStop(_ runtime: SceneRuntime, over seconds: Double) {
        let gain = engine.masterGain
        let start = Clocks.monotonic()
        let length = max(0, seconds)
        while true {
            let p = length > 0 ? min(1, (Clocks.monotonic() - start) / length) : 1
            engine.masterGain = gain * Float(1 - p)
            engine.update(deltaTime: 1 / framesPerSecond)
            if p >= 1 { break }
            usleep(useconds_t(1e6 / framesPerSecond))
        }
        runtime.stopEverything(fade: 0.02)
        for _ in 0..<3 {
            engine.update(deltaTime: 1 / framesPerSecond)
            usleep(useconds_t(1e6 / framesPerSecond))
        }
    }
}
