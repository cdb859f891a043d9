/// Who gives way to whom when a speaker is asked to say a line while another of theirs plays.
///
/// Ranked `bark` < `story` < `system`: a higher rank cuts the line playing (a fade of
/// ``DialogueTable/cutFade`` seconds), a lower one never cuts a higher one, an equal one queues.
/// `system` is the game speaking to the player (a tutorial hint, a mission update, a
/// save-game warning): it must be heard, so it outranks the story.
///
/// ```swift
/// assert(DialoguePriority.story > .bark && DialoguePriority.system > .story)
/// ```
public enum DialoguePriority: String, Sendable, Hashable, Comparable, CaseIterable {
    /// Ambient chatter, reactions ("Grenade!"): cut by anything more important, often with an
    /// ``DialogueLine/expire`` time.
    case bark
    /// The story's lines.
    case story
    /// The game's own voice (tutorials, objectives).
    case system

    var rank: Int {
        switch self {
        case .bark: 0
        case .story: 1
        case .system: 2
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
}

/// A timed subtitle change inside a line: at `time` seconds of the line's file, `text` shows.
///
/// Cues come from the table (`cues:`), from an `.srt` or `.vtt` file beside the line's file
/// (``SubtitleFileReader``) or from the file's markers (a marker's name is its text).
///
/// ```swift
/// let cue = SubtitleCue(time: 0.8, text: "Who goes there?")
/// ```
public struct SubtitleCue: Sendable, Hashable {
    /// Seconds into the line's file.
    public var time: Double
    /// What the subtitle reads from then on.
    public var text: String

    public init(time: Double, text: String) {
        self.time = time
        self.text = text
    }
}

/// One line of a ``DialogueTable``: who says it, how important it is, its text and file per
/// locale.
///
/// ```swift
/// let halt = DialogueLine(key: "intro.guard.01", speaker: "guard", priority: .story,
///                         text: ["en": "Halt!", "fr": "Halte !"])
/// ```
public struct DialogueLine: Sendable, Hashable {
    /// The line's key (`intro.guard.01`), unique in its table.
    public var key: String
    /// The speaker's name (`guard`): lines of one speaker without an emitter take turns.
    public var speaker: String
    /// Who gives way (``DialoguePriority``).
    public var priority: DialoguePriority
    /// Seconds a queued line may wait before it is dropped (nil: it waits as long as it takes).
    public var expire: Double?
    /// The subtitle text per locale.
    public var text: [String: String]
    /// The file per locale; a locale without one uses the table's ``DialogueTable/filePattern``.
    public var files: [String: String]
    /// Subtitle cues per locale (seconds into the file), from the table.
    public var cues: [String: [SubtitleCue]]

    public init(key: String, speaker: String, priority: DialoguePriority = .story, expire: Double? = nil,
                text: [String: String] = [:], files: [String: String] = [:], cues: [String: [SubtitleCue]] = [:]) {
        self.key = key
        self.speaker = speaker
        self.priority = priority
        self.expire = expire
        self.text = text
        self.files = files
        self.cues = cues
    }
}
