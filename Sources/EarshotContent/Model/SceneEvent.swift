import Earshot

/// One entry of a scene's timeline: what happens, and when.
///
/// ```yaml
/// - { at: 0.0, music: theme, action: play }
/// - { at: 1.0, play: step, position: [3, 0, 0], gain: 1.0 }
/// - { at: 2.0, hint: begin }
/// - { at: 5.0, interruption: began }
/// - { at: 6.0, interruption: ended, shouldResume: true }
/// - { at: 6.5, stop: car, fade: 0.2 }
/// - { at: 7.0, snapshot: underwater, action: begin, fade: 0.5 }
/// - { at: 8.0, vca: gameplay, gain: -10, fade: 1 }
/// ```
public struct SceneEvent: Sendable, Equatable {
    /// What a music event does to its track.
    public enum MusicAction: Sendable, Equatable {
        /// Start, or resume after pause/stop; an optional volume, rate (0.5…2) and tape mode
        /// are set first (on a playing track they change it as it plays).
        case play(volume: Float?, rate: Float? = nil, tape: Bool? = nil)
        /// Pause, keeping the position.
        case pause
        /// Fade out over `fade` seconds (at least 20 ms, so it never clicks), then stop.
        case stop(fade: Double)
        /// Ramp the volume to `volume` over `duration` seconds.
        case fade(volume: Float, duration: Double)
    }

    /// What happens.
    public enum Action: Sendable, Equatable {
        /// A music track's transport or volume.
        case music(id: String, MusicAction)
        /// A one-shot of a clip or a sound, at a position (3D) or a pan (non-positional).
        case play(ScenePlay)
        /// The secondary-audio hint begins (true) or ends (false).
        case hint(begins: Bool)
        /// An interruption begins, or ends (with whether to resume).
        case interruption(began: Bool, shouldResume: Bool)
        /// An emitter stops, fading out over `fade` seconds.
        case stop(emitter: String, fade: Double)
        /// An emitter starts (again, if it played before: from the top).
        case start(emitter: String)
        /// Properties of an emitter, a music track or a bus change, at once or over `ramp` seconds.
        case set(target: SceneSetTarget, changes: [SceneChange], ramp: Double, curve: SceneRampCurve?)
        /// A snapshot begins (at `intensity`) or ends, fading over `fade` seconds.
        case snapshot(id: String, begins: Bool, fade: Double, intensity: Float)
        /// A VCA's gain moves to `gainDB` over `fade` seconds (`{ at, vca: ID, gain: dB, fade: s }`).
        case vca(id: String, gainDB: Double, fade: Double)
        /// A game parameter's value moves: globally, or of a named play or an emitter.
        case parameter(SceneParameterSet)
        /// A music set changes state, plays a stinger, sets a stem's gain, or starts, pauses, stops.
        case musicSet(id: String, SceneMusicSetAction)
        /// A portal opens or closes to `open` (0…1) over `ramp` seconds (`{ portal: door, open: 0 }`).
        case portal(id: String, open: Float, ramp: Double)
        /// An ambisonic bed plays, stops or turns (`beds:`).
        case bed(id: String, SceneBedAction)
        /// A dialogue line of the scene's table is said (SceneDialogue.swift).
        case say(SceneSay)
    }

    /// Scene time in seconds (for a ``SceneFollowUp``'s event: when it ran, in the events a
    /// render reports; 0 in the scene).
    public var time: Double
    public var action: Action
    /// The line of the event in the scene file.
    public var line: Int
    /// The column where the event starts on its line (0 for an event built in code).
    public var column: Int = 0

    public init(time: Double, action: Action, line: Int = 0, column: Int = 0) {
        self.time = time
        self.action = action
        self.line = line
        self.column = column
    }

    /// A short label for logs and plots ("hint begin", "play step", …).
    public var label: String {
        switch action {
        case .music(let id, let a):
            switch a {
            case .play: return "music \(id) play"
            case .pause: return "music \(id) pause"
            case .stop: return "music \(id) stop"
            case .fade(let v, _): return "music \(id) fade to \(v)"
            }
        case .play(let p): return "play \(p.id)"
        case .hint(let begins): return begins ? "hint begin" : "hint end"
        case .interruption(let began, let resume):
            return began ? "interruption began" : "interruption ended" + (resume ? " (resume)" : "")
        case .stop(let emitter, _): return "stop \(emitter)"
        case .start(let emitter): return "start \(emitter)"
        case .set(let target, let changes, _, _):
            return "set \(target.name) " + changes.map { "\($0.property.rawValue) \($0.value)" }.joined(separator: ", ")
        case .snapshot(let id, let begins, _, _): return "snapshot \(id) \(begins ? "begin" : "end")"
        case .vca(let id, let db, _): return "vca \(id) \(db) dB"
        case .parameter(let p): return "set \(p.parameter) \(p.value)" + (p.of.map { " of \($0)" } ?? "")
        case .musicSet(let id, let a): return "music \(id) \(a.label)"
        case .portal(let id, let open, _): return "portal \(id) open \(open)"
        case .bed(let id, let a): return "bed \(id) \(a.label)"
        case .say(let s): return "say \(s.key)" + (s.by.map { " by \($0)" } ?? "")
        }
    }

    /// Whether the event is a session event (hint or interruption).
    public var isSessionEvent: Bool {
        switch action {
        case .hint, .interruption: return true
        default: return false
        }
    }
}

/// An event that runs when a named voice ends (`after:`), not at a time: kept apart from the
/// timed events (``Scene/followUps``), so that the million events a scene may have stay as small
/// as they were.
public struct SceneFollowUp: Sendable, Equatable {
    /// The voice it waits for, and how long after its end.
    public var after: SceneAfter
    /// What it does (its ``SceneEvent/time`` is 0 in the scene).
    public var event: SceneEvent
    /// The `name:` of its voice when it is a play others wait for.
    public var name: String?
}

/// When an event runs relative to another: once the voice of the `play` event named `voice` (its
/// `name:`) ends — finished, stopped, stolen or refused — plus `delay` seconds
/// (`{ after: line1, delay: 0.5, play: reply }`); or, with a `marker`, each time that voice passes
/// its clip's marker of that name, plus `delay` (`{ at: { marker: line1.hit }, play: boom }`).
public struct SceneAfter: Sendable, Equatable {
    /// The `name:` of the play whose voice it waits for.
    public var voice: String
    /// Seconds after that voice's end, or after its marker (0…3600).
    public var delay: Double
    /// The marker of the voice's clip it runs at (every time the voice passes it), or nil: at
    /// the voice's end.
    public var marker: String?

    public init(voice: String, delay: Double = 0, marker: String? = nil) {
        self.voice = voice
        self.delay = delay
        self.marker = marker
    }
}
