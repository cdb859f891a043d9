@testable import Earshot
import EarshotMeasure
import XCTest

/// Snapshots measured on a loopback render: steady tones on `sfx` (2 kHz) and `ui` (1 kHz), each
/// measured by its band energy (Goertzel) in 0.1 s windows that hold whole cycles of both.
final class SnapshotRenderTests: XCTestCase {
    static let sfxHz = 2_000.0
    static let uiHz = 1_000.0
    static let window = 0.1
    static let frame = 1.0 / 60

    private var engine: AudioEngine!
    private var renderer: FrameRenderer!

    override func setUpWithError() throws {
        engine = try TestSignals.loopbackEngine()
        renderer = FrameRenderer(engine)
        let sfx = try engine.loadClip(TestSignals.sine(frequency: Self.sfxHz, amplitude: 0.3, seconds: 1), name: "sfx")
        let ui = try engine.loadClip(TestSignals.sine(frequency: Self.uiHz, amplitude: 0.3, seconds: 1), name: "ui")
        _ = try engine.play(sfx, options: .init(loop: true))
        _ = try engine.play(ui, options: .init(loop: true, bus: .ui))
    }

    override func tearDown() {
        engine?.shutdown()
        engine = nil
        renderer = nil
    }

    private func sfx(from start: Int, seconds: Double = window) -> Double {
        renderer.level(from: start, seconds: seconds, frequency: Self.sfxHz)
    }

    private func ui(from start: Int, seconds: Double = window) -> Double {
        renderer.level(from: start, seconds: seconds, frequency: Self.uiHz)
    }

    /// The start of the last full window rendered.
    private var lastWindow: Int { renderer.frames - Int(Self.window * 48_000) }

    /// Renders 0.3 s and returns the (sfx, ui) levels of its last window.
    private func baseline() throws -> (Double, Double) {
        try renderer.render(seconds: 0.3)
        return (sfx(from: lastWindow), ui(from: lastWindow))
    }


    func testSnapshotLowersSfxByTwelveDecibelsAfterItsFadeAndEndRestoresIt() throws {
        let (s0, u0) = try baseline()
        let quiet = Snapshot("quiet", busGains: [.sfx: -12])
        try engine.begin(quiet, fade: 0.3)
        XCTAssertEqual(engine.activeSnapshots, ["quiet"])
        let begin = renderer.frames
        try renderer.render(seconds: 0.15)
        let half = Level.dB(Double(try engine.snapshotGain(for: .sfx)))
        try renderer.render(seconds: 0.15 + Self.frame)
        let after = renderer.frames
        try renderer.render(seconds: 0.2)
        let lowered = sfx(from: after) - s0
        let uiDuring = ui(from: begin, seconds: 0.5) - u0
        print("SnapshotRenderTests: −12 dB snapshot: sfx \(lowered) dB after the fade (\(half) dB as applied half-way); ui \(uiDuring) dB")
        XCTAssertEqual(lowered, -12, accuracy: 0.5, "sfx 12 dB down once the fade is over")
        XCTAssertEqual(sfx(from: lastWindow) - s0, -12, accuracy: 0.5)
        // Applied by the ninth update, 8 frames into the 0.3 s fade: linear in the weight.
        XCTAssertEqual(half, -12 * (8.0 / 60) / 0.3, accuracy: 0.01, "linear in the weight")
        XCTAssertEqual(uiDuring, 0, accuracy: 0.5, "another bus is untouched")
        XCTAssertEqual(Level.dB(Double(try engine.snapshotGain(for: .sfx))), -12, accuracy: 0.01)
        XCTAssertEqual(try engine.snapshotGain(for: .ui), 1)
        XCTAssertEqual(Double(try engine.effectiveGain(for: .sfx)), pow(10, -12.0 / 20), accuracy: 1e-4)

        engine.end(quiet, fade: 0.3)
        XCTAssertEqual(engine.activeSnapshots, ["quiet"], "listed while it fades out")
        try renderer.render(seconds: 0.3 + Self.frame)
        let back = renderer.frames
        try renderer.render(seconds: 0.2)
        let restored = sfx(from: back) - s0
        print("SnapshotRenderTests: after end(fade: 0.3): sfx \(restored) dB, ui \(ui(from: back) - u0) dB")
        XCTAssertEqual(restored, 0, accuracy: 0.5, "restored after its fade-out")
        XCTAssertEqual(ui(from: back), u0, accuracy: 0.5)
        XCTAssertEqual(engine.activeSnapshots, [], "removed once its fade reached 0")
        XCTAssertEqual(try engine.snapshotGain(for: .sfx), 1)
    }

