import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Gains as designers write them (issue 36.5): dB in files, with the unit (`-6 dB`) anywhere and
/// as a bare number where gains were always dB; the old linear forms (an emitter's `gain`, a
/// stem's `gain`, a track's `volume`) still read as factors, with a warning giving the dB to
/// write; music up to +12 dB; warnings for likely unit slips. Levels rendered and measured.
final class SceneGainUnitTests: XCTestCase {
    func testEmitterAndMusicGainsInDBAreHeardAsWritten() throws {
        let folder = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tone = try SceneFixtures.tone(440, in: folder)
        func level(_ emitterGain: String, _ musicGain: String) throws -> (emitter: Double, music: Double) {
            // The tone as an emitter hard right, the same tone as music (centred: both channels).
            let a = try SceneFixtures.render(yaml: """
                duration: 0.5
                clips: { tone: \(tone) }
                emitters: { e: { clip: tone, loop: true, position: [2, 0, 0], gain: \(emitterGain) } }   # 2 m: −6 dB, no limiting at +6
                """, in: folder)
            let m = try SceneFixtures.render(yaml: """
                duration: 0.5
                music: { song: { file: \(tone), \(musicGain), loops: -1 } }
                events: [{ at: 0, music: song, action: play }]
                """, in: folder)
            return (a.rms(1, 0.1, 0.4), m.rms(0, 0.1, 0.4))
        }
        let unity = try level("0 dB", "gain: 0")
        let quieter = try level("-6 dB", "gain: -6 dB")
        let louder = try level("+6dB", "gain: +6 dB")
        let old = try level("0.5", "volume: 0.5")
        XCTAssertEqual(Level.dB(quieter.emitter / unity.emitter), -6, accuracy: 0.05)
        XCTAssertEqual(Level.dB(louder.emitter / unity.emitter), 6, accuracy: 0.05)
        XCTAssertEqual(Level.dB(quieter.music / unity.music), -6, accuracy: 0.05)
        // Above 0 dB, where a track's volume was capped at 1 before (STK's 1.2–1.5).
        XCTAssertEqual(Level.dB(louder.music / unity.music), 6, accuracy: 0.05)
        // The old linear forms keep their meaning: 0.5 is −6.02 dB.
        XCTAssertEqual(Level.dB(old.emitter / unity.emitter), -6.02, accuracy: 0.05)
        XCTAssertEqual(Level.dB(old.music / unity.music), -6.02, accuracy: 0.05)
    }

    /// A music set's stem goes above 0 dB too (capped at 0 dB before): +6 dB is heard 6 dB up.
    func testAStemGainAboveZeroDBIsHeardAsWritten() throws {
        let folder = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tone = try SceneFixtures.tone(440, in: folder)
        func level(_ gain: String) throws -> Double {
            let r = try SceneFixtures.render(yaml: """
                duration: 0.5
                music:
                  score: { states: { calm: { layers: { pad: { file: \(tone), gain: \(gain) } } } } }
                events: [{ at: 0, music: score, state: calm }]
                """, in: folder)
            return r.rms(0, 0.1, 0.4)
        }
        let unity = try level("0 dB"), louder = try level("+6 dB"), quieter = try level("-6 dB")
        XCTAssertEqual(Level.dB(louder / unity), 6, accuracy: 0.05)
        XCTAssertEqual(Level.dB(quieter / unity), -6, accuracy: 0.05)
    }

