import Earshot

/// What a scene needs from the audio session: the secondary-audio hint and interruptions.
///
/// Scenes drive the session through this protocol so that the policy lives in one place. The
/// default, ``EngineSceneSession``, does what the engine's audio session does, with the engine's
/// public controls: the hint ducks the ``Bus/music`` bus (ramped over the scene's ducking attack
/// and release), an interruption pauses every bus and music track and, when it ends with
/// `shouldResume`, resumes them.
///
/// Pass your own to ``SceneRenderer/render(to:format:duration:session:progress:)`` or
/// ``ScenePlayer/run(duration:fadeOut:session:status:)`` to route scene events to another session.
public protocol SceneSessionControl: AnyObject {
    /// Whether an interruption has begun and not ended.
    var isInterrupted: Bool { get }
    /// The secondary-audio hint begins (another app plays non-mixable audio) or ends.
    func secondaryAudioHint(begins: Bool, at time: Double)
    /// An interruption begins (our audio has stopped) or ends; resume only with `shouldResume`.
    func interruption(began: Bool, shouldResume: Bool, at time: Double) throws(EarshotError)
    /// A music track asked to play during an interruption: start it when the interruption ends
    /// with `shouldResume`.
    func resumeLater(_ track: MusicTrack)
    /// Called once per game frame with the scene time, before the engine's update (ramps).
    func advance(to time: Double)
}

/// The default ``SceneSessionControl``: ducking and interruptions with the engine's bus and
/// track controls.
///
/// - Ducking: while the hint is raised the music bus's gain ramps linearly to the ducked level
///   (`session.ducking.level`: silent or dB) over `attack` seconds, and back to the gain it had
///   before over `release` seconds when the hint ends. Effects are untouched.
/// - Interruptions: *began* pauses every bus (voices keep their playheads) and every playing
///   music track. *Ended* with `shouldResume` unpauses the buses and plays the tracks again;
///   without it the interrupted voices are stopped and the tracks stay paused (a later music
///   `play` event resumes them), while new sounds play normally. A *began* during an
///   interruption, or an *ended* without one, does nothing.
///
/// ```swift
/// let session = EngineSceneSession(engine: engine, settings: .init(ducking: .init(levelDB: -18)))
/// session.secondaryAudioHint(begins: true, at: 2)
/// session.advance(to: 2.05)        // halfway down the 0.1 s attack
/// ```
public final class EngineSceneSession: SceneSessionControl {
    public let engine: AudioEngine
    public let settings: SceneSessionSettings
    private let tracks: [MusicTrack]
    /// The music bus gain before any ducking.
    private let musicGain: Float
    /// The duck factor (1 = none) and the ramp it follows.
    public private(set) var duck: Float = 1
    private var ramp: (from: Float, to: Float, start: Double, duration: Double)?
    private var hintRaised = false
    private var pausedBefore: [Bus: Bool]?
    private var interruptedTracks: [MusicTrack] = []

    public init(engine: AudioEngine, settings: SceneSessionSettings = SceneSessionSettings(), tracks: [MusicTrack] = []) {
        self.engine = engine
        self.settings = settings
        self.tracks = tracks
        musicGain = engine.gain(for: .music)
    }

    public var isInterrupted: Bool { pausedBefore != nil }

    /// Whether the hint is raised.
    public var isHintRaised: Bool { hintRaised }

    public func secondaryAudioHint(begins: Bool, at time: Double) {
        guard begins != hintRaised else { return }
        hintRaised = begins
        let target: Float = begins ? settings.ducking.linearLevel : 1
        ramp = (duck, target, time, begins ? settings.ducking.attack : settings.ducking.release)
        advance(to: time)
    }

    public func interruption(began: Bool, shouldResume: Bool, at time: Double) throws(EarshotError) {
        if began {
            guard pausedBefore == nil else { return }
            var before: [Bus: Bool] = [:]
            for bus in engine.buses {
                before[bus] = engine.isPaused(bus)
                engine.setPaused(true, for: bus)
            }
            pausedBefore = before
            interruptedTracks = tracks.filter(\.isPlaying)
            for t in interruptedTracks { t.pause() }
        } else {
            guard let before = pausedBefore else { return }
            pausedBefore = nil
            let resumed = interruptedTracks
            interruptedTracks = []
            if !shouldResume { engine.stopAllVoices() }
            for (bus, paused) in before { engine.setPaused(paused, for: bus) }
            if shouldResume {
                for t in resumed { try t.play() }
            }
        }
    }

    public func resumeLater(_ track: MusicTrack) {
        if !interruptedTracks.contains(where: { $0 === track }) { interruptedTracks.append(track) }
    }

    public func advance(to time: Double) {
        guard let r = ramp else { return }
        let progress = r.duration > 0 ? min(1, max(0, (time - r.start) / r.duration)) : 1
        duck = r.from + (r.to - r.from) * Float(progress)
        if progress >= 1 { ramp = nil }
        engine.setGain(musicGain * duck, for: .music)
    }
}
