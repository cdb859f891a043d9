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

extension SceneBank {
    /// ``LineTableCheck``'s findings on the bank's line table, as warnings on its `dialogue.lines`
    /// key (what `earshot validate BANK` adds to ``warnings``: it reads every voice file's
    /// header, so loading a bank does not run it).
    public func dialogueWarnings() -> [SceneWarning] {
        guard let d = dialogue else { return [] }
        let (file, line) = origin(of: "dialogue.lines")
        return LineTableCheck.run(d.table).findings.map {
            SceneWarning(file: file, line: line, column: self.columns["dialogue.lines"], key: "dialogue.lines",
                         message: "\(d.path): \($0)")
        }
    }
}
