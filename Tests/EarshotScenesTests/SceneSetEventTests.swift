import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// `set:` events (gain, pitch, pan, rate of emitters, music tracks and buses, at once or over a
/// ramp with a curve) and `start:` events, rendered and measured.
final class SceneSetEventTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func render(_ body: String, duration: Double = 4) throws -> RenderedAudio {
        let tone = try SceneFixtures.tone(in: tmp)
        return try SceneFixtures.render(yaml: "duration: \(duration)\nclips:\n  tone: \(tone)\n  beep: \(SceneFixtures.beep)\n"
                                        + "music:\n  theme: { file: \(tone), loops: -1 }\n" + body, in: tmp)
    }

    private func frequency(_ a: RenderedAudio, _ from: Double, _ to: Double) -> Double { a.frequency(from, to) }

    func testAGainRampIsEvenInDecibelsByDefaultAndLinearWhenAsked() throws {
        for (curve, middle) in [("", Level.dB(0.5)), (", curve: linear", Level.dB(0.625))] {
            let audio = try render("""
                events:
                  - { at: 0, music: theme, action: play }
                  - { at: 1, set: theme, gain: 0.25, ramp: 2\(curve) }
                """)
            let before = audio.rms(0.5, 0.9)
            XCTAssertEqual(Level.dB(audio.rms(1.95, 2.05) / before), middle, accuracy: 0.4, "half-way\(curve)")
            XCTAssertEqual(Level.dB(audio.rms(3.2, 3.8) / before), Level.dB(0.25), accuracy: 0.3, "the end\(curve)")
        }
    }

    func testPitchOfAnEmitterAndGainOfABusChangeAtOnce() throws {
        let audio = try render("""
            emitters:
              hum: { clip: tone, loop: true, position: [0, 0, -1] }
            events:
              - { at: 1, set: hum, pitch: 2 }
              - { at: 2, set: sfx, gain: 0.5 }
            """, duration: 3)
        XCTAssertEqual(frequency(audio, 0.2, 0.9), 1_000, accuracy: 10)
        XCTAssertEqual(frequency(audio, 1.1, 1.9), 2_000, accuracy: 20, "an octave up")
        XCTAssertEqual(Level.dB(audio.rms(2.2, 2.9) / audio.rms(1.2, 1.9)), Level.dB(0.5), accuracy: 0.3, "the sfx bus at half")
    }

    func testOcclusionOfAnEmitterMuffles() throws {
        let audio = try render("""
            emitters:
              hum: { clip: tone, loop: true, position: [0, 0, -2] }
            events:
              - { at: 1, set: hum, occlusion: 1 }
              - { at: 2, set: hum, occlusion: 0, ramp: 0.5 }
            """, duration: 3)
        let open = audio.rms(0.3, 0.9), walled = audio.rms(1.3, 1.9), back = audio.rms(2.6, 2.9)
        XCTAssertLessThan(Level.dB(walled / open), -6, "a wall between: muffled")
        XCTAssertEqual(Level.dB(back / open), 0, accuracy: 0.5, "and clear again after the ramp")
    }

    func testStartEventsStartAndRestartEmitters() throws {
        let audio = try render("""
            emitters:
              bell: { clip: beep, position: [0, 0, -1], start: 3.5 }
            events:
              - { at: 0.5, start: bell }
              - { at: 2, start: bell }
            """, duration: 4)
        let onsets = [0.5, 2.0, 3.5].map { t in Double(audio.onset(after: t - 0.2, threshold: 0.01) ?? 0) / 48_000 }
        for (onset, t) in zip(onsets, [0.5, 2.0, 3.5]) { XCTAssertEqual(onset, t, accuracy: 0.02, "a start at \(t) s") }
    }

    func testSetEventsAreValidated() throws {
        for (event, words) in [("{ at: 1, set: thme, gain: 0.5 }", "did you mean 'theme'?"),
                               ("{ at: 1, set: theme, pitch: 2 }", "pitch does not apply here"),
                               ("{ at: 1, set: theme, gain: 5 }", "out of range (expected a factor 0…"),
                               ("{ at: 1, set: theme, gain: +13 dB }", "+13 dB is out of range"),
                               ("{ at: 1, set: sfx, gain: 0.5, curve: linear }", "a curve needs ramp"),
                               ("{ at: 1, start: nobody }", "no emitter with id \"nobody\"")] {
            let tone = tmp.appendingPathComponent("tone.wav").path
            try SoxTone.write(to: tone, frequency: 1_000, seconds: 1)
            let yaml = "duration: 2\nmusic:\n  theme: { file: \(tone) }\nevents:\n  - \(event)\n"
            XCTAssertThrowsError(try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))) { error in
                XCTAssertTrue("\(error)".contains(words), "\(error)")
            }
        }
    }
}
