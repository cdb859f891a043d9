@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Issue 38's monitor: each room's reverb level, and each voice's way through the rooms, read
/// from the monitor's socket as `earshot monitor --json` reads it. RoomReverbTests' two rooms:
/// the listener in the west room at (−3, 1, 3) facing −z (west rings with `bathroom`), a 250 Hz
/// tone in the east room at (3, 1, 3) (`concerthall`, concrete walls: 30 dB, highs × 0.1); the
/// 1 × 2 m door at (0, 1, 3), on the straight line, 3 m to the listener's right.
final class RoomReverbMonitorTests: XCTestCase {
    private static let listener = Listener(position: Vector3(-3, 1, 3), at: Vector3(0, 0, -1))
    private static let emitter = Vector3(3, 1, 3)

    private static func geometry(open: Float) throws -> AcousticGeometry {
        AcousticGeometry(
            rooms: [Room(id: "west", min: Vector3(-10, 0, -5), max: Vector3(0, 3, 5),
                         reverb: try ReverbProperties.preset(named: "bathroom"), walls: .concrete),
                    Room(id: "east", min: Vector3(0, 0, -5), max: Vector3(10, 3, 5),
                         reverb: try ReverbProperties.preset(named: "concerthall"), walls: .concrete)],
            portals: [Portal(id: "door", between: "west", and: "east", center: Vector3(0, 1, 3), width: 1, height: 2,
                             normal: Vector3(1, 0, 0), openness: open)])
    }

    struct Run {
        let engine: AudioEngine
        let client: MonitorClient
        let voice: Voice
        var out: [Float] = []
        /// The stream's lines so far that were read (hello, frames): a recording.
        var lines: [[UInt8]] = []
    }

    /// A monitored loopback engine with the geometry and the tone looping in the east room.
    static func start(open: Float) throws -> Run {
        let e = try TestSignals.loopbackEngine { $0.monitor = true }
        e.listener = Self.listener
        try e.setGeometry(try Self.geometry(open: open))
        let tone = try e.loadClip(TestSignals.sine(frequency: 250, seconds: 0.2), name: "tone.wav")
        let v = try e.play(tone, options: .init(loop: true, position: Self.emitter))
        let client = try MonitorClient(path: try XCTUnwrap(e.monitorSocketPath))
        return Run(engine: e, client: client, voice: v)
    }

    /// Game frames (kept in `run.out`) until the monitor sends a frame captured at audio time
    /// `after` or later (at most 5 s of wall time).
    static func frame(_ run: inout Run, after: Double) throws -> MonitorFrame? {
        let deadline = Clocks.monotonic() + 5
        while Clocks.monotonic() < deadline {
            run.out += try TestSignals.renderGameFrames(run.engine, seconds: 1.0 / 60)
            while let line = try run.client.nextLine(timeout: 0.002) {
                run.lines.append(line)
                if case .frame(let f) = try MonitorMessage.decode(line: line), f.engine.audioTime >= after { return f }
            }
        }
        return nil
    }

    /// The frame while the tone plays, then the reverb tail's level 0.1…0.8 s after it stops (dB).
    private func measure(open: Float) throws -> (frame: MonitorFrame?, tailDB: Double) {
        var run = try Self.start(open: open)
        defer { run.engine.shutdown() }
        let f = try Self.frame(&run, after: 0.3)
        run.engine.stop(run.voice)
        let tail = try TestSignals.renderGameFrames(run.engine, seconds: 0.8)
        return (f, Level.dB(Level.rms(stream: tail[(48_000 / 5)..<tail.count])))
    }

    /// Both rooms' reverbs are rows: the listener's own all around, the east room from the door on
    /// the right at its way's level (0 dB: the door is on the straight line, no diffraction);
    /// with the door shut the east row falls to the walls' −30 dB, as the rendered tails fall
    /// (RoomReverbTests: at least the walls' loss); the voice's row says how it is heard.
    func testEachRoomsReverbIsARowAtItsWaysLevelFromItsDoor() throws {
        let open = try measure(open: 1)
        let rows = try XCTUnwrap(open.frame?.roomReverbs, "a geometry is set: the section is there")
        XCTAssertEqual(rows.map(\.room), ["west", "east"], "the listener's room first")
        let west = try XCTUnwrap(rows.first), east = try XCTUnwrap(rows.last)
        XCTAssertEqual(west.via, "listener")
        XCTAssertNil(west.portal)
        XCTAssertEqual(west.levelDB, 0, accuracy: 0.01, "the zone of the room the listener is in, at full gain")
        XCTAssertEqual(west.pan, [0, 0, 0])
        XCTAssertEqual(east.via, "portal")
        XCTAssertEqual(east.portal, "door")
        XCTAssertEqual(east.levelDB, 0, accuracy: 0.01)
        XCTAssertGreaterThan(east.pan[0], 0.5, "from the right: \(east.pan)")
        XCTAssertEqual(east.azimuth ?? 0, 90, accuracy: 1)

        // Every per-voice field the issue lists: the voice's room, its way's portals, length,
        // diffraction and transmission.
        let way = try XCTUnwrap(open.frame?.voices.first?.room)
        XCTAssertEqual(way.room, "east")
        XCTAssertEqual(way.listenerRoom, "west")
        XCTAssertEqual(way.via, "portals")
        XCTAssertEqual(way.path, ["door"])
        XCTAssertEqual(way.length, 6, accuracy: 0.01)
        XCTAssertEqual(way.diffractionDB, 0, accuracy: 0.01)
        XCTAssertEqual(way.transmissionDB, -30, accuracy: 0.01, "the walls on the straight line: west's and east's shared wall")

        let shut = try measure(open: 0)
        let eastShut = try XCTUnwrap(shut.frame?.roomReverbs?.first { $0.room == "east" })
        XCTAssertEqual(eastShut.via, "walls")
        XCTAssertNil(eastShut.portal)
        XCTAssertEqual(eastShut.levelDB, -30, accuracy: 0.01, "only the walls' loss")
        XCTAssertEqual(shut.frame?.voices.first?.room?.via, "walls")
        let rowDrop = east.levelDB - eastShut.levelDB, heardDrop = open.tailDB - shut.tailDB
        print("RoomReverbMonitorTests: east row \(east.levelDB) → \(eastShut.levelDB) dB; tails \(open.tailDB) → \(shut.tailDB) dB")
        XCTAssertEqual(heardDrop, rowDrop, accuracy: 1.5, "the row falls as the heard reverb does")
    }

    /// Without geometry the section is absent, and so are the voices' ways; set again, the rows
    /// are back; a room whose reverb no voice feeds, in a room the listener is not in, is no row.
    func testNoGeometryNoRows() throws {
        var run = try Self.start(open: 1)
        defer { run.engine.shutdown() }
        try run.engine.setGeometry(.empty)
        let none = try XCTUnwrap(try Self.frame(&run, after: 0.05))
        XCTAssertNil(none.roomReverbs)
        XCTAssertEqual(none.voices.count, 1)
        XCTAssertNil(none.voices.first?.room)
        try run.engine.setGeometry(try Self.geometry(open: 1))
        let back = try XCTUnwrap(try Self.frame(&run, after: run.engine.audioTime + 0.05))
        XCTAssertEqual(back.roomReverbs?.map(\.room), ["west", "east"])
        run.engine.stop(run.voice)
        let quiet = try XCTUnwrap(try Self.frame(&run, after: run.engine.audioTime + 0.05))
        XCTAssertEqual(quiet.roomReverbs?.map(\.room), ["west"], "east rings for no voice")
    }
}