    /// Events and zones keep their linear factors (no warning) and take dB with its unit too: a
    /// play's `gain: -6 dB`, a `set:` gain, a track's event `volume:` are heard as their factor 0.5.
    func testEventGainsTakeDBWithTheUnit() throws {
        let folder = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tone = try SceneFixtures.tone(440, in: folder)
        func level(_ gain: String) throws -> (play: Double, set: Double, music: Double) {
            let p = try SceneFixtures.render(yaml: """
                duration: 0.5
                clips: { tone: \(tone) }
                events: [{ at: 0, play: tone, gain: \(gain) }]
                """, in: folder)
            let e = try SceneFixtures.render(yaml: """
                duration: 0.5
                clips: { tone: \(tone) }
                emitters: { e: { clip: tone, loop: true, position: [0, 0, -1] } }
                events: [{ at: 0, set: e, gain: \(gain) }]
                """, in: folder)
            let m = try SceneFixtures.render(yaml: """
                duration: 0.5
                music: { song: { file: \(tone), loops: -1 } }
                events: [{ at: 0, music: song, action: play, volume: \(gain) }]
                """, in: folder)
            return (p.rms(0, 0.1, 0.4), e.rms(0, 0.1, 0.4), m.rms(0, 0.1, 0.4))
        }
        let factor = try level("0.5"), db = try level("-6.0206 dB"), unity = try level("1")
        XCTAssertEqual(Level.dB(db.play / factor.play), 0, accuracy: 0.01)
        XCTAssertEqual(Level.dB(db.set / factor.set), 0, accuracy: 0.01)
        XCTAssertEqual(Level.dB(db.music / factor.music), 0, accuracy: 0.01)
        XCTAssertEqual(Level.dB(db.music / unity.music), -6.02, accuracy: 0.05)
        XCTAssertEqual(Level.dB(db.play / unity.play), -6.02, accuracy: 0.05)
        // Out of range in dB is said in dB.
        let folder2 = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder2) }
        let bad = folder2.appendingPathComponent("bad.yaml")
        try """
            duration: 0.5
            clips: { tone: \(tone) }
            events: [{ at: 0, play: tone, gain: +30 dB }]
            """.write(to: bad, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Scene.load(path: bad.path)) { error in
            XCTAssertTrue("\(error)".contains("+30 dB is out of range"), "\(error)")
        }
    }

    func testOldLinearFormsAndUnitSlipsAreWarnedWithWhatToWrite() throws {
        let folder = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tone = try SceneFixtures.tone(440, in: folder)
        let path = try SceneFixtures.write("""
            duration: 2
            clips: { tone: \(tone) }
            parameters: { speed: { range: [0, 100] } }
            sounds:
              blip: { clips: [tone], cooldown: 50 }
              hum:  { clips: [tone], loop: true, gain: { parameter: speed, curve: [[0, -12], [2000, 0]] } }
            music: { song: { file: \(tone), volume: 1.5 } }
            emitters: { e: { clip: tone, position: [1, 0, 0], gain: 0.25 } }
            events:
              - { at: 0, music: song, action: play }
              - { at: 1, music: song, action: stop, fade: 30 }
            """, in: folder)
        let warnings = try Scene.load(path: path).warnings().map(\.description)
        func has(_ text: String) -> Bool { warnings.contains { $0.contains(text) } }
        XCTAssertTrue(has("emitters.e.gain: 0.25 is read as the old linear factor (-12.04 dB); gains are dB now: write gain: -12.04 dB"), "\(warnings)")
        XCTAssertTrue(has("music.song.volume: volume: 1.5 is the old linear form; music levels are dB now: write gain: 3.52 dB"), "\(warnings)")
        XCTAssertTrue(has("sounds.blip: cooldown: 50 is 50 seconds between two plays; cooldowns are seconds — for 50 ms write cooldown: 0.05"), "\(warnings)")
        XCTAssertTrue(has("sounds.hum: a gain curve point at speed = 2000 is outside the parameter's range 0…100"), "\(warnings)")
        XCTAssertTrue(has("fades over 30 s, longer than the whole scene (2 s)"), "\(warnings)")
        // Written in dB, nothing is said; `volume:` and `gain:` together are refused.
        let clean = try SceneFixtures.write("""
            duration: 2
            clips: { tone: \(tone) }
            music: { song: { file: \(tone), gain: -3.52 dB } }
            emitters: { e: { clip: tone, position: [1, 0, 0], gain: -12 dB } }
            events: [{ at: 0, music: song, action: play }]
            """, name: "clean.yaml", in: folder)
        XCTAssertEqual(try Scene.load(path: clean).warnings().map(\.description), [])
        let both = try SceneFixtures.write("duration: 1\nmusic: { song: { file: \(tone), gain: -3, volume: 0.5 } }\n", name: "both.yaml", in: folder)
        guard case .failure(let p) = Scene.check(path: both) else { return XCTFail("gain and volume together accepted") }
        XCTAssertTrue(p.description.contains("music.song.volume: give either gain: (dB) or the old volume: (a factor), not both"), p.description)
        // Out of range in dB: refused with the range.
        let loud = try SceneFixtures.write("duration: 1\nmusic: { song: { file: \(tone), gain: 20 dB } }\n", name: "loud.yaml", in: folder)
        guard case .failure(let q) = Scene.check(path: loud) else { return XCTFail("+20 dB music accepted") }
        XCTAssertTrue(q.description.contains("music.song.gain: 20 dB is out of range"), q.description)
    }

    /// `earshot validate` prints a bank's warnings too, its included banks' with their own
    /// file; `--strict` makes them errors.
    func testValidatePrintsABanksWarnings() throws {
        let folder = try SceneFixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tone = try SceneFixtures.tone(440, in: folder)
        let lib = try SceneFixtures.write("clips: { tone: \(tone) }\nsounds: { blip: { clips: [tone], cooldown: 50 } }\n", name: "lib.yaml", in: folder)
        let bank = try SceneFixtures.write("include: lib.yaml\nmusic: { song: { file: \(tone), volume: 0.5 } }\n", name: "bank.yaml", in: folder)
        let r = try CLIRunner.run("earshot", ["validate", bank])
        XCTAssertEqual(r.status, 0, r.stderr)
        // FILE:LINE:COLUMN: an included entry's at its line's start, a value where it is.
        XCTAssertTrue(r.stderr.contains("earshot: warning: \(lib):2:1: sounds.blip: cooldown: 50 is 50 seconds"), r.stderr)
        let column = "music: { song: { file: \(tone), volume: ".utf8.count + 1
        XCTAssertTrue(r.stderr.contains("earshot: warning: \(bank):2:\(column): music.song.volume: volume: 0.5 is the old linear form; music levels are dB now: write gain: -6.02 dB"), r.stderr)
        XCTAssertEqual(try CLIRunner.run("earshot", ["validate", "--strict", bank]).status, 1)
    }
}