    func testSnapshotsAddInDecibelsAndIntensityScalesThem() throws {
        let (s0, u0) = try baseline()
        let a = Snapshot("a", busGains: [.sfx: -6])
        let b = Snapshot("b", busGains: [.sfx: -6, .ui: 0])
        try engine.begin(a)
        try engine.begin(b)
        XCTAssertEqual(engine.activeSnapshots, ["a", "b"])
        try renderer.render(seconds: 0.2)
        let both = sfx(from: lastWindow) - s0
        XCTAssertEqual(both, -12, accuracy: 0.5, "−6 and −6 make −12")
        XCTAssertEqual(ui(from: lastWindow), u0, accuracy: 0.5)

        engine.end(a)
        engine.end(b)
        XCTAssertEqual(engine.activeSnapshots, [], "a fade of 0 ends at once")
        let deep = Snapshot("deep", busGains: [.sfx: -12])
        try engine.begin(deep, intensity: 0.5)
        try renderer.render(seconds: 0.2)
        let halfIntensity = sfx(from: lastWindow) - s0
        XCTAssertEqual(halfIntensity, -6, accuracy: 0.5, "intensity 0.5 of −12 dB is −6 dB")

        // setIntensity ramps from where it is; begin again retargets.
        try engine.setIntensity(1, of: deep, fade: 0.2)
        try renderer.render(seconds: 0.2 + Self.frame + 0.1)
        let full = sfx(from: lastWindow) - s0
        XCTAssertEqual(full, -12, accuracy: 0.5)
        try engine.begin(deep, intensity: 0.25)
        try renderer.render(seconds: 0.2)
        let quarter = sfx(from: lastWindow) - s0
        XCTAssertEqual(quarter, -3, accuracy: 0.5)
        XCTAssertEqual(engine.activeSnapshots, ["deep"])
        engine.end(deep)

        // Silence (−∞) fades in amplitude: at weight 0.5 the factor is 0.5 (−6 dB).
        let mute = Snapshot("mute", busGains: [.sfx: -.infinity])
        try engine.begin(mute, intensity: 0.5)
        try renderer.render(seconds: 0.2)
        let halfMute = sfx(from: lastWindow) - s0
        XCTAssertEqual(halfMute, -6.02, accuracy: 0.5)
        try engine.setIntensity(1, of: mute)
        try renderer.render(seconds: 0.2)
        XCTAssertLessThan(sfx(from: lastWindow) - s0, -80, "−∞ at full weight is silence")
        print("SnapshotRenderTests: −6 and −6: \(both) dB; −12 at intensity 0.5: \(halfIntensity) dB, at 1: \(full) dB, at 0.25: \(quarter) dB; −∞ at 0.5: \(halfMute) dB")
    }

    func testFadesStandStillDuringAnInterruption() throws {
        let (s0, _) = try baseline()
        let quiet = Snapshot("quiet", busGains: [.sfx: -12])
        try engine.begin(quiet, fade: 2)
        try renderer.render(seconds: 1)
        let session = engine.session
        session.beginInterruption()
        let atHold = Level.dB(Double(try engine.snapshotGain(for: .sfx)))
        XCTAssertEqual(atHold, -6, accuracy: 0.05, "half-way when the hold begins (brought up to then)")
        try renderer.render(seconds: 1)
        XCTAssertEqual(Level.dB(Double(try engine.snapshotGain(for: .sfx))), atHold, accuracy: 1e-6, "frozen during the hold")
        session.resume()
        let resumed = renderer.frames
        try renderer.render(seconds: 0.3)
        // Over this window the fade goes on from −6 dB: from −6.3 to −6.9 dB.
        let afterResume = sfx(from: resumed + Int(0.05 * 48_000)) - s0
        XCTAssertEqual(afterResume, -6.6, accuracy: 0.5, "the fade goes on from where the hold found it")
        try renderer.render(seconds: 0.7 + Self.frame + 0.1)
        let done = sfx(from: lastWindow) - s0
        XCTAssertEqual(done, -12, accuracy: 0.5)
        print("SnapshotRenderTests: interruption: −6 dB at the hold (\(atHold)), \(afterResume) dB just after resuming, \(done) dB at the end")
    }

