/// A room of the level's acoustic geometry: a box (axis-aligned, or turned about the vertical
/// axis), its walls' transmission, its reverb, and a priority for nested rooms.
///
/// A point in two rooms is in the one with the higher ``priority``; at equal priority (allowed
/// only when one room lies inside the other) the smaller one: a closet in a hall, a cabin in a
/// hangar. A point in no room is *outside*.
///
/// ```swift
/// let hall = Room(id: "hall", center: Vector3(0, 1.5, 0), size: Vector3(10, 3, 10),
///                 reverb: try ReverbProperties.preset(named: "hallway"), walls: .concrete)
/// let closet = Room(id: "closet", min: Vector3(3, 0, 3), max: Vector3(5, 3, 5), walls: .wood, priority: 1)
/// ```
public struct Room: Sendable, Equatable {
    /// Unique within the geometry (and not `outside`).
    public var id: String
    /// The box's centre and full size, metres.
    public var center: Vector3
    public var size: Vector3
    /// Turn of the box about the vertical (+y) axis, degrees, counter-clockwise seen from above.
    public var rotation: Float
    /// Its reverb (nil: dry).
    public var reverb: ReverbProperties?
    /// What its walls let through.
    public var walls: Walls
    /// Higher wins where rooms nest (−1000…1000).
    public var priority: Int

    public init(id: String, center: Vector3, size: Vector3, rotation: Float = 0, reverb: ReverbProperties? = nil,
                walls: Walls = .concrete, priority: Int = 0) {
        self.id = id
        self.center = center
        self.size = size
        self.rotation = rotation
        self.reverb = reverb
        self.walls = walls
        self.priority = priority
    }

    /// An axis-aligned room from its two corners.
    public init(id: String, min: Vector3, max: Vector3, reverb: ReverbProperties? = nil, walls: Walls = .concrete,
                priority: Int = 0) {
        self.init(id: id, center: (min + max) * 0.5, size: max - min, reverb: reverb, walls: walls, priority: priority)
    }

    /// Checks every value; a bad one throws ``EarshotError/invalidArgument(_:)``.
    public func validate() throws(EarshotError) {
        guard !id.isEmpty, id.utf8.count <= AcousticGeometry.maxIDBytes, id != Portal.outside else {
            throw .invalidArgument("room id \"\(id)\" must be 1…\(AcousticGeometry.maxIDBytes) bytes and not \"\(Portal.outside)\"")
        }
        guard center.isFinite, abs(center.x) <= 1e6, abs(center.y) <= 1e6, abs(center.z) <= 1e6 else {
            throw .invalidArgument("room \(id): centre \(center) must be finite, within ±1e6 m")
        }
        guard size.isFinite, size.x > 0, size.y > 0, size.z > 0, size.x <= 1e6, size.y <= 1e6, size.z <= 1e6 else {
            throw .invalidArgument("room \(id): size \(size) must be > 0 and ≤ 1e6 m on every axis")
        }
        guard rotation.isFinite, abs(rotation) <= 360 else {
            throw .invalidArgument("room \(id): rotation \(rotation)° must be within ±360")
        }
        guard walls.isValid else {
            throw .invalidArgument("room \(id): walls loss \(walls.loss) dB must be 0…120 and hf \(walls.hf) 0…1")
        }
        guard (-1000...1000).contains(priority) else {
            throw .invalidArgument("room \(id): priority \(priority) must be −1000…1000")
        }
        if let reverb { _ = try ReverbZone(name: id, shape: .sphere(center: center, radius: 1), reverb: reverb).validated() }
    }
}
