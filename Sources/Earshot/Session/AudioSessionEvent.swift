extension AudioSession {
    /// Something the audio session reports, in the order it happened, on ``AudioSession/events``.
    ///
    /// ```swift
    /// Task {
    ///     for await event in engine.session.events {
    ///         switch event {
    ///         case .secondaryAudioHint(.begin): print("another player started: music ducks")
    ///         case .interruption(.ended(let shouldResume)): print("interruption over", shouldResume)
    ///         default: print(event)
    ///         }
    ///     }
    /// }
    /// ```
    public enum Event: Sendable, Equatable, CustomStringConvertible {
        /// Another application started (`.begin`) or stopped (`.end`) playing media: the game
        /// should silence (or, with the session's ducking, has ducked) its secondary audio.
        case secondaryAudioHint(HintChange)
        /// A competing use of the output began or ended.
        case interruption(Interruption)
        /// The output route changed (a device went away, another appeared).
        case routeChange(RouteChangeReason)
        /// The sound server or device was lost and every OpenAL object was rebuilt: query the
        /// output again (rate, channels); the engine has restored clips, voices and tracks.
        case mediaServicesWereReset

        public var description: String {
            switch self {
            case .secondaryAudioHint(.begin): return "secondary audio hint: begin (another player is playing)"
            case .secondaryAudioHint(.end): return "secondary audio hint: end (no other player is playing)"
            case .interruption(.began): return "interruption began"
            case .interruption(.ended(let resume)): return "interruption ended (shouldResume: \(resume))"
            case .routeChange(let reason): return "route change: \(reason)"
            case .mediaServicesWereReset: return "media services were reset"
            }
        }
    }

    /// The two edges of the secondary-audio hint.
    public enum HintChange: Sendable, Equatable {
        /// Other audio started: silence secondary audio.
        case begin
        /// Other audio stopped: bring secondary audio back.
        case end
    }

    /// The two edges of an interruption.
    public enum Interruption: Sendable, Equatable {
        /// Our audio has been paused (voices and tracks keep their positions).
        case began
        /// The interruption is over; `shouldResume` says whether the other party allows
        /// resuming (the session's ``AudioSession/interruptionPolicy`` decides what happens).
        case ended(shouldResume: Bool)
    }

    /// Why the route changed.
    public enum RouteChangeReason: Sendable, Equatable, CustomStringConvertible {
        /// The device the engine played on went away (unplugged, its sink removed, sound server
        /// gone). The engine carries on on the new default output, or on virtual voices until a
        /// device is back; ``AudioSession/pausesWhenOutputGoesAway`` pauses it instead.
        case oldDeviceUnavailable
        /// The engine plays on another device: the user picked a new default output (the
        /// engine followed it, carrying on where it was), or a device came back after a loss.
        case newDeviceAvailable
        /// The named device asked for is gone; the engine fell back to the default device.
        case fellBackToDefault(requested: String)

        public var description: String {
            switch self {
            case .oldDeviceUnavailable: return "the output device went away"
            case .newDeviceAvailable: return "playing on a new output device"
            case .fellBackToDefault(let name): return "device \"\(name)\" is gone; playing on the default device"
            }
        }
    }

    /// What happens when an interruption ends.
    public enum InterruptionPolicy: Sendable, Equatable {
        /// Resume when the interruption's end carries `shouldResume` (as a media player does);
        /// otherwise stay paused until ``AudioSession/resume()``. The default.
        case resumeIfAllowed
        /// Always resume at the end (a game with no play button).
        case alwaysResume
        /// Never resume by itself: the game calls ``AudioSession/resume()``.
        case manual

        /// Whether an end with `shouldResume` resumes under this policy.
        public func resumes(shouldResume: Bool) -> Bool {
            switch self {
            case .resumeIfAllowed: return shouldResume
            case .alwaysResume: return true
            case .manual: return false
            }
        }
    }
}