    /// A filter snapshot muffles the high band (8 kHz) of `sfx` and hardly touches its low band
    /// (500 Hz); a later filter snapshot wins over it; ending each brings back what lies beneath.
    func testFilterSnapshotDropsTheHighBandAndTheLaterOneWins() throws {
        let high = try engine.loadClip(TestSignals.sine(frequency: 8_000, amplitude: 0.3, seconds: 1), name: "8k")
        let low = try engine.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.3, seconds: 1), name: "500")
        _ = try engine.play(high, options: .init(loop: true))
        _ = try engine.play(low, options: .init(loop: true))
        try renderer.render(seconds: 0.3)
        func bands() -> (high: Double, low: Double) {
            (renderer.level(from: lastWindow, seconds: Self.window, frequency: 8_000),
             renderer.level(from: lastWindow, seconds: Self.window, frequency: 500))
        }
        let open = bands()
        let water = Snapshot("water", busFilters: [.sfx: LowPassFilter(gain: 1, gainHF: 0.05)])
        try engine.begin(water, fade: 0.2)
        try renderer.render(seconds: 0.2 + 0.05 + Self.frame + Self.window)
        let under = bands()
        XCTAssertLessThan(under.high - open.high, -15, "the high band drops")
        XCTAssertEqual(under.low - open.low, 0, accuracy: 2, "the low band hardly moves")
        XCTAssertEqual(try engine.filter(for: .sfx), .open, "the bus's own filter is unchanged")

        let radio = Snapshot("radio", busFilters: [.sfx: LowPassFilter(gain: 0.5, gainHF: 1)])
        try engine.begin(radio)
        try renderer.render(seconds: 0.05 + Self.frame + Self.window)
        let later = bands()
        XCTAssertEqual(later.high - open.high, -6.02, accuracy: 1, "the later snapshot's filter wins: no high cut")
        XCTAssertEqual(later.low - open.low, -6.02, accuracy: 1)

        engine.end(radio)
        try renderer.render(seconds: 0.05 + Self.frame + Self.window)
        let beneath = bands()
        XCTAssertEqual(beneath.high - under.high, 0, accuracy: 1, "ending the later one brings back the one beneath")
        engine.end(water, fade: 0.1)
        try renderer.render(seconds: 0.1 + 0.05 + Self.frame + Self.window)
        let restored = bands()
        XCTAssertEqual(restored.high - open.high, 0, accuracy: 0.5, "the bus's own filter applies again")
        XCTAssertEqual(restored.low - open.low, 0, accuracy: 0.5)
        print("SnapshotRenderTests: filter: water 8 kHz \(under.high - open.high) dB, 500 Hz \(under.low - open.low) dB; radio on top 8 kHz \(later.high - open.high) dB, 500 Hz \(later.low - open.low) dB; radio ended 8 kHz \(beneath.high - open.high) dB; all ended \(restored.high - open.high) dB")
    }

    /// A snapshot filter blends over the bus's own filter and gives it back when it ends.
    func testFilterSnapshotBlendsOverTheBusFilter() throws {
        let high = try engine.loadClip(TestSignals.sine(frequency: 8_000, amplitude: 0.3, seconds: 1), name: "8k")
        _ = try engine.play(high, options: .init(loop: true))
        try renderer.render(seconds: 0.3)
        let open = renderer.level(from: lastWindow, seconds: Self.window, frequency: 8_000)
        let own = LowPassFilter(gain: 0.5, gainHF: 1)
        try engine.setFilter(own, for: .sfx)
        try renderer.render(seconds: 0.2)
        let withOwn = renderer.level(from: lastWindow, seconds: Self.window, frequency: 8_000)
        XCTAssertEqual(withOwn - open, -6.02, accuracy: 1)
        try engine.begin(Snapshot("clear", busFilters: [.sfx: .open]))
        try renderer.render(seconds: 0.2)
        XCTAssertEqual(renderer.level(from: lastWindow, seconds: Self.window, frequency: 8_000), open, accuracy: 0.5,
                       "the snapshot's filter replaces the bus's own")
        XCTAssertEqual(try engine.filter(for: .sfx), own)
        engine.end(Snapshot("clear"))
        try renderer.render(seconds: 0.2)
        XCTAssertEqual(renderer.level(from: lastWindow, seconds: Self.window, frequency: 8_000), withOwn, accuracy: 0.5)
    }
}
