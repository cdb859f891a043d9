/// How a voice is heard through the level's rooms now (``AudioEngine/propagation(of:)``): the
/// rooms of the voice and of the listener, the path it takes, how long it is and what it loses.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let clip = try engine.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16([Int16](repeating: 0, count: 480))), name: "tick")
/// let voice = try engine.play(clip, options: PlayOptions(loop: true, position: Vector3(3, 0, 0)))
/// engine.update()
/// if let heard = engine.propagation(of: voice) { print(heard.via, heard.length) }
/// ```
public struct Propagation: Sendable, Equatable {
    /// Which way the sound reaches the listener.
    public enum Route: String, Sendable {
        /// In the listener's room: heard where it is.
        case direct
        /// Through portals: from the last portal's direction, at the path's length.
        case portals
        /// Through the walls on the straight line (louder than any portal path, or none is open).
        case walls
    }
    /// The voice's room and the listener's (nil: outside).
    public var room: String?
    public var listenerRoom: String?
    public var via: Route
    /// The portal path's portal ids, the voice's side first (empty: no open path).
    public var path: [String]
    /// The length of the route heard, metres.
    public var length: Float
    /// The portal path's diffraction and openness loss, and the walls' loss, dB (≤ 0).
    public var diffractionDB: Float
    public var opennessDB: Float
    public var transmissionDB: Float
}
