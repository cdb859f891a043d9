@testable import Earshot
import XCTest

/// The room lookup a moving voice uses (``RoomLookup/room(at:near:)``: only the rooms whose
/// bounds meet the room it was in) answers as the full scan does, whatever the hint: rooms in a
/// grid sharing walls, a turned room, a nested one of higher priority and one of equal priority.
final class RoomLookupHintTests: XCTestCase {
    func testTheHintedLookupAnswersAsTheFullScan() {
        var rooms: [Room] = []
        for i in 0..<4 { for j in 0..<3 {
            rooms.append(Room(id: "g\(i)_\(j)", min: Vector3(Float(i) * 10, 0, Float(j) * 10),
                              max: Vector3(Float(i + 1) * 10, 3, Float(j + 1) * 10)))
        } }
        rooms.append(Room(id: "turned", center: Vector3(45, 1.5, 15), size: Vector3(8, 3, 4), rotation: 0.6))
        rooms.append(Room(id: "closet", min: Vector3(12, 0, 12), max: Vector3(14, 3, 14), priority: 1))
        rooms.append(Room(id: "alcove", min: Vector3(28, 0, 2), max: Vector3(30, 3, 4)))
        let lookup = RoomLookup(rooms: rooms)
        var g = SystemRandomNumberGenerator()
        var checked = 0, hintHeld = 0
        for _ in 0..<20_000 {
            // On a 0.5 m lattice now and then, so points land on shared walls.
            let snap = Bool.random(using: &g)
            func coordinate(_ range: ClosedRange<Float>) -> Float {
                let v = Float.random(in: range, using: &g)
                return snap ? (v * 2).rounded() / 2 : v
            }
            let p = Vector3(coordinate(-2...52), coordinate(-0.5...3.5), coordinate(-2...32))
            let hint = Int.random(in: -1...rooms.count, using: &g)
            let full = lookup.room(at: p)
            XCTAssertEqual(lookup.room(at: p, near: hint), full, "\(p) near \(hint)")
            // The case that matters: the room it was in a moment ago.
            XCTAssertEqual(lookup.room(at: p, near: full), full, "\(p)")
            if full < rooms.count { hintHeld += 1 }
            checked += 1
        }
        XCTAssertGreaterThan(hintHeld, checked / 2, "most points are in a room")
    }
}
