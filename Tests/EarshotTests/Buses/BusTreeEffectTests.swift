@testable import Earshot
import EarshotMeasure
import XCTest

/// Issue 41 item 1: on OpenAL 1.19.1 a source has one bus send, so a voice on a child bus sends
/// to its own bus's effect, or else to the nearest group's above it. A 10 ms click on `footsteps`
/// (a child of `gameplay`, which has a 120 ms echo) is heard again 120 ms later; once the child
/// has an effect of its own (a 60 ms echo), it sends there instead. Loopback renders.
final class BusTreeEffectTests: XCTestCase {
    func testAChildSendsToItsGroupsEffectUnlessItHasOne() throws {
        let e = try TestSignals.loopbackEngine { $0.busEffects = true }
        defer { e.shutdown() }
        let gameplay = Bus("gameplay"), footsteps = Bus("footsteps")
        try e.addBus(gameplay)
        try e.addBus(footsteps, parent: gameplay)
        func echo(_ delay: Float) -> BusEffect { .echo(EchoProperties(delay: delay, lrDelay: 0, damping: 0, feedback: 0, spread: 0)) }
        try e.setEffect(echo(0.12), level: 1, for: gameplay)
        let click = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.8, seconds: 0.01), name: "click")
        func dB(_ out: [Float], _ from: Double, _ to: Double) -> Double {
            let a = Int(from * 48_000) * 2, b = Int(to * 48_000) * 2
            let power = out[a..<b].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(b - a)
            return Level.dB(power: power)
        }
        func afterClick() throws -> (at60: Double, at120: Double) {
            _ = try e.render(frames: 14_400)
            _ = try e.play(click, options: .init(pan: 0, bus: footsteps))
            let out = try e.render(frames: 9_600)
            return (dB(out, 0.055, 0.075), dB(out, 0.115, 0.135))
        }
        let viaGroup = try afterClick()
        try e.setEffect(echo(0.06), level: 1, for: footsteps)
        let own = try afterClick()
        print("BusTreeEffectTests: the group's 120 ms echo: \(viaGroup.at120) dB at 120 ms, \(viaGroup.at60) dB at 60 ms; the child's own 60 ms echo: \(own.at60) dB at 60 ms, \(own.at120) dB at 120 ms")
        XCTAssertGreaterThan(viaGroup.at120, -40, "the group's echo arrives")
        XCTAssertLessThan(viaGroup.at60, -100)
        XCTAssertGreaterThan(own.at60, -40, "the child's own echo")
        XCTAssertLessThan(own.at120, -100, "and not the group's as well")
    }
}
