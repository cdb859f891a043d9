extension AudioSession {
    /// What the game's audio is for, and so how it yields to other applications.
    ///
    /// The names and intents come from iOS audio-session categories; their meaning on Linux
    /// follows from what a Linux desktop offers. Every application's stream is mixed by the
    /// sound server (PulseAudio, PipeWire), there is no silent switch, and no session arbiter
    /// stops one application for another: Earshot never pauses or silences other programs.
    /// What a category decides is whether the game's *secondary audio* (the ``Bus/music`` bus)
    /// yields to the secondary-audio hint. Effects, UI and dialogue never yield.
    ///
    /// | Category | Music while another player plays | Effects | Interruptions |
    /// |---|---|---|---|
    /// | ``ambient`` | ducked | untouched | honoured |
    /// | ``soloAmbient`` (default) | ducked | untouched | honoured |
    /// | ``playback`` | untouched (the hint is ignored) | untouched | honoured |
    ///
    /// ```swift
    /// engine.session.category = .playback   // a rhythm game: the music is the game
    /// ```
    public enum Category: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Game audio that mixes with other applications' audio. On Linux every stream mixes
        /// anyway; the music ducks while another media player plays (the secondary-audio hint),
        /// effects never do. iOS's silent switch has no Linux counterpart, so nothing else
        /// silences it.
        case ambient
        /// The default for games. On iOS, activating it silences other applications; Linux has
        /// no such arbitration and Earshot does not pause other players, so it behaves like
        /// ``ambient``: when the user has their own music playing, the game's music ducks and
        /// its effects carry on.
        case soloAmbient
        /// Audio is the point of the application (a music or rhythm game): the music keeps
        /// playing whatever other players do; the hint is still reported but never ducks.
        case playback

        /// Whether the music bus ducks while the secondary-audio hint is on.
        public var musicYieldsToHint: Bool {
            switch self {
            case .ambient, .soloAmbient: return true
            case .playback: return false
            }
        }

        /// Whether effects (every bus except ``Bus/music``) yield to the hint: never.
        public var effectsYieldToHint: Bool { false }

        /// Whether interruptions pause the engine's audio: always (a competing session took the
        /// output; see ``AudioSession/beginInterruption()``).
        public var honoursInterruptions: Bool { true }

        public var description: String { rawValue }
    }
}
