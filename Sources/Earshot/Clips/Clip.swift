/// A preloaded sound: decoded audio living in an OpenAL buffer, ready to be played many times.
///
/// A `Clip` is a small handle (the asset); each ``AudioEngine/play(_:options:)-(Clip,_)`` of it makes a
/// ``Voice`` (a playing instance). Handles are generation-counted: once the clip is unloaded,
/// playing the handle throws ``EarshotError/clipUnloaded`` instead of touching a freed buffer.
///
/// A clip belongs to the engine that loaded it: playing it on another engine throws
/// ``EarshotError/wrongEngine`` (never plays that engine's clip in the same slot), and two clips
/// of different engines are never equal.
///
/// ```swift
/// let step = try engine.loadClip(path: "Assets/Sounds/step.wav")
/// print(step.info.duration)
/// ```
public struct Clip: Sendable, Hashable {
    /// The identity of the engine that loaded it (``EngineLink/id``).
    let engineID: UInt64
    let id: UInt32
    let generation: UInt32
    /// What the clip holds.
    public let info: ClipInfo
}

/// The format and size of a loaded clip.
public struct ClipInfo: Sendable, Hashable {
    /// A name for messages: the file path, or the name given when loading from memory.
    public var name: String
    /// Frames per second.
    public var sampleRate: Int
    /// Channels in the OpenAL buffer (1 for every clip loaded for 3D use).
    public var channels: Int
    /// Frames in the buffer.
    public var frameCount: Int
    /// Bytes the OpenAL buffer holds.
    public var byteCount: Int
    /// Whether the buffer holds 32-bit floats (otherwise 16-bit integers).
    public var isFloat: Bool

    /// Duration in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }
}
