import Earshot
import EarshotContent

/// Why a ``SoundBank`` call failed: the bank file (or a bank it includes) has a problem, a name
/// the bank does not define, the engine refused, or the bank was unloaded.
///
/// Its ``description`` is one line: a problem in a file reads `FILE:LINE:COLUMN: key: reason`
/// (as `earshot validate` prints it); an unknown name names the bank file and the nearest name
/// it defines.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let bank = try SoundBank(path: "Demos/Bank/game.yaml", engine: engine)
/// do {
///     _ = try bank.play("footstpe")
/// } catch {
///     print(error)   // Demos/Bank/game.yaml: no sound named "footstpe" (the nearest is "footstep")
/// }
/// ```
public enum BankError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A problem at a place in the bank file or in a file it includes (`SceneError`): every
    /// one found, in file order (at least one).
    case invalid([SceneError])
    /// The bank defines nothing of this kind by this name: the bank file, what was asked for
    /// (`sound`, `snapshot`, `music track`, `zone`), the name, and the nearest name of that kind
    /// the bank defines by edit distance (nil when it defines none).
    case unknownName(bank: String, kind: String, name: String, nearest: String?)
    /// The engine refused (a clip over the memory budget, the engine shut down, …).
    case engine(EarshotError)
    /// ``SoundBank/unload()`` ran (or the engine shut down): the bank has nothing to play.
    case unloaded(bank: String)

    public var description: String {
        switch self {
        case .invalid(let problems):
            return problems.map(\.description).joined(separator: "\n")
        case .unknownName(let bank, let kind, let name, let nearest):
            return EarshotError.oneLine("\(bank): no \(kind) named \"\(name)\""
                + (nearest.map { " (the nearest is \"\($0)\")" } ?? " (the bank defines none)"))
        case .engine(let error):
            return error.description
        case .unloaded(let bank):
            return EarshotError.oneLine("\(bank): the bank is unloaded")
        }
    }
}
