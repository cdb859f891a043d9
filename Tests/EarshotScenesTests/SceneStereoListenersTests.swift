import Earshot
import EarshotContent
import EarshotScenes
import EarshotTestSupport
import Foundation
import XCTest
import EarshotMeasure

/// Scenes' stereo keys (`spatial:`, `spread:`) and `listeners:`, rendered and measured; their
/// errors. The clip is a stereo file made by sox with a tone in its left channel only.
final class SceneStereoListenersTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// A 1 s stereo WAV (sox): a 500 Hz tone on the left, silence on the right.
    private func leftOnly() throws -> String {
        let path = tmp.appendingPathComponent("left.wav").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", path, "synth", "1", "sine", "500", "vol", "0.5",
                       "remix", "1", "0"]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return path
    }

    /// Left and right RMS (dB) of 0.2…0.8 s of a scene.
    private func levels(_ yaml: String) throws -> (Double, Double) {
        let audio = try SceneFixtures.render(yaml: yaml, in: tmp)
        return (Level.dB(audio.rms(0, 0.2, 0.8)), Level.dB(audio.rms(1, 0.2, 0.8)))
    }

    /// A panned one-shot of a stereo clip, and a `spatial: 2d` sound on an emitter, keep the
    /// image (the right ≥ 60 dB down); a `spatial: 3d` sound folds it (a centred point).
    func testStereoKeepsItsImageInScenes() throws {
        let clip = try leftOnly()
        let panned = try levels("duration: 1\nclips:\n  st: \(clip)\nevents:\n  - { at: 0, play: st }\n")
        XCTAssertGreaterThanOrEqual(panned.0 - panned.1, 60, "play: keeps the image: \(panned)")
        let twoD = try levels("duration: 1\nclips:\n  st: \(clip)\nsounds:\n  s: { clips: [st], spatial: 2d }\n"
            + "emitters:\n  e: { clip: s, position: [4, 0, 0] }\n")
        XCTAssertGreaterThanOrEqual(twoD.0 - twoD.1, 60, "2d on an emitter keeps the image: \(twoD)")
        let threeD = try levels("duration: 1\nclips:\n  st: \(clip)\nsounds:\n  s: { clips: [st], spatial: 3d }\n"
            + "events:\n  - { at: 0, play: s }\n")
        XCTAssertEqual(threeD.0, threeD.1, accuracy: 0.1, "3d folds it to a centred point: \(threeD)")
        // Spread on a play event: the left channel comes from the left of a point ahead.
        let spread = try levels("duration: 1\nclips:\n  st: \(clip)\nevents:\n  - { at: 0, play: st, position: [0, 0, -2], spread: 180 }\n")
        XCTAssertGreaterThan(spread.0 - spread.1, 20, "spread 180 ahead: its left channel on the left: \(spread)")
    }

    /// `listeners:`: an emitter 2 m to the right of the second of two listeners 100 m apart is
    /// heard as one listener there hears it; with the second's weight 0, as the first hears it.
    func testListenersInScenes() throws {
        let tone = try SceneFixtures.tone(in: tmp)
        let head = "duration: 1\ndopplerFactor: 0\nclips:\n  tone: \(tone)\nemitters:\n  e: { clip: tone, loop: true, position: [102, 0, 0] }\n"
        let two = try levels(head + "listeners:\n  - { position: [0, 0, 0] }\n  - { position: [100, 0, 0] }\n")
        let one = try levels(head + "listener: { position: [100, 0, 0] }\n")
        XCTAssertEqual(two.0, one.0, accuracy: 0.5)
        XCTAssertEqual(two.1, one.1, accuracy: 0.5)
        XCTAssertGreaterThan(two.1 - two.0, 10, "on the second listener's right")
        let weighted = try levels(head + "listeners:\n  - { position: [0, 0, 0] }\n  - { position: [100, 0, 0], weight: 0 }\n")
        let first = try levels(head + "listener: { position: [0, 0, 0] }\n")
        XCTAssertEqual(weighted.1, first.1, accuracy: 0.5, "weight 0: the first hears it")
    }

    func testStereoAndListenerKeysAreChecked() throws {
        let tone = try SceneFixtures.tone(in: tmp)
        let head = "duration: 1\nclips:\n  tone: \(tone)\n"
        for (yaml, words) in [
            ("listener: { position: [0, 0, 0] }\nlisteners:\n  - { position: [1, 0, 0] }\n", "either listener: or listeners:"),
            ("listeners: []\n", "expected a list of 1…8 listeners"),
            ("listeners:\n" + String(repeating: "  - { position: [1, 0, 0] }\n", count: 9), "9 listeners"),
            ("listeners:\n  - { position: [1, 0, 0], weight: 2 }\n", "listeners[0].weight"),
            ("listener: { position: [1, 0, 0], weight: 1 }\n", "weight"),
            ("sounds:\n  s: { clips: [tone], spatial: 4d }\n", "sounds.s.spatial"),
            ("sounds:\n  s: { clips: [tone], spread: 400 }\n", "sounds.s.spread"),
            ("sounds:\n  s: { clips: [tone], spatial: 2d, spread: 90 }\n", "a 2d sound has none"),
            ("emitters:\n  e: { clip: tone, position: [0, 0, 0], spread: -1 }\n", "emitters.e.spread"),
            ("events:\n  - { at: 0, play: tone, spread: nan }\n", "events[0].spread"),
        ] {
            let path = try SceneFixtures.write(head + yaml, in: tmp)
            XCTAssertThrowsError(try Scene.load(path: path), yaml) { error in
                XCTAssertTrue("\(error)".contains(words), "\(yaml): \(error)")
            }
        }
    }
}
