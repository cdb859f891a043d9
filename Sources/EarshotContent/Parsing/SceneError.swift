import Earshot

/// Why a scene file cannot be played: a problem at a place in it, or the file itself unreadable.
///
/// ``Scene/load(path:)`` throws the first problem; ``Scene/check(path:)`` returns every one of
/// them, in file order, as ``SceneProblems``. A problem's ``description`` is one line,
/// `FILE:LINE:COLUMN: key: reason`, the way `earshot validate` prints it.
///
/// ```swift
/// do {
///     _ = try Scene.load(path: "Demos/Scenes/orbit.yaml")
/// } catch {
///     switch error {
///     case .invalid(_, let line, _, let key, let reason): print("line \(line), \(key): \(reason)")
///     case .unreadable(let why): print(why)   // the file is missing or not text
///     }
/// }
/// ```
public enum SceneError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A problem at a place in the scene: the file, the line and column, the key (a dotted path
    /// such as `emitters.car.gain` or `events[2].at`; empty for the file as a whole) and what is
    /// wrong with it.
    case invalid(file: String, line: Int, column: Int, key: String, reason: String)
    /// The scene file itself cannot be read: `EarshotError.fileNotFound(path:)` or
    /// `EarshotError.unreadableFile(path:reason:)`.
    case unreadable(EarshotError)

    /// Where the scene keys are described, for a reader of an installed package as much as of a
    /// checkout: the package's own copy of the reference.
    static let reference = "every scene key is described in Demos/Scenes/README.md of the Earshot package"

    /// The problem on one line: `FILE:LINE:COLUMN: key: reason (where the keys are described)`,
    /// control characters escaped as `EarshotError.oneLine(_:)` does.
    public var description: String {
        switch self {
        case .invalid(let file, let line, let column, let key, let reason):
            return EarshotError.oneLine(
                "\(file):\(line):\(column): " + (key.isEmpty ? "" : "\(key): ") + reason + " (\(Self.reference))")
        case .unreadable(let error):
            return error.description
        }
    }
}
