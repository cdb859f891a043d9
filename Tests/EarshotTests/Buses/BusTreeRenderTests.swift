@testable import Earshot
import EarshotMeasure
import XCTest

/// Issue 41 item 1, measured on loopback renders: a group bus `gameplay` over `footsteps`
/// (1 kHz tone) and `vehicles` (2 kHz), `ui` (3 kHz) beside it under the master; each tone is
/// measured by its band energy in 0.1 s windows (whole cycles of every tone) against its level
/// before the change.
final class BusTreeRenderTests: XCTestCase {
    static let footstepsHz = 1_000.0, vehiclesHz = 2_000.0, uiHz = 3_000.0
    static let window = 0.1
    let gameplay = Bus("gameplay"), footsteps = Bus("footsteps"), vehicles = Bus("vehicles")

    private var engine: AudioEngine!
    private var renderer: FrameRenderer!
    private var voices: [Voice] = []

    override func setUpWithError() throws {
        engine = try TestSignals.loopbackEngine()
        renderer = FrameRenderer(engine)
        try engine.addBus(gameplay)
        try engine.addBus(footsteps, parent: gameplay)
        try engine.addBus(vehicles, parent: gameplay)
        for (hz, bus) in [(Self.footstepsHz, footsteps), (Self.vehiclesHz, vehicles), (Self.uiHz, Bus.ui)] {
            let clip = try engine.loadClip(TestSignals.sine(frequency: hz, amplitude: 0.2, seconds: 1), name: bus.name)
            voices.append(try engine.play(clip, options: .init(loop: true, bus: bus)))
        }
    }

    override func tearDown() {
        engine?.shutdown()
        engine = nil
        renderer = nil
        voices = []
    }

    /// Renders `seconds` and returns the (footsteps, vehicles, ui) levels of the last window.
    private func levels(after seconds: Double = 0.25) throws -> [Double] {
        try renderer.render(seconds: seconds)
        let start = renderer.frames - Int(Self.window * 48_000)
        return [Self.footstepsHz, Self.vehiclesHz, Self.uiHz].map {
            renderer.level(from: start, seconds: Self.window, frequency: $0)
        }
    }

    private func change(_ before: [Double], _ after: [Double]) -> [Double] { zip(after, before).map { $0 - $1 } }

    private static func gain(dB: Double) -> Float { Float(pow(10, dB / 20)) }

    func testGroupGainMultipliesDownItsPath() throws {
        let base = try levels()
        try engine.setGain(Self.gain(dB: -6), for: gameplay)
        try engine.setGain(Self.gain(dB: -6), for: footsteps)
        let d = change(base, try levels())
        print("BusTreeRenderTests: gameplay −6, footsteps −6: footsteps \(d[0]) dB, vehicles \(d[1]) dB, ui \(d[2]) dB")
        XCTAssertEqual(d[0], -12.0, accuracy: 0.05, "footsteps: −6 of its own × −6 of its group")
        XCTAssertEqual(d[1], -6.0, accuracy: 0.05, "vehicles: its group's −6")
        XCTAssertEqual(d[2], 0.0, accuracy: 0.05, "ui is beside the group")
        XCTAssertEqual(Double(try engine.effectiveGain(for: footsteps)), pow(10, -12.0 / 20), accuracy: 1e-4)
        // Muting the group silences its subtree; a child moved to the master leaves its group.
        try engine.setMuted(true, for: gameplay)
        let muted = change(base, try levels())
        XCTAssertLessThan(muted[0], -80)
        XCTAssertLessThan(muted[1], -80)
        XCTAssertEqual(muted[2], 0, accuracy: 0.05)
        try engine.setParent(nil, of: vehicles)
        let moved = change(base, try levels())
        print("BusTreeRenderTests: group muted, vehicles moved to the master: vehicles \(moved[1]) dB")
        XCTAssertEqual(moved[1], 0, accuracy: 0.05, "out of the muted group, at its own level")
        XCTAssertLessThan(moved[0], -80)
    }

    func testVCAScalesItsMembersOnly() throws {
        // A VCA over vehicles (a child of gameplay) and ui (under the master): members that
        // are not a group. −10 dB each; footsteps, beside vehicles in the group, untouched.
        let base = try levels()
        try engine.defineVCA(VCA("mix", buses: [vehicles, .ui]))
        try engine.setVCA("mix", gain: Self.gain(dB: -10))
        let d = change(base, try levels())
        print("BusTreeRenderTests: VCA −10 over vehicles and ui: footsteps \(d[0]) dB, vehicles \(d[1]) dB, ui \(d[2]) dB")
        XCTAssertEqual(d[0], 0.0, accuracy: 0.05)
        XCTAssertEqual(d[1], -10.0, accuracy: 0.05)
        XCTAssertEqual(d[2], -10.0, accuracy: 0.05)
        // A VCA over the group scales its children; a fade moves linearly in amplitude.
        try engine.defineVCA(VCA("all gameplay", buses: [gameplay]))
        try engine.setVCA("all gameplay", gain: 0.5, fade: 0.2)
        let faded = change(base, try levels(after: 0.4))   // the last window after the 0.2 s fade
        XCTAssertEqual(faded[0], Level.dB(0.5), accuracy: 0.05, "footsteps under the VCA'd group")
        XCTAssertEqual(faded[1], -10 + Level.dB(0.5), accuracy: 0.05, "two VCAs multiply")
        XCTAssertEqual(try engine.vcaGain("all gameplay"), 0.5)
        engine.removeVCA("mix")
        let removed = change(base, try levels())
        XCTAssertEqual(removed[2], 0, accuracy: 0.05, "a removed VCA leaves its buses at their own level")
    }

