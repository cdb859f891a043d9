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
/// A clip carries its ``markers``: those of its file (read when it is loaded from a path or from
/// bytes), or those given in code (``withMarkers(_:)``, ``AudioEngine/loadClip(path:forPositioning:markers:)``).
/// They are part of the handle's value: two handles of one loaded clip with different markers
/// play the same buffer but are not equal.
///
/// ```swift
/// let step = try engine.loadClip(path: "Assets/Sounds/step.wav")
/// print(step.info.duration, step.markers.map(\.name))
/// ```
public struct Clip: Sendable, Hashable {
    /// The identity of the engine that loaded it (``EngineLink/id``).
    let engineID: UInt64
    let id: UInt32
    let generation: UInt32
    /// What the clip holds.
    public let info: ClipInfo
    /// Named places in the clip (cue points, regions, loops), by frame, in frames of the clip
    /// (``ClipInfo/sampleRate`` frames per second). See ``Marker``.
    public internal(set) var markers: [Marker] = []
    /// The gain every voice of this handle starts with, multiplied into its play's gain (1 unless
    /// set with ``withGain(_:)``, as a scene's or bank's clip `loudness:` does; Clip+Gain.swift).
    /// Part of the handle's value, like ``markers``.
    public internal(set) var gain: Float = 1

    /// This clip with `markers` instead of its own (for instance the file's plus some of yours:
    /// `clip.withMarkers(clip.markers + [Marker(name: "hit", frame: 4_800)])`), sorted by frame.
    ///
    /// Throws ``EarshotError/invalidArgument(_:)`` for a marker outside the clip — a frame below 0
    /// or past ``ClipInfo/frameCount``, a negative length or one that runs past the end — or for
    /// more than ``MarkerReader/maxMarkers`` markers. The handle is not checked against an
    /// engine: an unloaded clip's handle with markers still refuses to play.
    ///
    /// ```swift
    /// let line = try engine.loadClip(path: "Assets/Sounds/step.wav")
    ///     .withMarkers([Marker(name: "hit", frame: 4_800)])
    /// ```
    public func withMarkers(_ markers: [Marker]) throws(EarshotError) -> Clip {
        guard markers.count <= MarkerReader.maxMarkers else {
            throw .invalidArgument(
                "\(info.name): \(markers.count) markers (at most \(MarkerReader.maxMarkers), MarkerReader.maxMarkers)")
        }
        for m in markers {
            guard m.frame >= 0, m.frame <= info.frameCount else {
                throw .invalidArgument(
                    "\(info.name): marker '\(m.name)' at frame \(m.frame), outside the clip's 0…\(info.frameCount)")
            }
            if let length = m.length {
                guard length >= 0, length <= info.frameCount - m.frame else {
                    throw .invalidArgument(
                        "\(info.name): marker '\(m.name)' of \(length) frames from frame \(m.frame) runs past the clip's \(info.frameCount) frames"
                    )
                }
            }
        }
        var copy = self
        copy.markers = MarkerReader.finish(markers, frameCount: info.frameCount).markers
        return copy
    }
}

/// The format and size of a loaded clip.
///
/// ```swift
/// let step = try engine.loadClip(path: "Assets/Sounds/step.wav")
/// print(step.info.sampleRate, step.info.channels, step.info.duration, step.info.byteCount)
/// ```
public struct ClipInfo: Sendable, Hashable {
    /// A name for messages: the file path, or the name given when loading from memory.
    public var name: String
    /// Frames per second.
    public var sampleRate: Int
    /// Channels in the OpenAL buffer: 1 or 2 (a file of more channels loaded for positioning is
    /// mixed down to 1).
    public var channels: Int
    /// Frames in the buffer.
    public var frameCount: Int
    /// Bytes the OpenAL buffer holds.
    public var byteCount: Int
    /// Whether the buffer holds 32-bit floats (otherwise 16-bit integers).
    public var isFloat: Bool

    /// Bytes the clip takes in OpenAL's memory and from every clip budget: ``byteCount``, twice
    /// for a stereo clip, whose channels are also uploaded as mono buffers so that a 2D stereo
    /// voice's `pan` is a balance (Engine/EngineCore+ClipChannels.swift).
    public var memoryBytes: Int { EngineCore.budgetBytes(byteCount, channels: channels) }

    /// Duration in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }
}
