import Earshot

extension Scene {
    /// The findings of ``LineTableCheck`` on the scene's line table (missing files, files without
    /// a line, lengths differing between locales, subtitles over 17 characters per second), as
    /// warnings on `dialogue.lines`.
    func dialogueWarnings() -> [SceneWarning] {
        guard let d = dialogue else { return [] }
        return LineTableCheck.run(d.table).findings.map { warning(at: nil, "dialogue.lines", "\(d.path): \($0)") }
    }
}
