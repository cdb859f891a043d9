import Earshot
import Foundation

/// Reading a scene or bank file: its kind, then its text, bounded by what is read.
extension SceneParser {
    /// Parses the file at `path` (a scene, or a bank with `bank`).
    static func parse(path: String, bank: Bool = false) -> Result<Scene, SceneProblems> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(SceneProblems(problems: [.unreadable(.fileNotFound(path: path))]))
        }
        guard !isDirectory.boolValue else {
            return .failure(
                SceneProblems(problems: [
                    .unreadable(
                        .unreadableFile(path: path, reason: "a directory, not a \(bank ? "bank" : "scene") file"))
                ]))
        }
        guard SceneLimits.isRegularFile(path) else {
            return .failure(
                SceneProblems(problems: [
                    .unreadable(
                        .unreadableFile(
                            path: path,
                            reason: "not a regular file (a device, a pipe or a special file cannot be a scene)"))
                ]))
        }
        // Refused by its size (SceneLimits.maxFileBytes): by stat before it is read, and by what
        // is read when stat says less (a /proc file).
        let text: String
        switch SceneLimits.readText(path, limit: SceneLimits.maxFileBytes) {
        case .text(let t):
            text = t
        case .tooLarge(let size, _):
            return .failure(
                SceneProblems(problems: [
                    .invalid(
                        file: path, line: 1, column: 1, key: "",
                        reason:
                            "the file has \(SceneLimits.sizeText(size, limit: SceneLimits.maxFileBytes)); a scene may have at most \(SceneLimits.maxFileBytes) (64 MiB)"
                    )
                ]))
        case .unreadable(let error):
            return .failure(SceneProblems(problems: [.unreadable(error)]))
        case .notUTF8:
            return .failure(
                SceneProblems(problems: [
                    .unreadable(.unreadableFile(path: path, reason: "not UTF-8 text (a scene is a YAML file)"))
                ]))
        }
        return parse(yaml: text, path: path, bank: bank)
    }
}
