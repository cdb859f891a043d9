import EarshotMeasure
import Foundation
import XCTest

/// A `set:` of an emitter's pitch or gain moves its voice's by the same ratio, keeping what the
/// sound said (its random ± cents, each layer's pitch, the clip it picked), measured by the
/// frequencies and levels heard.
final class SceneEmitterRatioTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// The frequency of the strongest tone within ±4 % of `hz` over `from..<to` seconds (the mono
    /// mix; the least-squares amplitude searched in steps of 0.02 %, then halved steps).
    private func peak(_ a: RenderedAudio, near hz: Double, _ from: Double, _ to: Double) -> Double {
        let x = (a.frame(from)..<a.frame(to)).map { i in (0..<a.channels).reduce(Float(0)) { $0 + a.samples[i * a.channels + $1] } }
        let s = x[...]
        var best = hz, step = hz * 0.004
        var lo = hz * 0.96, hi = hz * 1.04
        for _ in 0..<4 {
            var f = lo, top = -1.0
            while f <= hi {
                let v = ToneMeasure.amplitude(s, f, sampleRate: Double(a.sampleRate))
                if v > top { (top, best) = (v, f) }
                f += step
            }
            (lo, hi, step) = (best - step, best + step, step / 5)
        }
        return best
    }

    /// A sound with ± 300 cents played by an emitter at pitch 1.2, set to 1.8 (× 1.5); a layered
    /// sound (layers at pitch 0.8 and 0.25 of a 1 kHz tone) set from 1 to 1.5: every frequency
    /// heard is × 1.5 of before (it was replaced: the varied sound at 1.8 × 1 kHz, the first
    /// layer at 1.5 × 1 kHz).
    func testAnEmitterPitchSetScalesTheVoicesOwnPitch() throws {
        let tone = try SceneFixtures.tone(in: tmp)
        let audio = try SceneFixtures.render(yaml: """
            duration: 4
            seed: 7
            clips:
              tone: \(tone)
            sounds:
              varied: { clips: [tone], pitch: { cents: 300 }, loop: true }
              layered: { layers: [ { clip: tone, pitch: 0.8 }, { clip: tone, pitch: 0.25 } ] }
            emitters:
              a: { clip: varied, loop: true, position: [0, 0, -1], pitch: 1.2 }
              b: { clip: layered, loop: true, position: [0, 0, -1], start: 2 }
            events:
              - { at: 1, set: a, pitch: 1.8 }
              - { at: 2, stop: a }
              - { at: 3, set: b, pitch: 1.5 }
            """, in: tmp)
        let varied = audio.frequency(0.2, 0.9)
        let variedAfter = audio.frequency(1.2, 1.9)
        let first = peak(audio, near: 800, 2.2, 2.9), second = peak(audio, near: 250, 2.2, 2.9)
        let firstAfter = peak(audio, near: 1_200, 3.2, 3.9), secondAfter = peak(audio, near: 375, 3.2, 3.9)
        print("emitter pitch × 1.5: varied sound \(varied) → \(variedAfter) Hz (× \(variedAfter / varied)); layers \(first) → \(firstAfter), \(second) → \(secondAfter) Hz (× \(firstAfter / first), × \(secondAfter / second))")
        XCTAssertGreaterThan(abs(varied / 1_200 - 1), 0.005, "the seed draws a variation to keep")
        XCTAssertEqual(variedAfter / varied, 1.5, accuracy: 0.0075, "the sound's variation kept")
        XCTAssertEqual(first, 800, accuracy: 4)
        XCTAssertEqual(second, 250, accuracy: 1.25)
        XCTAssertEqual(firstAfter / first, 1.5, accuracy: 0.0075, "the first layer's pitch kept")
        XCTAssertEqual(secondAfter / second, 1.5, accuracy: 0.0075, "the second layer's pitch kept")
    }

    /// In a scene with `parameters:` (the sound under a −6 dB gain curve), a sound picking in
    /// sequence between a clip at 0 dB and one at −10 dB: the second emitter's voice (the −10 dB
    /// clip) set from −2 to −8 dB steps by −6 dB (it jumped by +4 dB: its level was taken from
    /// the definition, without the clip picked, since ``Voice/gain`` read the curve's factor).
    func testAnEmitterGainSetUnderCurvesKeepsTheClipPicked() throws {
        let tone = try SceneFixtures.tone(in: tmp)
        let audio = try SceneFixtures.render(yaml: """
            duration: 2
            parameters:
              speed: { range: [0, 1], default: 0.5 }
            clips:
              loud: { file: \(tone) }
              soft: { file: \(tone), gain: -10 dB }
            sounds:
              pick: { clips: [loud, soft], select: sequence, loop: true, gain: { parameter: speed, curve: [[0, -6], [1, -6]] } }
            emitters:
              a: { clip: pick, loop: true, position: [0, 0, -1], gain: silent }
              b: { clip: pick, loop: true, position: [0, 0, -1], gain: -2 dB }
            events:
              - { at: 1, set: b, gain: -8 dB }
            """, in: tmp)
        let step = Level.dB(audio.rms(1.2, 1.9) / audio.rms(0.2, 0.9))
        print("under a curve, the clip picked at −10 dB, emitter −2 → −8 dB: \(step) dB (rms \(audio.rms(0.2, 0.9)), \(audio.rms(1.2, 1.9)))")
        XCTAssertEqual(step, -6, accuracy: 0.2)
    }

    /// A switch whose cases are a timeline (outdoor) and a plain loop at −6 dB with ± 300
    /// cents (indoor, picked): the emitter's gain set 1 → 0.8 steps its voice by −1.94 dB and
    /// its pitch set 1 → 1.5 moves the tone by × 1.5, its variation kept. The level was guessed
    /// from the definition (any timeline case: "a handle over parts") and the plain voice set
    /// to 0.8 (+4.1 dB) and to pitch 1.5 (its variation lost).
    func testAnEmitterSetOnASwitchKeepsThePlainCasesLevel() throws {
        let tone = try SceneFixtures.tone(in: tmp)
        let audio = try SceneFixtures.render(yaml: """
            duration: 3
            seed: 7
            parameters:
              place: { labels: [outdoor, indoor], default: indoor }
            clips:
              tone: \(tone)
            sounds:
              wind: { layers: [ { clip: tone, loop: true }, { clip: tone, delay: 0.5, loop: true } ] }
              room: { clips: [tone], gain: -6, pitch: { cents: 300 }, loop: true }
              amb: { switch: { parameter: place, cases: { outdoor: wind, indoor: room } } }
            emitters:
              a: { clip: amb, loop: true, position: [0, 0, -1] }
            events:
              - { at: 1, set: a, gain: 0.8 }
              - { at: 2, set: a, pitch: 1.5 }
            """, in: tmp)
        let step = Level.dB(audio.rms(1.2, 1.9) / audio.rms(0.2, 0.9))
        let varied = audio.frequency(1.2, 1.9), after = audio.frequency(2.2, 2.9)
        print("switch's plain case, emitter gain 1 → 0.8: \(step) dB; pitch 1 → 1.5: \(varied) → \(after) Hz (× \(after / varied))")
        XCTAssertEqual(step, Level.dB(0.8), accuracy: 0.2, "scaled, not replaced")
        XCTAssertGreaterThan(abs(varied / 1_000 - 1), 0.005, "the seed draws a variation to keep")
        XCTAssertEqual(after / varied, 1.5, accuracy: 0.0075, "the case's variation kept")
    }
}
