import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest

/// `earshot render` and `earshot info` report EBU R128 loudness and true peak that agree with
/// ffmpeg's `ebur128` filter on the same file; `--loudness-target` fails a render that misses it;
/// a scene's `limiter: { ceiling: -1, truePeak: true }` keeps ffmpeg's true peak under the ceiling
/// (issue 40). Renders are 1–2 s.
final class RenderLoudnessTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// ffmpeg's summary of `file`: integrated LUFS and true peak dBTP.
    private func ffmpeg(_ file: String) throws -> (integrated: Double, truePeak: Double) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["ffmpeg", "-nostats", "-hide_banner", "-i", file, "-af", "ebur128=peak=true", "-f", "null", "-"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let summary = text.components(separatedBy: "Summary:").last ?? ""
        func value(after label: String) -> Double? {
            guard let r = summary.range(of: label) else { return nil }
            return Double(summary[r.upperBound...].trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return (try XCTUnwrap(value(after: "I:"), text), try XCTUnwrap(value(after: "Peak:"), text))
    }

    /// The number after `label` in `line` ("integrated -19.3 LUFS" → -19.3).
    private func number(after label: String, in text: String) -> Double? {
        guard let r = text.range(of: label) else { return nil }
        return Double(text[r.upperBound...].split(separator: " ").first ?? "")
    }

    func testRenderAndInfoAgreeWithFFmpeg() throws {
        for scene in ["showcase.yaml", "mix.yaml", "crowd.yaml"] {
            let out = tmp.appendingPathComponent(scene + ".wav").path
            let r = try CLIRunner.run("earshot", ["render", SceneFixtures.path(scene), "-o", out, "--duration", "2", "--format", "f32"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let line = r.stderr.split(separator: "\n").first { $0.hasPrefix("earshot: loudness: ") }.map(String.init) ?? ""
            let ours = try XCTUnwrap(number(after: "integrated ", in: line), r.stderr)
            XCTAssertNotNil(number(after: "LRA ", in: line), line)
            XCTAssertNotNil(number(after: "max momentary ", in: line), line)
            XCTAssertNotNil(number(after: "max short-term ", in: line), line)
            let theirs = try ffmpeg(out)
            XCTAssertEqual(ours, theirs.integrated, accuracy: 0.1, "\(scene): \(line)")
            XCTAssertEqual(try XCTUnwrap(number(after: "true peak ", in: line)), theirs.truePeak, accuracy: 0.2, line)
            // `earshot info` measures the file the same way.
            let info = try CLIRunner.run("earshot", ["info", out])
            XCTAssertEqual(info.status, 0, info.stderr)
            let infoLine = info.stdout.split(separator: "\n").first { $0.hasPrefix("loudness:") }.map(String.init) ?? ""
            XCTAssertEqual(try XCTUnwrap(number(after: "loudness:    ", in: infoLine), info.stdout), theirs.integrated, accuracy: 0.1)
            XCTAssertTrue(info.stdout.contains("true peak:   "), info.stdout)
        }
    }

    func testLoudnessTargetFailsARenderThatMissesIt() throws {
        let scene = SceneFixtures.path("mix.yaml")
        let out = tmp.appendingPathComponent("mix.wav").path
        let first = try CLIRunner.run("earshot", ["render", scene, "-o", out, "--duration", "1"])
        let measured = try XCTUnwrap(number(after: "integrated ", in: first.stderr), first.stderr)
        // Met: within the default ±1 LU.
        try FileManager.default.removeItem(atPath: out)
        let svg = tmp.appendingPathComponent("mix.svg").path
        let met = try CLIRunner.run("earshot", ["render", scene, "-o", out, "--duration", "1", "--plot", svg,
                                                "--loudness-target", String(format: "%.1f", measured + 0.5)])
        XCTAssertEqual(met.status, 0, met.stderr)
        // The plot's loudness lane: momentary, short-term and the target as a line.
        let plot = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(plot.contains("loudness (LUFS)"), "the lane's title")
        for series in ["momentary (400 ms)", "short-term (3 s)", String(format: "target %.1f LUFS", measured + 0.5)] {
            XCTAssertTrue(plot.contains("data-series=\"\(series)\""), series)
        }
        // Missed: exit 1 and one line saying by how much; the render is still written.
        try FileManager.default.removeItem(atPath: out)
        let missed = try CLIRunner.run("earshot", ["render", scene, "-o", out, "--duration", "1", "--quiet", "--loudness-target", String(format: "%.1f", measured - 5)])
        XCTAssertEqual(missed.status, 1)
        XCTAssertEqual(missed.stderr.split(separator: "\n").count, 1, missed.stderr)
        XCTAssertTrue(missed.stderr.hasPrefix("earshot: loudness target missed: integrated "), missed.stderr)
        XCTAssertTrue(missed.stderr.contains("+5.0 LU from the target"), missed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out))
        // A true-peak ceiling the render is over.
        try FileManager.default.removeItem(atPath: out)
        let peak = try CLIRunner.run("earshot", ["render", scene, "-o", out, "--duration", "1", "--quiet",
                                                 "--loudness-target", String(format: "%.1f", measured), "--true-peak", "-20"])
        XCTAssertEqual(peak.status, 1)
        XCTAssertTrue(peak.stderr.contains("true peak ") && peak.stderr.contains("is over -20.0 dBTP"), peak.stderr)
        // Targets out of range are refused before rendering.
        for bad in [["--loudness-target", "5"], ["--loudness-target", "-23", "--true-peak", "9"], ["--true-peak", "-1"]] {
            let r = try CLIRunner.run("earshot", ["render", scene, "-o", tmp.appendingPathComponent("x.wav").path] + bad)
            XCTAssertNotEqual(r.status, 0, "\(bad)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.appendingPathComponent("x.wav").path))
        }
    }

    /// Two noise voices at gain 4 and an 11 kHz tone: the sample-peak limiter lets ffmpeg's true
    /// peak over the ceiling; `truePeak: true` keeps it under.
    func testTruePeakLimiterHoldsTheCeilingPerFFmpeg() throws {
        for (name, kind) in [("white", "whitenoise"), ("pink", "pinknoise")] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
            p.arguments = ["-D", "-R", "-n", "-r", "48000", "-c", "1", "-b", "16", tmp.appendingPathComponent(name + ".wav").path,
                           "synth", "1", kind, "vol", "0.5"]
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
        }
        let tone = try SceneFixtures.tone(11_000, in: tmp)
        var peaks: [Bool: Double] = [:]
        for truePeak in [false, true] {
            let scene = try SceneFixtures.write("""
                duration: 1
                limiter: { ceiling: -1, truePeak: \(truePeak) }
                clips: { a: white.wav, b: pink.wav, t: \(tone) }
                events: [ { at: 0, play: a, gain: 4 }, { at: 0, play: b, gain: 4 }, { at: 0.3, play: t, gain: 4 } ]
                """, name: "loud\(truePeak).yaml", in: tmp)
            let out = tmp.appendingPathComponent("loud\(truePeak).wav").path
            let r = try CLIRunner.run("earshot", ["render", scene, "-o", out, "--format", "f32"])
            XCTAssertEqual(r.status, 0, r.stderr)
            peaks[truePeak] = try ffmpeg(out).truePeak
        }
        XCTAssertGreaterThan(peaks[false] ?? -99, -0.5, "sample-peak limiting: the points between samples rise over −1")
        XCTAssertLessThanOrEqual(peaks[true] ?? 99, -1.0, "true-peak limiting: ffmpeg reads the ceiling at most")
    }

    func testLimiterKeyIsChecked() throws {
        for (yaml, reason) in [("limiter: { ceiling: 3 }", "out of range"), ("limiter: { truePeak: 1 }", "expected true or false"),
                               ("limiter: { celing: -1 }", "unknown key")] {
            let scene = try SceneFixtures.write("duration: 1\n" + yaml + "\n", name: "bad.yaml", in: tmp)
            let r = try CLIRunner.run("earshot", ["validate", scene])
            XCTAssertEqual(r.status, 1)
            XCTAssertTrue(r.stderr.contains("limiter") && r.stderr.contains(reason), r.stderr)
        }
        let ok = try Scene.load(path: try SceneFixtures.write("duration: 1\nlimiter: { ceiling: -1, truePeak: true }\n", name: "ok.yaml", in: tmp))
        XCTAssertEqual(ok.limiter, LimiterSettings(ceiling: -1, truePeak: true))
        XCTAssertEqual(ok.engineConfiguration(output: .loopback(sampleRate: 48_000)).limiter, LimiterSettings(ceiling: -1, truePeak: true))
    }
}
