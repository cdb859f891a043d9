/// The listener: where the player's ears are and which way they face.
///
/// A value type: change it and assign it back to ``AudioEngine/listener``; the engine pushes it to
/// OpenAL (batched with the frame's other 3D changes once voices are managed by `update`).
///
/// ```swift
/// var ears = engine.listener
/// ears.position = Vector3(0, 1.7, 0)
/// ears.at = Vector3(1, 0, 0)        // face +x
/// engine.listener = ears
/// ```
public struct Listener: Sendable, Equatable {
    /// Position in world space.
    public var position: Vector3 = .zero
    /// Velocity, for the doppler effect (units per second).
    public var velocity: Vector3 = .zero
    /// The direction the listener faces ("at" vector).
    public var at: Vector3 = Vector3(0, 0, -1)
    /// The listener's up direction.
    public var up: Vector3 = Vector3(0, 1, 0)
    /// Master gain applied by OpenAL to everything heard (`AL_GAIN` of the listener). With
    /// several listeners (<doc:SeveralListeners>) the first's gain is the output's.
    public var gain: Float = 1
    /// How strongly this listener claims the voices near it when the engine has several
    /// (``AudioEngine/listeners``), 0…1: 0 ignores it, 1 (the default) is a full listener. With
    /// one listener it has no effect.
    public var weight: Float = 1

    public init(position: Vector3 = .zero, velocity: Vector3 = .zero, at: Vector3 = Vector3(0, 0, -1),
                up: Vector3 = Vector3(0, 1, 0), gain: Float = 1, weight: Float = 1) {
        self.position = position
        self.velocity = velocity
        self.at = at
        self.up = up
        self.gain = gain
        self.weight = weight
    }

    /// Whether every value can be passed to OpenAL (finite, non-degenerate orientation — `at`
    /// and `up` not parallel —, gain ≥ 0, weight 0…1).
    public var isValid: Bool {
        position.isFinite && velocity.isFinite && at.isFinite && up.isFinite
            && at.length > 0 && up.length > 0 && at.cross(up).length > 1e-6 * at.length * up.length
            && gain.isFinite && gain >= 0 && weight.isFinite && (0...1).contains(weight)
    }
}
