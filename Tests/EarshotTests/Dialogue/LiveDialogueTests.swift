@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Subtitles on a live device (issue 42): `TimeProbe dialogue FILE` (Tests/TimeProbe) against a
/// private PulseAudio daemon with a `game` null sink recorded by `parec`. The probe schedules a
/// click at a known audio time, then says a line (a 1 kHz tone of 0.5 s at 0.5, its first frame
/// audible) at once — live, behind the streams' trimmed lead-in — and prints the line's `show`
/// and `hide` audio times. The recording says where the click and the line were heard: the line's
/// first and last frames must lie where `show` and `hide` say, relative to the click, ± 5 ms.
final class LiveDialogueTests: XCTestCase {
    private var probePath: String { CLIRunner.productsDirectory.appendingPathComponent("TimeProbe").path }

    func testShowAndHideLandOnTheLinesFramesLive() throws {
        try requireTools(["/usr/bin/pactl", "/usr/bin/parec", "/usr/bin/pulseaudio"])
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            throw XCTSkip("TimeProbe is not built: run `swift build` (make test does) before `swift test`")
        }
        let f = try DialogueFixture()
        try f.tone("line", frequency: 1_000, seconds: 0.5, volume: 0.5)
        let pulse = try PrivateSoundServer.start(.pulseaudio, in: f.directory, forOpenAL: true)
        defer { pulse.stop() }
        try pulse.nullSink("game", makeDefault: true)
        let recording = f.directory.appendingPathComponent("rec.f32")
        let parec = try ChildProcess("/usr/bin/parec", ["--device=game.monitor", "--latency-msec=20", "--format=float32le", "--rate=48000",
                                                        "--channels=1", "--raw", recording.path], environment: pulse.environment)
        defer { parec.stop() }
        Thread.sleep(forTimeInterval: 0.3)
        let probe = try ChildProcess.run(probePath, ["dialogue", f.path("en", "line")], environment: pulse.environment, timeout: 30)
        Thread.sleep(forTimeInterval: 0.3)
        parec.stop()
        XCTAssertEqual(probe.status, 0, probe.output)
        var scheduled: Double?, show: Double?, hide: Double?
        for line in probe.output.split(separator: "\n") {
            let w = line.split(separator: " ")
            if w.first == "scheduled", w.count == 2 { scheduled = Double(w[1]) }
            if w.first == "show", w.count == 2 { show = Double(w[1]) }
            if w.first == "hide", w.count == 2 { hide = Double(w[1]) }
        }
        guard let scheduled, let show, let hide, show > 0, hide > show else { return XCTFail("probe: \(probe.output)") }
        let x = try Data(contentsOf: recording).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        // Onsets above 0.15: the click played at once, the scheduled click, then the line.
        var onsets: [Int] = []
        var previous: Float = 0
        for (i, v) in x.enumerated() {
            if v > 0.15, previous <= 0.15, onsets.last.map({ i - $0 > 4_800 }) ?? true { onsets.append(i) }
            previous = v
        }
        guard onsets.count >= 3 else { return XCTFail("onsets \(onsets)") }
        let click = onsets[1], lineStart = onsets[2]
        let lineEnd = (lineStart..<x.count).last { abs(x[$0]) > 0.15 } ?? lineStart
        let heardShow = Double(lineStart - click) / 48, heardHide = Double(lineEnd - click) / 48
        let saidShow = (show - scheduled) * 1000, saidHide = (hide - scheduled) * 1000
        print("live dialogue: show \(saidShow) ms after the click, heard \(heardShow) ms; hide \(saidHide) ms, heard \(heardHide) ms")
        XCTAssertEqual(heardShow, saidShow, accuracy: 5, "show within 5 ms of the line's first frame, live")
        XCTAssertEqual(heardHide, saidHide, accuracy: 5, "hide within 5 ms of its last frame")
    }
}
