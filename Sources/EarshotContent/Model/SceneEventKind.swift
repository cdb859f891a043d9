/// The event words of a scene's `events:` list: each event says exactly one of them.
enum SceneEventKind: String, CaseIterable, Sendable {
    case music, play, hint, interruption, stop, start, set, snapshot, vca, say, portal, bed

    /// The keys an event of this kind may have: its own, and when it runs — `at:` a time, or
    /// `after:` a named voice ends (plus `delay:`).
    var allowedKeys: [String] { Self.allowed[self] ?? ownKeys }

    /// Each kind's keys, made once (a scene may have a million events).
    private static let allowed = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0, ["after", "delay"] + $0.ownKeys) })

    private var ownKeys: [String] {
        switch self {
        case .music:
            return [
                "at", "music", "action", "volume", "duration", "fade", "rate", "tape", "state", "stinger", "boundary",
                "duck", "layer",
            ]
        case .play:
            return [
                "at", "play", "name", "position", "pan", "gain", "pitch", "priority", "bus", "offset", "loops", "every",
                "count", "until", "jitter", "spread",
            ]
        case .hint: return ["at", "hint"]
        case .interruption: return ["at", "interruption", "shouldResume"]
        case .stop: return ["at", "stop", "fade"]
        case .start: return ["at", "start"]
        case .set: return ["at", "set", "gain", "pitch", "pan", "rate", "occlusion", "ramp", "curve", "of"]
        case .snapshot: return ["at", "snapshot", "action", "fade", "intensity"]
        case .vca: return ["at", "vca", "gain", "fade"]
        case .say: return ["at", "say", "by"]
        case .portal: return ["at", "portal", "open", "ramp"]
        case .bed: return ["at", "bed", "action", "fade", "yaw", "ramp"]
        }
    }

    /// The keys it must have (besides `at:` or `after:`, one of which every event has).
    var requiredKeys: [String] { self == .snapshot ? ["action"] : self == .vca ? ["gain"] : [] }  // a music track's action: is checked with the track
}
