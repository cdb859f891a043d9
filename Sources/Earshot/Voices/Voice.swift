/// A handle to one playing instance of a ``Clip``.
///
/// Handles are generation-counted: when the voice finishes or is stopped, its slot may be reused,
/// and the old handle goes stale safely — ``isPlaying`` is false and setters do nothing.
///
/// ```swift
/// let voice = try engine.play(engineLoop, options: .init(loop: true))
/// // later
/// voice.stop()
/// assert(!voice.isPlaying)
/// ```
public struct Voice: Sendable, Hashable {
    let engine: AudioEngine
    let id: VoiceID

    /// Whether the voice is still playing.
    public var isPlaying: Bool { engine.isPlaying(self) }

    /// The voice's world position (3D voices). Reading a stale handle gives `nil`; setting a
    /// non-finite position or setting a stale handle does nothing.
    public var position: Vector3? {
        get { engine.position(of: self) }
        nonmutating set { if let newValue { engine.setPosition(newValue, of: self) } }
    }

    /// Stops the voice (a stale handle does nothing).
    public func stop() { engine.stop(self) }

    public static func == (a: Voice, b: Voice) -> Bool { a.engine === b.engine && a.id == b.id }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(engine))
        hasher.combine(id)
    }
}

/// A slot index and the generation that was current when the handle was made.
struct VoiceID: Hashable, Sendable {
    var index: UInt32
    var generation: UInt32
}
