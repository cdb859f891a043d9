import Earshot

extension Scene {
    /// Rooms no portal reaches: heard only through their walls (allowed, likely a slip).
    func roomWarnings() -> [SceneWarning] {
        self.geometry.warnings.compactMap { message -> SceneWarning? in
            let id = message.dropFirst("room ".count).prefix { $0 != ":" }
            let key = "rooms.\(id)"
            return SceneWarning(file: file, line: self.lines[key], column: self.columns[key], key: key, message: message)
        }
    }
}
