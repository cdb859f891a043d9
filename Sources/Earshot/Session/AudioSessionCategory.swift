extension AudioSession {
    /// What the game's audio is for, and so how it yields to other applications: the iOS
    /// audio-session categories a game chooses from, carried over to Linux.
    ///
    /// | Category | Mixes with other apps' audio? | Silenced by the ringer (silent) switch? | Music ducked by the secondary-audio hint? |
    /// |---|---|---|---|
    /// | ``ambient`` | yes | yes on iOS; Linux has no such switch: never | yes |
    /// | ``soloAmbient`` (default) | no: ``AudioSession/activate()`` pauses the media players that are playing | yes on iOS; never on Linux | yes |
    /// | ``playback`` | no: activation pauses the playing media players | no | no: the hint is reported, the music plays on |
    /// | ``playAndRecord`` | no: activation pauses the playing media players | no | yes |
    ///
    /// Only ``playAndRecord`` allows recording (``allowsRecording``): ``AudioEngine/makeRecorder(_:)``
    /// refuses in the other categories, as iOS refuses the microphone.
    ///
    /// - **Mixing.** On iOS, activating a session that does not mix interrupts the other
    ///   applications' audio. On Linux the sound server mixes every stream, so Earshot does
    ///   what the interruption achieves through the hint sources: activation in
    ///   ``soloAmbient`` or ``playback`` asks each source to silence the others
    ///   (``SecondaryAudioHintSource/silenceOthers()``; on Linux ``MPRISHintSource`` pauses
    ///   every playing media player, once). Without a hint source nothing is paused. Choose
    ///   ``ambient`` to leave the user's music alone.
    /// - **Ringer switch.** Linux desktops have no silent switch; no category is ever silenced
    ///   for one.
    /// - **The hint** (another application plays media; see ``AudioSession``) is reported in
    ///   every category. In ``ambient`` and ``soloAmbient`` it ducks the game's *secondary
    ///   audio*, the ``Bus/music`` bus (a player the user starts after a ``soloAmbient``
    ///   activation ducks the music; Linux has no session arbiter to interrupt the game
    ///   instead); in ``playback`` the music is the point and plays on. Effects, UI and
    ///   dialogue never yield to the hint.
    /// - **Interruptions** pause the game's audio in every category
    ///   (``AudioSession/beginInterruption()``).
    ///
    /// ```swift
    /// engine.session.category = .ambient    // mix with the user's music, duck ours while it plays
    /// engine.session.activate()
    /// ```
    public enum Category: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Game audio that mixes with other applications' audio: activation leaves other
        /// players alone; the music ducks while another media player plays (the
        /// secondary-audio hint), effects never do.
        case ambient
        /// The default for games: activation silences other applications (the hint sources
        /// pause their playing media players); a player started later ducks the music, effects
        /// carry on.
        case soloAmbient
        /// Audio is the point of the application (a music or rhythm game): activation
        /// silences other players; the music keeps playing whatever other players do later
        /// (the hint is still reported but never ducks).
        case playback
        /// Plays and records (voice chat, a microphone-driven game): does not mix, is not
        /// silenced by a ringer switch, its music yields to the hint; the one category in which
        /// the engine records.
        case playAndRecord

        /// Whether the game's audio mixes with other applications' audio: when false,
        /// ``AudioSession/activate()`` asks its hint sources to silence the others.
        public var mixesWithOthers: Bool {
            switch self {
            case .ambient: return true
            case .soloAmbient, .playback, .playAndRecord: return false
            }
        }

        /// Whether iOS's ringer (silent) switch silences the category. Linux has no such
        /// switch: Earshot never silences anything for it; the value states the category's
        /// intent for games that offer the setting themselves.
        public var silencedByRingerSwitch: Bool {
            switch self {
            case .ambient, .soloAmbient: return true
            case .playback, .playAndRecord: return false
            }
        }

        /// Whether the music bus ducks while the secondary-audio hint is on.
        public var musicYieldsToHint: Bool {
            switch self {
            case .ambient, .soloAmbient, .playAndRecord: return true
            case .playback: return false
            }
        }

        /// Whether the engine may record in this category (only ``playAndRecord``).
        public var allowsRecording: Bool { self == .playAndRecord }

        /// Whether effects (every bus except ``Bus/music``) yield to the hint: never.
        public var effectsYieldToHint: Bool { false }

        /// Whether interruptions pause the engine's audio: always (a competing session took the
        /// output; see ``AudioSession/beginInterruption()``).
        public var honoursInterruptions: Bool { true }

        public var description: String { rawValue }
    }
}
