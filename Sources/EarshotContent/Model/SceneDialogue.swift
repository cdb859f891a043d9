import Earshot

/// A scene's `dialogue:` section: the line table its `say:` events speak from, and the locale.
///
/// ```yaml
/// dialogue: { lines: Lines/dialogue.yaml, locale: fr }
/// events:
///   - { at: 2, say: intro.guard.01, by: guard }
/// ```
public struct SceneDialogue: Sendable, Equatable {
    /// The table file's path (resolved against the scene's folder).
    public var path: String
    /// The table, read and checked when the scene was.
    public var table: DialogueTable
    /// The locale lines are said in (`en` when not given).
    public var locale: String
}

/// A scene's `say:` event: line `key` of the scene's table, said by emitter `by` (positioned on
/// it) or, without one, head-relative on the voice bus.
public struct SceneSay: Sendable, Equatable {
    public var key: String
    public var by: String?

    public init(key: String, by: String? = nil) {
        self.key = key
        self.by = by
    }
}
