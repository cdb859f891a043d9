@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Another room's reverb, measured on loopback renders: the listener stands in a dry west room
/// at (−3, 1, 3) facing −z, so the 1 × 2 m door in the shared wall x = 0 (centre (0, 1, 3)) is
/// 3 m to its right; a noise burst plays in the east room at (3, 1, 3), whose reverb is the
/// `concerthall` preset (decay 3.92 s, the same below 250 Hz, shorter only above 5 kHz) and
/// whose walls are concrete (30 dB). The voice feeds the east room's reverb through its second
/// send; the listener hears that reverb from the door.
final class RoomReverbTests: XCTestCase {
    private let rate = 48_000
    private static let listener = Listener(position: Vector3(-3, 1, 3), at: Vector3(0, 0, -1))
    private static let emitter = Vector3(3, 1, 3)

    private static func geometry(open: Float, west: ReverbProperties? = nil) throws -> AcousticGeometry {
        AcousticGeometry(
            rooms: [Room(id: "west", min: Vector3(-10, 0, -5), max: Vector3(0, 3, 5), reverb: west, walls: .concrete),
                    Room(id: "east", min: Vector3(0, 0, -5), max: Vector3(10, 3, 5),
                         reverb: try ReverbProperties.preset(named: "concerthall"), walls: .concrete)],
            portals: [Portal(id: "door", between: "west", and: "east", center: Vector3(0, 1, 3), width: 1, height: 2,
                             normal: Vector3(1, 0, 0), openness: open)])
    }

    /// A 0.3 s noise burst in the east room, then `tail` seconds; interleaved stereo from the
    /// burst's end, and what the rooms decided for the voice.
    private func tail(open: Float, seconds: Double, west: ReverbProperties? = nil, loseDevice: Bool = false)
        throws -> (out: [Float], heard: Propagation?)
    {
        let e = try TestSignals.loopbackEngine { $0.keepsClipsForRecovery = true }
        defer { e.shutdown() }
        e.listener = Self.listener
        try e.setGeometry(try Self.geometry(open: open, west: west))
        if loseDevice {
            try playOnce(e)
            e.simulateDeviceLoss()
            for _ in 0..<500 {
                try TestSignals.renderGameFrames(e, seconds: 1.0 / 60)
                guard e.isDeviceLost else { break }
                usleep(2_000)
            }
            XCTAssertFalse(e.isDeviceLost, "recovered")
        }
        guard case .int16(let s) = TestSignals.whiteNoise(sampleRate: rate).samples else { return ([], nil) }
        let burst = try e.loadClip(PCMAudio(sampleRate: rate, channels: 1, samples: .int16(Array(s[0..<(rate * 3 / 10)]))),
                                   name: "burst")
        let v = try e.play(burst, options: .init(position: Self.emitter))
        try TestSignals.renderGameFrames(e, seconds: 0.1)
        let heard = e.propagation(of: v)
        try TestSignals.renderGameFrames(e, seconds: 0.2)
        return (try TestSignals.renderGameFrames(e, seconds: seconds), heard)
    }

    /// The room reverb's slots exist before the loss: a burst is played and rendered once.
    private func playOnce(_ e: AudioEngine) throws {
        let clip = try e.loadClip(PCMAudio(sampleRate: rate, channels: 1, samples: .int16([Int16](repeating: 1000, count: 480))),
                                  name: "tick")
        _ = try e.play(clip, options: .init(position: Self.emitter))
        try TestSignals.renderGameFrames(e, seconds: 0.05)
    }

    private func channel(_ x: [Float], _ c: Int, from: Double, to: Double) -> Double {
        Level.dB(Level.rms(x, channel: c, from: Int(from * Double(rate)), to: Int(to * Double(rate))))
    }

    /// The east room's tail arrives from the door's side (the right channel louder), decays in
    /// its preset's time (T60 of the 1 kHz band within 10 %), and a closed door takes it down by
    /// at least the walls' 30 dB.
    func testTheNextRoomsTailComesFromItsDoorInItsOwnTime() throws {
        let open = try tail(open: 1, seconds: 3)
        XCTAssertEqual(open.heard?.via, .portals)
        XCTAssertEqual(open.heard?.room, "east")
        XCTAssertEqual(open.heard?.listenerRoom, "west")

        let left = channel(open.out, 0, from: 0.05, to: 0.8), right = channel(open.out, 1, from: 0.05, to: 0.8)
        let mono = stride(from: 0, to: open.out.count, by: 2).map { open.out[$0] + open.out[$0 + 1] }
        let t60 = ReverbMeasures.decayTime(ReverbMeasures.midBand(mono, rate: rate), rate: rate)
        let preset = try ReverbProperties.preset(named: "concerthall")

        let closed = try tail(open: 0, seconds: 0.8)
        XCTAssertEqual(closed.heard?.via, .walls)
        // 0.1…0.8 s after the burst, both channels (interleaved).
        let openLevel = Level.dB(Level.rms(stream: open.out[(rate / 5)..<(rate * 8 / 5)])),
            closedLevel = Level.dB(Level.rms(stream: closed.out[(rate / 5)..<(rate * 8 / 5)]))
        print("""
            RoomReverbTests: the east room's tail left \(left) dB, right \(right) dB; T60 \(t60) s \
            (preset \(preset.decayTime) s); door open \(openLevel) dB, closed \(closedLevel) dB
            """)
        XCTAssertGreaterThan(left, -80, "the next room's reverb is heard")
        XCTAssertGreaterThan(right - left, 3, "from the door's side")
        XCTAssertEqual(t60, Double(preset.decayTime), accuracy: Double(preset.decayTime) * 0.1)
        XCTAssertLessThanOrEqual(closedLevel, openLevel - Double(Walls.concrete.loss), "a closed door leaves the walls")
    }

    /// The listener's own room rings all around it beside the next room's reverb (both sends at
    /// once): with the `bathroom` reverb (1.49 s) in the west room the early tail's left channel
    /// (where the east reverb is faint) rises, and the late tail (when the bathroom's is 50 dB
    /// down) still comes from the door.
    func testTheListenersRoomRingsBesideTheNextRooms() throws {
        let dry = try tail(open: 1, seconds: 1.6)
        let wet = try tail(open: 1, seconds: 1.6, west: try ReverbProperties.preset(named: "bathroom"))
        let earlyDry = channel(dry.out, 0, from: 0.02, to: 0.2), earlyWet = channel(wet.out, 0, from: 0.02, to: 0.2)
        let lateLeft = channel(wet.out, 0, from: 1.2, to: 1.6), lateRight = channel(wet.out, 1, from: 1.2, to: 1.6)
        print("RoomReverbTests: early left dry west \(earlyDry) dB, bathroom \(earlyWet) dB; late left \(lateLeft) dB, right \(lateRight) dB")
        XCTAssertGreaterThan(earlyWet - earlyDry, 3, "the listener's room rings")
        XCTAssertGreaterThan(lateRight - lateLeft, 3, "the next room's tail still from its door")
    }

    /// After a device loss the next room's reverb is back, from its door.
    func testTheNextRoomsReverbIsBackAfterADeviceLoss() throws {
        let after = try tail(open: 1, seconds: 0.8, loseDevice: true)
        let left = channel(after.out, 0, from: 0.05, to: 0.8), right = channel(after.out, 1, from: 0.05, to: 0.8)
        print("RoomReverbTests: after a device loss left \(left) dB, right \(right) dB")
        XCTAssertGreaterThan(left, -80)
        XCTAssertGreaterThan(right - left, 3)
    }
}
