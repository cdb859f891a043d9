/// What ``AudioEngine/subtitles`` reports, each at its frame on the audio clock
/// (``AudioEngine/audioTime``): a UI that shows `show`'s text until `hide` shows exactly what is
/// heard.
///
/// ```swift
/// for await event in engine.subtitles {
///     switch event {
///     case .show(let s): print("show", s.text, "by", s.speaker, "at", s.time)
///     case .cue(let c): print("cue", c.text, "at", c.time)
///     case .hide(let h): print("hide", h.key, "at", h.time)
///     }
/// }
/// ```
public enum SubtitleEvent: Sendable, Hashable {
    /// A line's first audible frame: its text, speaker and key.
    case show(Shown)
    /// A cue inside a line (``SubtitleCue``) reached its frame.
    case cue(Cue)
    /// A line's last audible frame, or the moment it was cut, stopped or skipped.
    case hide(Hidden)

    /// A line that starts being heard.
    public struct Shown: Sendable, Hashable {
        /// Audio time (``AudioEngine/audioTime``) of the line's first audible frame.
        public var time: Double
        /// The line's key.
        public var key: String
        /// The speaker's name.
        public var speaker: String
        /// The subtitle text.
        public var text: String
        /// The locale whose file plays.
        public var locale: String
        /// The line's ``LineHandle/id``.
        public var lineID: UInt64
    }

    /// A cue of a line.
    public struct Cue: Sendable, Hashable {
        /// Audio time of the cue's frame.
        public var time: Double
        /// The line's key.
        public var key: String
        /// The speaker's name.
        public var speaker: String
        /// The text from then on.
        public var text: String
        /// The line's ``LineHandle/id``.
        public var lineID: UInt64
    }

    /// A line that stops being heard.
    public struct Hidden: Sendable, Hashable {
        /// Audio time of the line's last audible frame (or of the cut).
        public var time: Double
        /// The line's key.
        public var key: String
        /// The speaker's name.
        public var speaker: String
        /// Why: the line ended, or it was cut, stopped or skipped.
        public var reason: LineOutcome
        /// The line's ``LineHandle/id``.
        public var lineID: UInt64
    }

    /// The same event `d` seconds later (a pause of the voice bus).
    func delayed(by d: Double) -> SubtitleEvent {
        switch self {
        case .show(var e): e.time += d; return .show(e)
        case .cue(var e): e.time += d; return .cue(e)
        case .hide(var e): e.time += d; return .hide(e)
        }
    }

    /// The event's audio time.
    public var time: Double {
        switch self {
        case .show(let s): s.time
        case .cue(let c): c.time
        case .hide(let h): h.time
        }
    }
}

/// How a line ended (``LineHandle/finished``).
public enum LineOutcome: String, Sendable, Hashable {
    /// It played to its end.
    case finished
    /// A more important line of the same speaker cut it.
    case cut
    /// ``LineHandle/stop()``.
    case stopped
    /// ``LineHandle/skip()``.
    case skipped
    /// It waited in the queue longer than its ``DialogueLine/expire`` and never played.
    case expired
    /// It could not start (its file failed to open or no stream source was free; the reason
    /// is logged), or the engine shut down.
    case dropped
}
