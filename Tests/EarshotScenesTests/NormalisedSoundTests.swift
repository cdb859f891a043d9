import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// A sound's `loudness:` (issue 40): two sounds whose clips are 20 dB apart, both normalised to
/// −26 LUFS, render at the same loudness; `validate --loudness` lists each clip's loudness and the
/// gain `loudness:` sets; out-of-range targets are refused.
final class NormalisedSoundTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func scene() throws -> String {
        try SoxTone.write(to: tmp.appendingPathComponent("loud.wav").path, frequency: 440, amplitude: 0.5, seconds: 3)
        try SoxTone.write(to: tmp.appendingPathComponent("quiet.wav").path, frequency: 440, amplitude: 0.05, seconds: 3)
        return try SceneFixtures.write("""
            duration: 6.2
            clips: { loud: loud.wav, quiet: quiet.wav }
            sounds:
              a: { clips: [loud], loudness: -26 }
              b: { clips: [quiet], loudness: -26, gain: -6 }
            events: [ { at: 0, play: a }, { at: 3.1, play: b } ]
            """, name: "norm.yaml", in: tmp)
    }

    func testNormalisedSoundsPlayAtTheirTarget() throws {
        let path = try scene()
        let out = tmp.appendingPathComponent("norm.wav").path
        try SceneRenderer(scene: Scene.load(path: path)).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        func loudness(from a: Double, to b: Double) throws -> Double? {
            let m = try LoudnessMeter(channels: 2, sampleRate: 48_000, truePeak: false)
            try m.add(Array(audio.samples[(Int(a * 48_000) * 2)..<(Int(b * 48_000) * 2)]))
            return m.integrated
        }
        let a = try XCTUnwrap(try loudness(from: 0.2, to: 2.8)), b = try XCTUnwrap(try loudness(from: 3.3, to: 5.9))
        // Clips 20 dB apart, both brought to −26 LUFS; b's own gain −6 dB comes after.
        XCTAssertEqual(a - b, 6, accuracy: 0.2, "a \(a), b \(b)")
        XCTAssertEqual(a, -26, accuracy: 2, "near the target (a centred mono clip reads ~1.5 LU under it in stereo)")
        // What validate --loudness says.
        let r = try CLIRunner.run("earshot", ["validate", path, "--loudness"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("  loud: -9.7 LUFS integrated"), r.stdout)   // a −6 dBFS sine, mono
        XCTAssertTrue(r.stdout.contains("  b: clips -29."), r.stdout)
        XCTAssertTrue(r.stdout.contains("target -26.0 LUFS: +"), r.stdout)
        XCTAssertTrue(r.stdout.contains("then its gain -6.0 dB"), r.stdout)
    }

    func testLoudnessKeyIsChecked() throws {
        for bad in ["5", "-71", "loud"] {
            let path = try SceneFixtures.write("""
                duration: 1
                clips: { beep: \(SceneFixtures.beep) }
                sounds: { s: { clips: [beep], loudness: \(bad) } }
                """, name: "bad.yaml", in: tmp)
            let r = try CLIRunner.run("earshot", ["validate", path])
            XCTAssertEqual(r.status, 1)
            XCTAssertTrue(r.stderr.contains("sounds.s.loudness"), r.stderr)
        }
    }
}
