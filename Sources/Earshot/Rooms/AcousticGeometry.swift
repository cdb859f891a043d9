/// The level's rooms and the portals between them, as the game hands them to
/// ``AudioEngine/setGeometry(_:)`` (which replaces the whole geometry at once).
///
/// The rules it is held to (``validated()``): unique ids; every portal names rooms that exist
/// (or the outside) and its centre lies on both rooms' surfaces; no two rooms of equal priority
/// overlap unless one contains the other; at most ``maxRooms`` rooms, ``maxPortals`` portals and
/// ``maxPortalsPerRoom`` portals on one room (the outside included). Rooms no portal reaches are
/// allowed (a sealed vault is heard only through its walls): ``warnings`` lists them.
///
/// ```swift
/// let geometry = AcousticGeometry(
///     rooms: [Room(id: "west", min: Vector3(-10, 0, -5), max: Vector3(0, 3, 5)),
///             Room(id: "east", min: Vector3(0, 0, -5), max: Vector3(10, 3, 5))],
///     portals: [Portal(id: "door", between: "west", and: "east", center: Vector3(0, 1, 3),
///                      width: 1, height: 2, normal: Vector3(1, 0, 0))])
/// let checked = try geometry.validated()
/// ```
public struct AcousticGeometry: Sendable, Equatable {
    public var rooms: [Room]
    public var portals: [Portal]

    public init(rooms: [Room] = [], portals: [Portal] = []) {
        self.rooms = rooms
        self.portals = portals
    }

    /// No geometry: every voice is heard as in a free field.
    public static let empty = AcousticGeometry()

    public static let maxRooms = 1024
    public static let maxPortals = 4096
    public static let maxPortalsPerRoom = 256
    public static let maxIDBytes = 256
    /// How far a portal's centre may be from a room's surface and still touch it (a wall's
    /// thickness), metres.
    public static let surfaceTolerance: Float = 0.3
    /// The most portals a path goes through; rooms farther are heard only through walls.
    public static let maxPathHops = 8

    public var isEmpty: Bool { rooms.isEmpty && portals.isEmpty }

    /// The geometry, checked; the first problem throws ``EarshotError/invalidArgument(_:)``.
    public func validated() throws(EarshotError) -> AcousticGeometry {
        guard rooms.count <= Self.maxRooms, portals.count <= Self.maxPortals else {
            throw .invalidArgument("geometry has \(rooms.count) rooms and \(portals.count) portals (limits \(Self.maxRooms), \(Self.maxPortals))")
        }
        var index: [String: Int] = [:]
        for (i, r) in rooms.enumerated() {
            try r.validate()
            guard index.updateValue(i, forKey: r.id) == nil else { throw .invalidArgument("two rooms have the id \"\(r.id)\"") }
        }
        let boxes = rooms.map(RoomBox.init)
        for i in boxes.indices {
            for j in boxes.indices where j > i && rooms[i].priority == rooms[j].priority {
                if boxes[i].overlaps(boxes[j]), !boxes[i].contains(boxes[j]), !boxes[j].contains(boxes[i]) {
                    throw .invalidArgument("rooms \(rooms[i].id) and \(rooms[j].id) overlap with equal priority \(rooms[i].priority): give the inner one a higher priority")
                }
            }
        }
        var portalIDs = Set<String>()
        var perRoom = [Int](repeating: 0, count: rooms.count + 1)
        for p in portals {
            try p.validate()
            guard portalIDs.insert(p.id).inserted else { throw .invalidArgument("two portals have the id \"\(p.id)\"") }
            for name in [p.roomA, p.roomB] {
                guard let name else { perRoom[rooms.count] += 1; continue }
                guard let r = index[name] else {
                    throw .invalidArgument("portal \(p.id) joins room \"\(name)\", which the geometry does not have")
                }
                guard boxes[r].surfaceDistance(p.center) <= Self.surfaceTolerance else {
                    throw .invalidArgument("portal \(p.id) at \(p.center) does not touch the surface of room \(name) (more than \(Self.surfaceTolerance) m away)")
                }
                perRoom[r] += 1
            }
        }
        if let worst = perRoom.indices.max(by: { perRoom[$0] < perRoom[$1] }), perRoom[worst] > Self.maxPortalsPerRoom {
            throw .invalidArgument("\(worst < rooms.count ? "room " + rooms[worst].id : "the outside") has \(perRoom[worst]) portals (limit \(Self.maxPortalsPerRoom))")
        }
        return self
    }

    /// What a checked geometry may still get wrong: rooms no portal reaches.
    public var warnings: [String] {
        let reached = Set(portals.flatMap { [$0.roomA, $0.roomB].compactMap { $0 } })
        return rooms.filter { !reached.contains($0.id) }.map { "room \($0.id): no portal reaches it (heard only through its walls)" }
    }
}
