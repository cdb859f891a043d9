import Earshot

/// What a scene needs from the audio session: the secondary-audio hint and interruptions.
///
/// Scenes drive the session through this protocol so that the policy lives in one place. The
/// default, ``EngineSceneSession``, does what the engine's audio session does, with the engine's
/// public controls: the hint ducks the `Bus/music` bus (ramped over the scene's ducking attack
/// and release), an interruption pauses every bus and music track and, when it ends with
/// `shouldResume`, resumes them.
///
/// Pass your own to ``SceneRenderer/render(to:format:from:duration:session:transaction:progress:)`` or
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

/// The default ``SceneSessionControl``: the engine's own `AudioSession`.
///
/// The scene's `session` settings configure it (category, duck level, attack, release) and it is
/// activated when the scene starts, with no system hint sources (a scene's hints are its
/// events). Then:
/// - Ducking: the hint ramps the music bus's duck (on the engine clock, in
///   `AudioEngine/update(deltaTime:)`) to the ducked level over `attack` seconds and back over
///   `release`; effects are untouched; `.playback` never ducks.
/// - Interruptions: *began* pauses every voice (virtual voices freeze) and every playing track.
///   *Ended* with `shouldResume` resumes them. Without it, the scene's rule: the interrupted
///   voices are stopped, the tracks stay paused (a later music `play` event resumes them), and
///   the session is lifted so that new sounds play normally. A *began* during an interruption,
///   or an *ended* without one, does nothing.
///
/// ```swift
/// let session = EngineSceneSession(engine: engine, settings: .init(ducking: .init(levelDB: -18)))
/// session.secondaryAudioHint(begins: true, at: 2)   // the music ducks over the next 0.1 s
/// ```
public final class EngineSceneSession: SceneSessionControl {
    public let engine: AudioEngine
    public let settings: SceneSessionSettings
    private let tracks: [MusicTrack]
    /// Tracks the interruption holds: playing when it began, or asked to play during it.
    private var heldTracks: [MusicTrack] = []

    public init(engine: AudioEngine, settings: SceneSessionSettings = SceneSessionSettings(), tracks: [MusicTrack] = [])
    {
        self.engine = engine
        self.settings = settings
        self.tracks = tracks
        let session = engine.session
        session.category = AudioSession.Category(rawValue: settings.category.rawValue) ?? .soloAmbient
        session.duckLevel = settings.ducking.levelDB ?? -.infinity
        session.attack = settings.ducking.attack
        session.release = settings.ducking.release
        session.initialScanTimeout = 0
        session.activate()
    }

    public var isInterrupted: Bool { engine.session.isInterrupted }

    /// Whether the hint is raised.
    public var isHintRaised: Bool { engine.session.secondaryAudioShouldBeSilencedHint }

    public func secondaryAudioHint(begins: Bool, at time: Double) {
        guard begins != isHintRaised else { return }
        engine.session.setSecondaryAudioHint(begins, source: "scene")
    }

    public func interruption(began: Bool, shouldResume: Bool, at time: Double) throws(EarshotError) {
        let session = engine.session
        if began {
            guard !session.isInterrupted else { return }
            heldTracks = tracks.filter(\.isPlaying)
            session.beginInterruption()
        } else {
            guard session.isInterrupted else { return }
            let held = heldTracks
            heldTracks = []
            if shouldResume {
                session.endInterruption(shouldResume: true)
                session.resume()   // whatever the policy: the scene said resume
                for t in held where !t.isPlaying { try t.play() }
            } else {
                session.endInterruption(shouldResume: false)
                engine.stopAllVoices()
                for t in held { t.pause() }
                session.resume()   // lift the hold: new sounds play; the held tracks stay paused
            }
        }
    }

    public func resumeLater(_ track: MusicTrack) {
        if !heldTracks.contains(where: { $0 === track }) { heldTracks.append(track) }
    }

    /// The session ramps in the engine's update; nothing to do per frame here.
    public func advance(to time: Double) {}
}
