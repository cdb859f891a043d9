import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Several listeners (split screen) heard through the loopback device: each voice from its
/// nearest listener, a continuous hand-over, weights; the API's errors.
final class SeveralListenersTests: XCTestCase {
    /// A 48 kHz loopback engine with `listeners`, an emitter at `at` playing a looping 500 Hz
    /// tone from the start.
    private func scene(_ listeners: [Listener], emitterAt at: Vector3) throws -> (AudioEngine, Emitter) {
        let engine = try TestSignals.loopbackEngine()
        try engine.setListeners(listeners)
        let tone = try engine.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.5, seconds: 0.5), name: "tone")
        let emitter = try engine.makeEmitter(SpatialProperties(position: at))
        _ = try engine.play(tone, options: .init(loop: true, emitter: emitter))
        return (engine, emitter)
    }

    /// Per-channel RMS (dB) of 0.1 s after 20 ms.
    private func levels(_ listeners: [Listener], emitterAt at: Vector3) throws -> [Double] {
        let (engine, _) = try scene(listeners, emitterAt: at)
        defer { engine.shutdown() }
        engine.update()
        let out = try engine.render(frames: 5_760)
        return Level.rms(Array(out[1_920...]), channels: 2).map { Level.dB($0) }
    }

    /// Two listeners 100 m apart, an emitter 2 m to the right of the second: heard as a 2 m
    /// source to the right (as one listener there hears it), within 0.5 dB per channel; with the
    /// second's weight 0, heard as the first alone hears it.
    func testNearestListenerAndWeights() throws {
        let first = Listener(position: Vector3(0, 0, 0))
        let second = Listener(position: Vector3(100, 0, 0))
        let at = Vector3(102, 0, 0)
        let both = try levels([first, second], emitterAt: at)
        let alone = try levels([second], emitterAt: at)
        for c in 0..<2 { XCTAssertEqual(both[c], alone[c], accuracy: 0.5, "channel \(c): \(both) vs \(alone)") }
        XCTAssertGreaterThan(both[1] - both[0], 10, "from the second listener's right: \(both)")
        // Turned, the second hears it on its left: the direction is the second listener's own.
        let turned = try levels([first, Listener(position: Vector3(100, 0, 0), at: Vector3(0, 0, 1))], emitterAt: at)
        XCTAssertGreaterThan(turned[0] - turned[1], 10, "on the turned listener's left: \(turned)")
        // Weight 0 on the second: the first (102 m away, on its right) hears it.
        var ignored = second
        ignored.weight = 0
        let weighted = try levels([first, ignored], emitterAt: at)
        let firstAlone = try levels([first], emitterAt: at)
        for c in 0..<2 { XCTAssertEqual(weighted[c], firstAlone[c], accuracy: 0.5, "channel \(c): \(weighted) vs \(firstAlone)") }
        XCTAssertLessThan(weighted[1], both[1] - 30, "far quieter from the first")
    }

    /// An emitter walked from one listener to the other (20 m apart, both facing −z, 3 m in
    /// front of them) over 4 s: per 20 ms window, the level (both channels' power) never steps
    /// by more than 1.5 dB, nor does either channel while it is within 20 dB of the louder one
    /// (a channel rising out of silence, as a pass in front of one listener makes it, is not a
    /// step anyone hears). Without the hand-over's blend the image would jump from the first
    /// listener's right to the second's left at the midpoint.
    func testHandOverIsContinuous() throws {
        let a = Listener(position: Vector3(-10, 0, 0)), b = Listener(position: Vector3(10, 0, 0))
        let (engine, emitter) = try scene([a, b], emitterAt: Vector3(-10, 0, -3))
        defer { engine.shutdown() }
        let window = 960, steps = 200
        var previous: [Double]?
        var worstTotal = 0.0, worstChannel = 0.0
        var sides: Set<Int> = []
        for k in 0...steps {
            emitter.position = Vector3(-10 + 20 * Float(k) / Float(steps), 0, -3)
            engine.update()
            let out = try engine.render(frames: window)
            let rms = Level.rms(out, channels: 2)
            let l = rms.map { Level.dB($0) } + [Level.dB(power: rms[0] * rms[0] + rms[1] * rms[1])]
            if k > 1, let p = previous {
                worstTotal = max(worstTotal, abs(l[2] - p[2]))
                let loud = max(l[0], l[1], p[0], p[1])
                for c in 0..<2 where min(l[c], p[c]) > loud - 20 { worstChannel = max(worstChannel, abs(l[c] - p[c])) }
            }
            if abs(l[0] - l[1]) > 10 { sides.insert(l[0] > l[1] ? 0 : 1) }
            previous = l
        }
        XCTAssertLessThanOrEqual(worstTotal, 1.5, "largest step of the level per 20 ms window: \(worstTotal) dB")
        XCTAssertLessThanOrEqual(worstChannel, 1.5, "largest step of a heard channel per 20 ms window: \(worstChannel) dB")
        print("hand-over: worst level step \(worstTotal) dB, worst heard-channel step \(worstChannel) dB")
        XCTAssertEqual(sides, [0, 1], "heard on the right of the first listener, then on the left of the second")
    }

    /// Listeners' API: up to 8, add/remove/set by handle, typed errors for the rest.
    func testListenerAPIErrors() throws {
        let engine = try TestSignals.loopbackEngine()
        let other = try TestSignals.loopbackEngine()
        defer { other.shutdown() }
        XCTAssertEqual(engine.listeners.count, 1)
        let ids = try (1..<8).map { try engine.addListener(Listener(position: Vector3(Float($0), 0, 0))) }
        XCTAssertEqual(engine.listeners.count, 8)
        XCTAssertEqual(engine.listenerIDs.count, 8)
        XCTAssertThrowsError(try engine.addListener(Listener())) { XCTAssertEqual($0 as? EarshotError, .invalidArgument("a listener past the 8 an engine may have (ListenerTable.maxListeners)")) }
        try engine.setListener(Listener(position: Vector3(9, 0, 0), weight: 0.5), for: ids[2])
        XCTAssertEqual(try engine.listener(ids[2]).position, Vector3(9, 0, 0))
        try engine.removeListener(ids[2])
        XCTAssertThrowsError(try engine.removeListener(ids[2]))
        XCTAssertThrowsError(try engine.listener(ids[2]))
        XCTAssertThrowsError(try engine.removeListener(engine.listenerIDs[0]), "the first stays")
        XCTAssertThrowsError(try engine.setListener(Listener(weight: 2), for: ids[0]))
        XCTAssertThrowsError(try engine.setListener(Listener(at: Vector3(0, 1, 0)), for: ids[0]), "at parallel to up")
        XCTAssertThrowsError(try other.removeListener(ids[0])) { XCTAssertEqual($0 as? EarshotError, .wrongEngine) }
        XCTAssertThrowsError(try engine.setListeners([])) 
        engine.listeners = []   // ignored
        XCTAssertEqual(engine.listeners.count, 7)
        // A point whose squared distance overflows Float (found by the API fuzzer): heard as
        // the first listener hears it, never NaN sent to OpenAL.
        let tone = try engine.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")
        _ = try engine.play(tone, options: .init(position: Vector3(1e25, 0, 0)))
        engine.update()
        XCTAssertTrue(try engine.render(frames: 480).allSatisfy(\.isFinite))
        engine.listeners = [Listener(position: Vector3(1, 2, 3))]
        XCTAssertEqual(engine.listener.position, Vector3(1, 2, 3))
        XCTAssertEqual(engine.listeners.count, 1)
        engine.shutdown()
        XCTAssertThrowsError(try engine.addListener(Listener())) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try engine.removeListener(ids[0])) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try engine.setListeners([Listener()])) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
    }
}
