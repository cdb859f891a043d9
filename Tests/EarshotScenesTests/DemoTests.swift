import CSndFile
import Foundation
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Every demo builds (this target depends on them) and runs headless: with no output device
/// (`ALSOFT_DRIVERS=null-none`) it renders its WAV and exits 0.
final class DemoTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    private func runHeadless(_ demo: String, seconds: Double) throws -> RenderedAudio {
        let out = tmp.appendingPathComponent("\(demo).wav").path
        let r = try CLIRunner.run(demo, [out], environment: ["ALSOFT_DRIVERS": "null-none"])
        XCTAssertEqual(r.status, 0, "\(demo): \(r.stderr)")
        XCTAssertTrue(r.stdout.contains("\(demo): wrote \(out)"), r.stdout)
        let audio = try RenderedAudio(path: out)
        XCTAssertEqual(audio.frameCount, Int(seconds * 48_000), demo)
        XCTAssertGreaterThan(audio.rms(0, seconds), 0.005, "\(demo) is not silent")
        return audio
    }

    func testOrbit() throws { _ = try runHeadless("Orbit", seconds: 8) }

    func testCrowdStealsAndRunsVirtualVoices() throws {
        let out = tmp.appendingPathComponent("Crowd.wav").path
        let r = try CLIRunner.run("Crowd", [out], environment: ["ALSOFT_DRIVERS": "null-none"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let last = r.stdout.split(separator: "\n").last { $0.hasPrefix("Crowd: 3 s") }.map(String.init) ?? ""
        XCTAssertTrue(last.contains("24 real"), r.stdout)
        let numbers = last.split(separator: " ").compactMap { Int($0) }
        XCTAssertGreaterThan(numbers.count, 3, last)
        XCTAssertGreaterThan(numbers[2], 200, "virtual voices: \(last)")
        XCTAssertGreaterThan(numbers[3], 0, "steals: \(last)")
        XCTAssertEqual(try RenderedAudio(path: out).frameCount, 4 * 48_000)
    }

    func testDuckingSilencesTheMusicDuringTheHint() throws {
        let audio = try runHeadless("Ducking", seconds: 5)
        let music = [220, 277, 330, 110, 196, 247, 294, 98, 175, 262, 87.5, 165, 208, 82.5]
        XCTAssertLessThan(Level.dB(power: audio.power(at: music, 2.2, 3.4) / audio.power(at: music, 0.2, 1.4)), -25)
        XCTAssertGreaterThan(audio.rms(2.4, 2.55), 0.005, "footsteps carry on while the music is ducked")
    }

    func testFootsteps() throws { _ = try runHeadless("Footsteps", seconds: 5) }

    /// The Beat demo schedules every hit on the audio clock: each starts on its exact frame
    /// (4,800 + i × 14,400), so each clip's first audible frame sits at the same distance from
    /// its hit's frame every time — whatever the 800-frame game frames.
    func testBeatHitsLandOnTheirFrames() throws {
        let audio = try runHeadless("Beat", seconds: 5)
        let pattern = ["step", "coin", "step", "step", "coin", "step", "coin", "coin"]
        var offsets: [String: Set<Int>] = [:]
        for i in 0..<16 {
            let frame = 4_800 + i * 14_400
            let first = (frame - 48..<frame + 14_400).first { abs(audio.samples[$0 * audio.channels]) > 0.001 }
            let onset = try XCTUnwrap(first, "hit \(i) is silent") - frame
            XCTAssertTrue((0..<100).contains(onset), "hit \(i) begins \(onset) frames from its frame")
            offsets[pattern[i % 8], default: []].insert(onset)
        }
        XCTAssertEqual(offsets["step"]?.count, 1, "every step at the same distance from its frame: \(offsets)")
        XCTAssertEqual(offsets["coin"]?.count, 1, "every coin at the same distance from its frame: \(offsets)")
    }

    /// The Mix demo: its cooldown refuses the second step of each pair, its snapshot lowers the
    /// effects between 2.5 s and 4 s (faded in by 2.5 s, out from 4 s) and lets them back after.
    func testMixShowsCooldownLimitAndSnapshot() throws {
        let audio = try runHeadless("Mix", seconds: 6)
        let out = tmp.appendingPathComponent("Mix.wav").path
        let r = try CLIRunner.run("Mix", [out], environment: ["ALSOFT_DRIVERS": "null-none"])
        let line = r.stdout.split(separator: "\n").last { $0.hasPrefix("Mix: ") && $0.contains("refused") }.map(String.init) ?? ""
        let numbers = line.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }
        XCTAssertEqual(numbers.first, 6, "one refused pair-step per second: \(line)")
        let before = audio.rms(0.5, 2), during = audio.rms(2.6, 3.9), after = audio.rms(4.6, 5.9)
        XCTAssertLessThan(Level.dB(during / before), -9, "the snapshot lowers the effects: \(before) → \(during)")
        XCTAssertEqual(Level.dB(after / before), 0, accuracy: 3, "and gives them back: \(before) → \(after)")
    }

    /// The README's "Use Earshot in your game" program is Demos/Minimal, word for word, and runs.
    func testMinimalIsTheREADMEProgramAndPlaysTheBeep() throws {
        let root = CLIRunner.packageRoot
        let source = try String(contentsOf: root.appendingPathComponent("Demos/Minimal/main.swift"), encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = try XCTUnwrap(readme.range(of: "<!-- minimal:begin -->\n```swift\n"), "README lost its minimal:begin marker")
        let end = try XCTUnwrap(readme.range(of: "```\n<!-- minimal:end -->", range: begin.upperBound..<readme.endIndex))
        XCTAssertEqual(String(readme[begin.upperBound..<end.lowerBound]), source, "README and Demos/Minimal/main.swift differ")
        XCTAssertTrue(readme.contains(".product(name: \"Earshot\", package: \"Earshot\")"))
        XCTAssertTrue(readme.contains("libdbus-1-dev"), "the README names every system package a game links")

        let r = try CLIRunner.run("Minimal", [], environment: ["ALSOFT_DRIVERS": "null-none"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // The beep is 0.25 s (12,000 frames), rendered in blocks of 800: the loop ends at the
        // update after the block where it finished.
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").first { $0.hasPrefix("Minimal: rendered") }, r.stdout)
        let words = line.split(separator: " ")
        let frames = words.count > 2 ? Int(words[2]) ?? 0 : 0
        XCTAssertTrue((12_000...12_800).contains(frames), String(line))
        let peak = Float(words.last ?? "") ?? 0
        XCTAssertGreaterThan(peak, 0.05, "the beep is heard: \(line)")
    }

    func testDemoSourcesAreShort() throws {
        var lengths: [String: Int] = [:]
        for demo in ["Orbit", "Crowd", "Ducking", "Footsteps", "Minimal", "Mix", "Beat"] {
            let text = try String(contentsOf: CLIRunner.packageRoot.appendingPathComponent("Demos/\(demo)/main.swift"), encoding: .utf8)
            lengths[demo] = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        }
        XCTAssertLessThanOrEqual(lengths.values.min() ?? 99, 20, "the simplest demo fits in 20 lines: \(lengths)")
        XCTAssertLessThanOrEqual(lengths.values.max() ?? 99, 60, "no demo above ~60 lines: \(lengths)")
    }
}
