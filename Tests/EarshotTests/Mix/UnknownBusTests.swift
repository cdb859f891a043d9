@testable import Earshot
import EarshotMeasure
import XCTest

/// Issue 23 item 4: every call that names a bus the engine does not have throws
/// `invalidArgument` and changes nothing (measured on a loopback render: the voices on the real
/// buses play on at their level), and `addBus` validates names.
final class UnknownBusTests: XCTestCase {
    private func assertInvalid(_ body: () throws -> Void, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), what, file: file, line: line) {
            guard case .invalidArgument = $0 as? EarshotError else {
                return XCTFail("\(what): \($0)", file: file, line: line)
            }
        }
    }

    func testEveryCallNamingAnUnknownBusThrowsAndChangesNothing() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(frequency: 1_000, amplitude: 0.5, seconds: 1), name: "tone")
        _ = try e.play(tone, options: .init(loop: true, pan: 0, bus: .ui))
        let before = Level.rms(try TestSignals.renderFrames(e, seconds: 0.1), channels: 2)
        XCTAssertGreaterThan(before[0], 0.1)

        let typo = Bus("uii")
        assertInvalid({ try e.setGain(0, for: typo) }, "setGain")
        assertInvalid({ _ = try e.gain(for: typo) }, "gain(for:)")
        assertInvalid({ try e.setMuted(true, for: typo) }, "setMuted")
        assertInvalid({ _ = try e.isMuted(typo) }, "isMuted")
        assertInvalid({ try e.setPaused(true, for: typo) }, "setPaused")
        assertInvalid({ _ = try e.isPaused(typo) }, "isPaused")
        assertInvalid({ _ = try e.isHeld(typo) }, "isHeld")
        assertInvalid({ _ = try e.effectiveGain(for: typo) }, "effectiveGain")
        assertInvalid({ try e.stopAll(on: typo) }, "stopAll(on:)")
        // The typo'd pause menu: it used to pause `ui` too, the bus meant to keep playing.
        assertInvalid({ try e.pauseAll(except: [typo]) }, "pauseAll(except:)")
        assertInvalid({ try e.setFilter(.open, for: typo) }, "setFilter")
        assertInvalid({ _ = try e.filter(for: typo) }, "filter(for:)")
        assertInvalid({ _ = try e.effect(for: typo) }, "effect(for:)")
        assertInvalid({ _ = try e.snapshotGain(for: typo) }, "snapshotGain")
        assertInvalid({ _ = try e.sidechainGain(for: typo) }, "sidechainGain")
        assertInvalid({ _ = try e.level(of: typo) }, "level(of:)")
        assertInvalid({ _ = try e.ducking(of: typo, by: .voice) }, "ducking(of:by:)")
        assertInvalid({ try e.setDucking(Ducking(), of: .music, by: typo) }, "setDucking")
        assertInvalid({ try e.begin(Snapshot("s", busGains: [typo: -6])) }, "a snapshot on it")
        assertInvalid({ _ = try e.play(tone, options: .init(bus: typo)) }, "play on it")
        assertInvalid({ try e.setGain(.nan, for: .ui) }, "a NaN bus gain")
        assertInvalid({ try e.setGain(-1, for: .ui) }, "a negative bus gain")

        XCTAssertFalse(e.isPausedAll)
        XCTAssertFalse(try e.isHeld(.ui))
        XCTAssertEqual(try e.gain(for: .ui), 1)
        let after = Level.rms(try TestSignals.renderFrames(e, seconds: 0.1), channels: 2)
        XCTAssertEqual(after[0], before[0], accuracy: 1e-4, "the ui voice plays on at its level")
        XCTAssertEqual(e.activeVoiceCount, 1)

        // The real thing still works.
        try e.pauseAll(except: [.ui])
        XCTAssertTrue(try e.isHeld(.sfx))
        XCTAssertFalse(try e.isHeld(.ui))
        e.resumeAll()
        try e.setGain(0.5, for: .ui)
        _ = try TestSignals.renderFrames(e, seconds: 0.05)   // OpenAL glides a gain change over a mix
        let half = Level.rms(try TestSignals.renderFrames(e, seconds: 0.1), channels: 2)
        XCTAssertEqual(Level.dB(half[0] / before[0]), Level.dB(0.5), accuracy: 0.1)
    }

    func testBusNamesAreValidated() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        for bad in ["", " ", "\t", "foot\nsteps", "zero\u{200B}width", "bell\u{07}",
                    String(repeating: "a", count: Bus.maxNameBytes + 1),
                    String(repeating: "é", count: Bus.maxNameBytes / 2 + 1)] {
            assertInvalid({ try e.addBus(Bus(bad)) }, "bus name \(bad.debugDescription)")
        }
        XCTAssertEqual(e.buses, Bus.builtIn, "nothing was added")
        for good in ["footsteps", "dialogue 2", "ambience/wind", "Geräusche", "効果音",
                     String(repeating: "a", count: Bus.maxNameBytes)] {
            try e.addBus(Bus(good))
            try e.setGain(0.5, for: Bus(good))
        }
        assertInvalid({ try e.addBus(Bus("footsteps")) }, "a name taken")
        assertInvalid({ try e.addBus(.music) }, "a built-in name")
    }
}
