@testable import Earshot
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// A music set's `nextBar` change on a live device (issue 29): a private PulseAudio daemon with a
/// `game` null sink recorded from its monitor by `parec`, and `MusicProbe` (Tests/MusicProbe) as
/// the game. Explore's file has a click on each of its bar lines (0 and 2 s) over a quiet 500 Hz
/// tone; combat's begins with a click over a quiet 1 kHz tone. The recording shows the bar grid
/// itself: combat's click must come two bars of explore after explore's first click.
final class LiveMusicSetTests: XCTestCase {
    private var probePath: String { CLIRunner.productsDirectory.appendingPathComponent("MusicProbe").path }

    /// A mono float WAV: a tone of `frequency` at 0.1 with a 240-frame click of 0.5 at each of `clicks` (seconds).
    private func file(_ fixtures: MusicFixtures, _ name: String, frequency: Double, clicks: [Double]) throws -> String {
        var x = (0..<(8 * 48_000)).map { Float(0.1 * sin(2 * Double.pi * frequency * Double($0) / 48_000)) }
        for c in clicks { for i in 0..<240 { x[Int(c * 48_000) + i] = 0.5 } }
        let out = fixtures.path(name)
        let writer = try AudioFileWriter(path: out, sampleRate: 48_000, channels: 1, format: .f32)
        try writer.write(x)
        try writer.close()
        return out
    }

    func testANextBarChangeLandsOnTheBarLineInTheRecording() throws { try aNextBarChangeLandsOnTheBarLineInTheRecording(on: .pulseaudio) }
    func testANextBarChangeLandsOnTheBarLineInTheRecordingOnPipeWire() throws { try aNextBarChangeLandsOnTheBarLineInTheRecording(on: .pipewire) }

    private func aNextBarChangeLandsOnTheBarLineInTheRecording(on server: SoundServer) throws {
        try requireTools(["/usr/bin/pactl", "/usr/bin/parec"])
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            throw XCTSkip("MusicProbe is not built: run `swift build` (make test does) before `swift test`")
        }
        let fixtures = try MusicFixtures()
        let explore = try file(fixtures, "explore.wav", frequency: 500, clicks: [0, 2, 4, 6])
        let combat = try file(fixtures, "combat.wav", frequency: 1_000, clicks: [0])
        let (probe, x) = try record([explore, combat], on: server, in: fixtures)
        let lines = probe.output.split(separator: "\n")
        XCTAssertTrue(lines.contains("done"), probe.output)
        let value = { (word: String) in lines.first { $0.hasPrefix(word + " ") }.flatMap { Double($0.split(separator: " ")[1]) } }
        guard let start = value("start"), let begins = value("begins") else { return XCTFail(probe.output) }
        XCTAssertEqual(begins - start, 4, accuracy: 1e-3, "planned on the second bar line after the request at +2.7 s")

