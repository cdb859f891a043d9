/// An opening between two rooms, or between a room and the outside: a door, a window, an arch.
/// A rectangle (``center``, ``width`` × ``height``, facing ``normal``) that sound goes through,
/// as much as its ``openness`` lets (0: a closed door, only the walls' transmission is left).
///
/// The rectangle's width runs horizontally across the normal, its height along the vertical
/// (for a horizontal portal, a hatch, the width runs along x). Its centre must lie on both
/// rooms' surfaces (within ``AcousticGeometry/surfaceTolerance``).
///
/// ```swift
/// let door = Portal(id: "door", between: "hall", and: "kitchen", center: Vector3(5, 1, 3),
///                   width: 1, height: 2, normal: Vector3(1, 0, 0))
/// let gate = Portal(id: "gate", between: "yard", and: nil, center: Vector3(0, 1.5, -20),
///                   width: 4, height: 3, normal: Vector3(0, 0, 1), openness: 0)   // to the outside, shut
/// ```
public struct Portal: Sendable, Equatable {
    /// The id scenes use for "no room": a portal to the outside names it as its second room.
    public static let outside = "outside"

    public var id: String
    /// The room on one side.
    public var roomA: String
    /// The room on the other side; nil: the outside.
    public var roomB: String?
    public var center: Vector3
    public var width: Float
    public var height: Float
    /// Which way the opening faces (either side; need not be unit length).
    public var normal: Vector3
    /// How open, 0…1: the path's amplitude is scaled by it; 0 closes the path.
    public var openness: Float

    public init(id: String, between roomA: String, and roomB: String?, center: Vector3, width: Float, height: Float,
                normal: Vector3, openness: Float = 1) {
        self.id = id
        self.roomA = roomA
        self.roomB = roomB == Portal.outside ? nil : roomB
        self.center = center
        self.width = width
        self.height = height
        self.normal = normal
        self.openness = openness
    }

    /// Checks the values (not the rooms: ``AcousticGeometry/validated()`` does).
    public func validate() throws(EarshotError) {
        guard !id.isEmpty, id.utf8.count <= AcousticGeometry.maxIDBytes else {
            throw .invalidArgument("portal id \"\(id)\" must be 1…\(AcousticGeometry.maxIDBytes) bytes")
        }
        guard center.isFinite, abs(center.x) <= 1e6, abs(center.y) <= 1e6, abs(center.z) <= 1e6 else {
            throw .invalidArgument("portal \(id): centre \(center) must be finite, within ±1e6 m")
        }
        guard width.isFinite, height.isFinite, width > 0, height > 0, width <= 1e4, height <= 1e4 else {
            throw .invalidArgument("portal \(id): size \(width) × \(height) must be > 0 and ≤ 10,000 m")
        }
        guard normal.isFinite, abs(normal.x) <= 1e6, abs(normal.y) <= 1e6, abs(normal.z) <= 1e6, normal.length > 1e-6 else {
            throw .invalidArgument("portal \(id): normal \(normal) must be a non-zero vector within ±1e6")
        }
        guard openness.isFinite, (0...1).contains(openness) else {
            throw .invalidArgument("portal \(id): openness \(openness) must be 0…1")
        }
        guard roomA != roomB, roomA != Portal.outside else {
            throw .invalidArgument("portal \(id) must join two different rooms (name the outside second)")
        }
    }
}
