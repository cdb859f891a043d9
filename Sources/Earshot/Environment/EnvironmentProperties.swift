/// How the world between a sound and the listener changes it: walls, pillars, air, and how much
/// of the sound reaches the reverb zones.
///
/// The game computes occlusion and obstruction from its own geometry (ray casts, portals) and
/// sets them per emitter (``AudioEngine/setEnvironment(_:of:)-(_,Emitter)``) or per voice; the
/// engine turns them into low-pass filters through its ``AudioEngine/occlusionCurve`` and glides
/// every change over ``glideTime`` so nothing clicks:
/// - **occlusion** 0…1 — a wall between them: the direct sound *and* its reverb are muffled;
/// - **obstruction** 0…1 — something in the way in the same room: the direct sound only;
/// - **airAbsorption** 0…10 — OpenAL's air absorption factor: highs fade with distance
///   (1 is about −0.05 dB per metre at 5 kHz; 0 turns it off);
/// - **sendGain** 0…1 — how much of the sound reaches the reverb zones at all.
///
/// Panned (non-positioned) voices are never filtered: a menu click is not behind a wall.
///
/// ```swift
/// let engine = try AudioEngine(configuration: .init(output: .loopback(sampleRate: 48_000)))
/// let monster = try engine.makeEmitter(SpatialProperties(position: Vector3(0, 0, -8)))
/// engine.setEnvironment(EnvironmentProperties(occlusion: 0.8), of: monster)   // behind a wall
/// ```
public struct EnvironmentProperties: Sendable, Equatable {
    /// A wall between the sound and the listener, 0…1: filters the direct path and the sends.
    public var occlusion: Float
    /// Something in the way in the same room, 0…1: filters the direct path only.
    public var obstruction: Float
    /// OpenAL's air absorption factor, 0…10.
    public var airAbsorption: Float
    /// The level of the sends to the reverb zones, 0…1.
    public var sendGain: Float

    /// Seconds a change of occlusion, obstruction or send gain takes to arrive (a glide).
    public static let glideTime = 0.05

    public init(occlusion: Float = 0, obstruction: Float = 0, airAbsorption: Float = 0, sendGain: Float = 1) {
        self.occlusion = occlusion
        self.obstruction = obstruction
        self.airAbsorption = airAbsorption
        self.sendGain = sendGain
    }

    /// Nothing in the way: no filter, full sends.
    public static let open = EnvironmentProperties()

    /// Whether every value is finite and in its range.
    public var isValid: Bool {
        (0...1).contains(occlusion) && (0...1).contains(obstruction) && (0...10).contains(airAbsorption)
            && (0...1).contains(sendGain)
    }
}
