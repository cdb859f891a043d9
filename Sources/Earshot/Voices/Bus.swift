/// A named group of voices and tracks that share a gain, mute, pause and stop.
///
/// Four buses always exist: ``sfx`` (the default for voices), ``music`` (every music track;
/// the audio session ducks it), ``ui`` and ``voice`` (dialogue). Make more with
/// ``AudioEngine/addBus(_:)``. A bus's effective gain is `master × bus gain × duck` (0 when muted).
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
    /// Gain applied by ducking (1 = none); ramped by the session.
    var duck: Float = 1

    /// The gain every voice on the bus is multiplied by (without master).
    var effectiveGain: Float { muted ? 0 : gain * duck }
}
