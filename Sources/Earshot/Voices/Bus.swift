/// A named group of voices and tracks that share a gain, mute, pause and stop.
///
/// Four buses always exist: ``sfx`` (the default for voices), ``music`` (every music track;
/// the audio session ducks it), ``ui`` and ``voice`` (dialogue). Make more with
/// ``AudioEngine/addBus(_:)``. A bus's effective gain is
/// `master × bus gain × snapshot × min(duck, sidechain)` (0 when muted): the ``Snapshot``s in force,
/// and the lower of the audio session's duck and the sidechain ``Ducking`` by other buses.
///
/// ```swift
/// engine.setGain(0.5, for: .music)
/// engine.setMuted(true, for: .ui)
/// let footsteps = Bus("footsteps")
/// try engine.addBus(footsteps)
/// ```
public struct Bus: Sendable, Hashable, CustomStringConvertible {
    /// The bus's name (unique in an engine).
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
    /// The buses every engine has, in index order.
    public static let builtIn: [Bus] = [.sfx, .music, .ui, .voice]

    public var description: String { name }
}

/// A bus's mixing state inside the engine.
struct BusState {
    var bus: Bus
    var gain: Float = 1
    var muted = false
    /// Paused by the game; an interruption holds the bus apart (`EngineCore.interruptionHold`).
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
