/// A named group of voices and tracks that share a gain, mute, pause and stop.
///
/// Five buses always exist: ``sfx`` (the default for voices), ``music`` (every music track;
/// the audio session ducks it), ``ui``, ``voice`` (dialogue) and ``ambience`` (beds and
/// background loops, which dialogue ducks with music). Make more with
/// ``AudioEngine/addBus(_:)``. A bus's effective gain is
/// `master × bus gain × snapshot × min(duck, sidechain)` (0 when muted): the ``Snapshot``s in force,
/// and the lower of the audio session's duck and the sidechain ``Ducking`` by other buses.
///
/// Buses form a tree: a bus added with a `parent` (``AudioEngine/addBus(_:parent:)``) is a child
/// of that group bus, whose gain, mute, pause, snapshots, ducking and filter apply to it too — a
/// child's effective gain is the product along its path from the master, times the ``VCA``s of
/// each bus on the path. The built-in buses are children of the master.
///
/// ```swift
/// try engine.setGain(0.5, for: .music)
/// try engine.setMuted(true, for: .ui)
/// let footsteps = Bus("footsteps")
/// try engine.addBus(footsteps)
/// ```
///
/// Every call that names a bus the engine does not have throws
/// ``EarshotError/invalidArgument(_:)`` and changes nothing:
///
/// ```swift
/// do { try engine.setGain(0.5, for: Bus("musci")) } catch { print(error) }   // no bus named "musci"
/// ```
public struct Bus: Sendable, Hashable, CustomStringConvertible {
    /// The bus's name (unique in an engine; not empty, printable, at most ``maxNameBytes`` UTF-8
    /// bytes: see ``validate()``).
    public let name: String
    public init(_ name: String) { self.name = name }

    /// Sound effects: the default bus of ``PlayOptions``.
    public static let sfx = Bus("sfx")
    /// Music tracks; ducked by the secondary-audio hint.
    public static let music = Bus("music")
    /// Interface sounds.
    public static let ui = Bus("ui")
    /// Dialogue.
    public static let voice = Bus("voice")
    /// Ambience: beds and background loops (ducked with music under dialogue).
    public static let ambience = Bus("ambience")
    /// The buses every engine has, in index order.
    public static let builtIn: [Bus] = [.sfx, .music, .ui, .voice, .ambience]

    public var description: String { name }

    /// The longest bus name, in UTF-8 bytes.
    public static let maxNameBytes = 64

    /// The most buses a path from the master down to a bus may hold (a child of the master is
    /// 1, its child 2, …): ``AudioEngine/addBus(_:parent:)`` and ``AudioEngine/setParent(_:of:)``
    /// refuse deeper trees.
    public static let maxTreeDepth = 8

    /// Checks the name: not empty, at most ``maxNameBytes`` UTF-8 bytes, printable (no control or
    /// format characters such as a newline, a tab or a zero-width joiner, and not only spaces).
    /// ``AudioEngine/addBus(_:)`` runs it; a name that fails throws
    /// ``EarshotError/invalidArgument(_:)``.
    ///
    /// ```swift
    /// try Bus("footsteps").validate()          // fine
    /// // try Bus("").validate()                // throws: a bus needs a name
    /// ```
    public func validate() throws(EarshotError) {
        guard !name.isEmpty else { throw .invalidArgument("a bus needs a name") }
        let bytes = name.utf8.count
        guard bytes <= Self.maxNameBytes else {
            throw .invalidArgument("bus name of \(bytes) UTF-8 bytes is longer than \(Self.maxNameBytes)")
        }
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .unassigned, .privateUse, .lineSeparator, .paragraphSeparator:
                throw .invalidArgument("bus name \(name.debugDescription) holds a character that does not print (U+\(String(scalar.value, radix: 16, uppercase: true)))")
            default: continue
            }
        }
        guard name.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw .invalidArgument("bus name \(name.debugDescription) is only spaces")
        }
    }
}

/// A bus's mixing state inside the engine (``BusTable`` owns it; each factor has one writer).
struct BusState {
    var bus: Bus
    var gain: Float = 1
    var muted = false
    /// Paused by the game; an interruption holds the bus apart (`BusTable.interruptionHold`).
    var paused = false
    /// Gain applied by the session's ducking (1 = none); ramped by the session.
    var duck: Float = 1
    /// The active snapshots' combined factor (1 = none); written by the engine's mix.
    var snapshot: Float = 1
    /// The sidechain ducking by other buses (1 = none; the lowest ducking wins); written by the
    /// engine's mix.
    var sidechain: Float = 1

    /// The gain every voice on the bus is multiplied by (without master): the session's duck and
    /// the sidechain do not stack, the lower of the two wins.
    var effectiveGain: Float { muted ? 0 : gain * snapshot * min(duck, sidechain) }
}
