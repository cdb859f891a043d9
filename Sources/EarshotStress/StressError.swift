/// A failure of the raw-OpenAL baseline of a stress run (the engine's failures are
/// `EarshotError`s).
///
/// `earshot stress` lets it end the command with its description, which names the AL call or
/// setup step that failed.
///
/// ```swift
/// do { _ = try StressWorkload(voices: 8, seconds: 1).run() }
/// catch let error as StressError { print(error) }  // "raw OpenAL baseline failed at …"
/// ```
public enum StressError: Error, CustomStringConvertible {
    /// An OpenAL call or setup step of the baseline failed (what: which one).
    case openAL(String)

    public var description: String {
        switch self {
        case .openAL(let what): return "raw OpenAL baseline failed at \(what)"
        }
    }
}
