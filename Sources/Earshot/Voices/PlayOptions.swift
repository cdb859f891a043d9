/// How a voice plays: gain, pitch, looping, and where it is heard from.
///
/// Give a ``position`` for a 3D voice (mono clips only; OpenAL spatialises mono buffers), or leave it
/// `nil` and use ``pan`` for a non-positional voice: −1 hard left, 0 centre, +1 hard right
/// (constant power).
///
/// ```swift
/// _ = try engine.play(step, options: .init(gain: 0.8, position: Vector3(2, 0, -1)))
/// _ = try engine.play(click, options: .init(pan: -1))          // left ear only
/// ```
public struct PlayOptions: Sendable, Equatable {
    /// Linear gain, 0 or more (1 = as recorded).
    public var gain: Float
    /// Playback-rate factor, above 0 (2 = an octave up, twice as fast).
    public var pitch: Float
    /// Loop until stopped.
    public var loop: Bool
    /// 0 is the most important, 255 the least.
    public var priority: UInt8
    /// World position of a 3D voice; `nil` for a non-positional one.
    public var position: Vector3?
    /// Velocity of a 3D voice, for doppler.
    public var velocity: Vector3
    /// Stereo placement of a non-positional voice, −1…+1.
    public var pan: Float

    public init(gain: Float = 1, pitch: Float = 1, loop: Bool = false, priority: UInt8 = 128,
                position: Vector3? = nil, velocity: Vector3 = .zero, pan: Float = 0) {
        self.gain = gain
        self.pitch = pitch
        self.loop = loop
        self.priority = priority
        self.position = position
        self.velocity = velocity
        self.pan = pan
    }

    /// Throws ``EarshotError/invalidArgument(_:)`` for values OpenAL must never see.
    func validate() throws(EarshotError) {
        guard gain.isFinite, gain >= 0 else { throw .invalidArgument("gain \(gain) (must be finite and ≥ 0)") }
        guard pitch.isFinite, pitch > 0 else { throw .invalidArgument("pitch \(pitch) (must be finite and > 0)") }
        guard pan.isFinite, (-1...1).contains(pan) else { throw .invalidArgument("pan \(pan) (must be in −1…1)") }
        if let p = position, !p.isFinite { throw .invalidArgument("position \(p) (must be finite)") }
        guard velocity.isFinite else { throw .invalidArgument("velocity \(velocity) (must be finite)") }
    }

    /// The head-relative position that places a non-positional voice at `pan` with constant power:
    /// on the unit circle in front of the listener, from hard left (−1) to hard right (+1).
    static func panPosition(_ pan: Float) -> Vector3 {
        let angle = pan * .pi / 2
        return Vector3(sinf(angle), 0, -cosf(angle))
    }
}

#if canImport(Glibc)
import Glibc
#endif