        var onsets: [Int] = []
        var previous: Float = 0
        for (i, v) in x.enumerated() {
            if v > 0.2, previous <= 0.2 { onsets.append(i) }   // clicks peak near 0.35 (pan law); the tones stay under 0.1
            previous = v
        }
        XCTAssertEqual(onsets.count, 3, "explore's clicks at its bars 1 and 2, then combat's: \(onsets)")
        guard onsets.count == 3 else { return }
        let bar = Double(onsets[1] - onsets[0]) / 48
        let change = Double(onsets[2] - onsets[0]) / 48
        print("LiveMusicSet (\(server)): explore's bar measured \(bar) ms; combat heard \(change) ms after explore's first bar line (4000 planned)")
        XCTAssertEqual(bar, 2_000, accuracy: 1)
        XCTAssertEqual(change, 4_000, accuracy: 1, "combat's first frame on explore's bar 3")
        // Combat is what plays after it: its 1 kHz tone, explore's 500 Hz gone.
        let after = Array(x[(onsets[2] + 2_400)..<(onsets[2] + 7_200)])
        XCTAssertEqual(ToneMeasure.frequency(after, sampleRate: 48_000), 1_000, accuracy: 5)
    }

    /// Two identical 3,989 Hz stems on a live device sum to +6.02 dB over one stem (±0.05 dB in
    /// nine windows of ten) after the change that starts them together, a pause and resume of
    /// the set and a seek: each in one `alSourcePlayv`/`alSourcePausev`, so the mixer takes them
    /// from the same frame (one frame apart would read 5.72 dB).
    func testStemsStayAlignedLive() throws { try stemsStayAlignedLive(on: .pulseaudio) }
    func testStemsStayAlignedLiveOnPipeWire() throws { try stemsStayAlignedLive(on: .pipewire) }

    private func stemsStayAlignedLive(on server: SoundServer) throws {
        try requireTools(["/usr/bin/pactl", "/usr/bin/parec"])
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            throw XCTSkip("MusicProbe is not built: run `swift build` (make test does) before `swift test`")
        }
        let fixtures = try MusicFixtures()
        // 3,989 Hz: no whole number of frames is a whole number of its periods for any offset a
        // mixing period could make (4 kHz would hide offsets of 12 frames).
        let stem = try fixtures.sineWAV("stem.wav", frequency: 3_989, amplitude: 0.3, seconds: 2)
        let x = try record(["stems", stem], on: server, in: fixtures).recording
        guard let heard = twoOverOne(x) else { return XCTFail("no stems in the recording") }
        let (amplitudes, first, one, later, within) = heard
        let last = amplitudes.lastIndex { $0 > one * 1.5 } ?? 0
        let gap = amplitudes[(first + 110)..<max(first + 110, last)].filter { $0 < one / 10 }.count
        print("LiveMusicSet (\(server)): two stems over one: \(within.count) of \(later.count) windows at +6.02 ± 0.05 dB (median \(String(format: "%.3f", Level.dB(later.sorted()[later.count / 2] / one))) dB); \(gap) silent windows (the pause)")
        XCTAssertGreaterThan(later.count, 200, "about 2.7 s of two stems")
        XCTAssertGreaterThanOrEqual(Double(within.count), 0.9 * Double(later.count))
        XCTAssertGreaterThanOrEqual(gap, 20, "the 0.3 s pause, between sound")
    }

    /// Two identical 3,989 Hz streams started by one ``AudioStream/play(_:)`` on a live device
    /// sum to +6.02 dB over one (±0.05 dB in nine windows of ten): one `alSourcePlayv` takes
    /// them from the same frame (one frame apart would read 5.72 dB).
    func testStreamsStartedTogetherStayAlignedLive() throws { try streamsStartedTogetherStayAlignedLive(on: .pulseaudio) }
    func testStreamsStartedTogetherStayAlignedLiveOnPipeWire() throws { try streamsStartedTogetherStayAlignedLive(on: .pipewire) }

    private func streamsStartedTogetherStayAlignedLive(on server: SoundServer) throws {
        try requireTools(["/usr/bin/pactl", "/usr/bin/parec"])
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            throw XCTSkip("MusicProbe is not built: run `swift build` (make test does) before `swift test`")
        }
        let fixtures = try MusicFixtures()
        let file = try fixtures.sineWAV("stream.wav", frequency: 3_989, amplitude: 0.3, seconds: 3)
        let (probe, x) = try record(["streams", file], on: server, in: fixtures)
        XCTAssertTrue(probe.output.contains("done"), probe.output)
        guard let heard = twoOverOne(x) else { return XCTFail("no streams in the recording") }
        let (one, later, within) = (heard.one, heard.later, heard.within)
        print("LiveStreams (\(server)): two streams over one: \(within.count) of \(later.count) windows at +6.02 ± 0.05 dB (median \(String(format: "%.3f", Level.dB(later.sorted()[later.count / 2] / one))) dB)")
        XCTAssertGreaterThan(later.count, 100, "about 1.5 s of two streams")
        XCTAssertGreaterThanOrEqual(Double(within.count), 0.9 * Double(later.count))
    }

    /// Runs `MusicProbe arguments` against a private `server` whose default sink `game` is
    /// recorded (mono float at 48 kHz) from 0.3 s before to 0.3 s after; its result and the recording.
    private func record(_ arguments: [String], on server: SoundServer,
                        in fixtures: MusicFixtures) throws -> (probe: (status: Int32, output: String), recording: [Float]) {
        let pulse = try PrivateSoundServer.start(server, in: fixtures.directory, forOpenAL: true)
        defer { pulse.stop() }
        try pulse.nullSink("game", makeDefault: true)
        let recording = fixtures.directory.appendingPathComponent("rec.f32")
        let parec = try ChildProcess("/usr/bin/parec", ["--device=game.monitor", "--latency-msec=20", "--format=float32le", "--rate=48000", "--channels=1",
                                                        "--raw", recording.path], environment: pulse.environment)
        defer { parec.stop() }
        Thread.sleep(forTimeInterval: 0.3)
        let probe = try ChildProcess.run(probePath, arguments, environment: pulse.environment, timeout: 30)
        Thread.sleep(forTimeInterval: 0.3)
        parec.stop()
        XCTAssertEqual(probe.status, 0, probe.output)
        let data = try Data(contentsOf: recording)
        return (probe, data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
    }

    /// In a recording of one 3,989 Hz source for about a second and then two: the level of each
    /// 10 ms window, where sound begins, the level of one (the median of its first second, its
    /// first and last windows left out), the later windows louder than 1.5 × one, and those of
    /// them at +6.02 ± 0.05 dB; nil when nothing was heard.
    private func twoOverOne(_ x: [Float]) -> (amplitudes: [Double], first: Int, one: Double, later: [Double], within: [Double])? {
        let amplitudes = stride(from: 0, to: x.count - 480, by: 480).map { AdaptiveMusicTests.amplitude(x, 3_989, $0..<($0 + 480)) }
        guard let loudest = amplitudes.max(), loudest > 0.05, let first = amplitudes.firstIndex(where: { $0 > loudest / 4 }),
              first + 110 < amplitudes.count else { return nil }
        let one = amplitudes[(first + 5)..<(first + 90)].sorted()[42]
        let later = amplitudes[(first + 110)...].filter { $0 > one * 1.5 }
        let within = later.filter { abs(Level.dB($0 / one) - 6.0206) <= 0.05 }
        return (amplitudes, first, one, later, within)
    }
}