    func testSnapshotOnAGroupMovesEveryChild() throws {
        let base = try levels()
        let duckAll = Snapshot("menu", busGains: [gameplay: -9])
        try engine.begin(duckAll, fade: 0.1)
        let d = change(base, try levels(after: 0.3))
        print("BusTreeRenderTests: snapshot −9 on gameplay: footsteps \(d[0]) dB, vehicles \(d[1]) dB, ui \(d[2]) dB")
        XCTAssertEqual(d[0], -9, accuracy: 0.1)
        XCTAssertEqual(d[1], -9, accuracy: 0.1)
        XCTAssertEqual(d[2], 0, accuracy: 0.05)
        // A group's filter reaches its children: gain 0.5 is −6.02 dB on each (EFX on loopback).
        try engine.setFilter(LowPassFilter(gain: 0.5, gainHF: 1), for: gameplay)
        let f = change(base, try levels(after: 0.3))
        print("BusTreeRenderTests: the group's filter (gain 0.5): footsteps \(f[0]) dB, vehicles \(f[1]) dB")
        XCTAssertEqual(f[0], -9 + Level.dB(0.5), accuracy: 0.1)
        XCTAssertEqual(f[1], -9 + Level.dB(0.5), accuracy: 0.1)
        XCTAssertEqual(f[2], 0, accuracy: 0.05)
    }

    func testPauseAndStopAllOnAGroup() throws {
        let base = try levels()
        try engine.setPaused(true, for: gameplay)
        XCTAssertTrue(try engine.isHeld(footsteps), "a child of a paused group is held")
        var d = change(base, try levels())
        XCTAssertLessThan(d[0], -80)
        XCTAssertLessThan(d[1], -80)
        XCTAssertEqual(d[2], 0, accuracy: 0.05)
        try engine.setPaused(false, for: gameplay)
        d = change(base, try levels())
        XCTAssertEqual(d[0], 0, accuracy: 0.05, "resumed with its group")
        // pauseAll sparing the group spares its children.
        try engine.pauseAll(except: [gameplay])
        d = change(base, try levels())
        XCTAssertEqual(d[0], 0, accuracy: 0.05)
        XCTAssertEqual(d[1], 0, accuracy: 0.05)
        XCTAssertLessThan(d[2], -80, "ui is not in the group spared")
        engine.resumeAll()
        try engine.stopAll(on: gameplay)
        d = change(base, try levels())
        print("BusTreeRenderTests: stopAll(on: gameplay): footsteps \(d[0]) dB, vehicles \(d[1]) dB, ui \(d[2]) dB")
        XCTAssertLessThan(d[0], -80)
        XCTAssertLessThan(d[1], -80)
        XCTAssertEqual(d[2], 0, accuracy: 0.05)
        XCTAssertFalse(voices[0].isPlaying)
        XCTAssertFalse(voices[1].isPlaying)
        XCTAssertTrue(voices[2].isPlaying)
    }

    func testDuckingAGroupAndAGroupAsSource() throws {
        let base = try levels()
        // ui ducks the whole group by 12 dB while it sounds (it sounds all the time here).
        try engine.setDucking(Ducking(level: -12, attack: 0.05, release: 0.1, threshold: -60), of: gameplay, by: .ui)
        let d = change(base, try levels(after: 0.3))
        print("BusTreeRenderTests: ui ducks gameplay −12: footsteps \(d[0]) dB, vehicles \(d[1]) dB")
        XCTAssertEqual(d[0], -12, accuracy: 0.1)
        XCTAssertEqual(d[1], -12, accuracy: 0.1)
        XCTAssertEqual(d[2], 0, accuracy: 0.05)
        try engine.setDucking(nil, of: gameplay, by: .ui)
        // The group as the source: its level is its children's, and it ducks ui by it.
        XCTAssertGreaterThan(try engine.level(of: gameplay), try engine.level(of: footsteps) + 1, "the group sums its children")
        try engine.setDucking(Ducking(level: -6, attack: 0.05, release: 0.1, threshold: -60), of: .ui, by: gameplay)
        let s = change(base, try levels(after: 0.5))
        print("BusTreeRenderTests: gameplay ducks ui −6: ui \(s[2]) dB, footsteps \(s[0]) dB")
        XCTAssertEqual(s[2], -6, accuracy: 0.1)
        XCTAssertEqual(s[0], 0, accuracy: 0.1)
        XCTAssertThrowsError(try engine.setDucking(Ducking(), of: gameplay, by: footsteps), "a child would duck itself")
    }
}
