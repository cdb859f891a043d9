@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Scheduled plays and the audio clock on a live device (issue 27): a private PulseAudio daemon
/// with a `game` null sink, recorded from its monitor by `parec`, and `TimeProbe`
/// (Tests/TimeProbe) as the game — its own process, so that OpenAL Soft sees this daemon from its
/// first call. The probe plays clicks at `startTime`s on the audio clock while it updates every
/// ~16 ms; the recording says where each one was heard.
final class LiveSchedulingTests: XCTestCase {
    private var probePath: String { CLIRunner.productsDirectory.appendingPathComponent("TimeProbe").path }

    /// What one probe run gave: click onsets in the recording (frames at 48 kHz), the probe's
    /// (monotonic, audioTime) samples, and the start times it scheduled.
    struct Run {
        var onsets: [Int]
        var samples: [(mono: Double, audio: Double)]
        var scheduled: [Double]
        /// The output latency when the click played at once was mixed (nil: not sure).
        var latency: Double?
        /// `Voice.startTime` of the click played at once.
        var startNow: Double?
        /// `loop` mode: the audio times the loop's "tick" markers were reported at.
        var markers: [Double] = []
        /// `pause` mode: the paused span's bounds, and the real voices the pause took a source from.
        var paused: (Double, Double)?
        var pauses: Int?
    }

    /// Runs `TimeProbe clicks OFFSETS` against a private daemon while `parec` records the sink.
    private func run(_ offsets: [Double], mode: String = "clicks", on server: SoundServer) throws -> Run {
        try requireTools(["/usr/bin/pactl", "/usr/bin/parec"])
        guard FileManager.default.isExecutableFile(atPath: probePath) else {
            throw XCTSkip("TimeProbe is not built: run `swift build` (make test does) before `swift test`")
        }
        let fixtures = try MusicFixtures()
        let pulse = try PrivateSoundServer.start(server, in: fixtures.directory, forOpenAL: true)
        defer { pulse.stop() }
        print(String(format: "LiveScheduling (\(server)): the server answered %.0f ms after it was started", pulse.startup * 1000))
        try pulse.nullSink("game", makeDefault: true)
        let env = pulse.environment

        let recording = fixtures.directory.appendingPathComponent("rec.f32")
        let parec = try ChildProcess("/usr/bin/parec", ["--device=game.monitor", "--latency-msec=20", "--format=float32le", "--rate=48000", "--channels=1",
                                                 "--raw", recording.path],
                                     environment: env)
        defer { parec.stop() }
        Thread.sleep(forTimeInterval: 0.3)   // the recorder is running before the probe plays
        let probe = try ChildProcess.run(probePath, [mode] + offsets.map { "\($0)" }, environment: env, timeout: 30)
        Thread.sleep(forTimeInterval: 0.3)
        parec.stop()
        XCTAssertEqual(probe.status, 0, probe.output)
        let lines = probe.output.split(separator: "\n")
        XCTAssertTrue(lines.contains("done"), probe.output)

        var out = Run(onsets: [], samples: [], scheduled: [], latency: nil)
        for line in lines {
            let f = line.split(separator: " ")
            if f.first == "sample", f.count == 3, let m = Double(f[1]), let a = Double(f[2]) { out.samples.append((m, a)) }
            if f.first == "latency", f.count == 2 { out.latency = Double(f[1]) }
            if f.first == "startnow", f.count == 2 { out.startNow = Double(f[1]) }
            if f.first == "paused", f.count == 3, let lo = Double(f[1]), let hi = Double(f[2]) { out.paused = (lo, hi) }
            if f.first == "pauses", f.count == 2 { out.pauses = Int(f[1]) }
            if f.first == "scheduled" { out.scheduled = f.dropFirst().compactMap { Double($0) } }
            if f.first == "markers" { out.markers = f.dropFirst().compactMap { Double($0) } }
        }
        let data = try Data(contentsOf: recording)
        let x = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        var previous: Float = 0
        for (i, v) in x.enumerated() {
            if v > 0.15, previous <= 0.15 { out.onsets.append(i) }   // a click peaks near 0.3 (pan law, downmix)
            previous = v
        }
        return out
    }

    /// Two clicks scheduled 500 ms apart on the audio clock, while the game updates every ~16 ms,
    /// are heard 500 ± 1 ms apart (before: each started at the first update at or after its time).
    /// And where on the clock: a click played at once when the game read `audioTime` = `a` is
    /// mixed next and heard at `a` + the output latency L; the click at `startTime` a + 0.4 is
    /// heard at a + 0.4, so 0.4 s − L after the first (± 1 ms).
    func testTwoClicksScheduledHalfASecondApartAreHeardHalfASecondApart() throws { try twoClicksScheduledHalfASecondApartAreHeardHalfASecondApart(on: .pulseaudio) }
    func testTwoClicksScheduledHalfASecondApartAreHeardHalfASecondApartOnPipeWire() throws { try twoClicksScheduledHalfASecondApartAreHeardHalfASecondApart(on: .pipewire) }

    private func twoClicksScheduledHalfASecondApartAreHeardHalfASecondApart(on server: SoundServer) throws {
        let r = try run([0, 0.5], on: server)
        XCTAssertEqual(r.onsets.count, 3, "onsets \(r.onsets)")
        guard r.onsets.count == 3 else { return }
        let gap = Double(r.onsets[2] - r.onsets[1]) / 48
        let fromNow = Double(r.onsets[1] - r.onsets[0]) / 48
        print("LiveScheduling (\(server)): clicks 500 ms apart measured \(gap) ms apart; startTime a + 0.4 heard \(fromNow) ms after a click played at a, latency \(r.latency.map { "\($0 * 1000) ms" } ?? "unsure")")
        XCTAssertEqual(gap, 500, accuracy: 1)
        // Where on the clock: the latency is read apart from the mix (PulseAudio's estimate moves:
        // 1.03 ms off once, with the machine under load), so ± 2 ms against it; the exact check
        // is the next one, on the mixing clock.
        if let latency = r.latency {
            XCTAssertEqual(fromNow, 400 - latency * 1000, accuracy: 2)
        }
        // The click played at once knows when it is heard (Voice.startTime, from the mixing
        // clock): as far before the scheduled one as the recording says (± 1 ms).
        assertHeardAsTheStartTimesSay(r, fromNow: fromNow, what: "the scheduled click", server: server)
    }

    /// The exact check, on the mixing clock: a voice scheduled after the click played at once is
    /// heard as far after it as their `startTime`s say, plus a pause within `paused` (ms), ± 1 ms.
    /// When a mix came while the click was played (the probe's clock reads differ: `latency` nil),
    /// the click may have missed that mix and be heard one mix later than its startTime says —
    /// a play *at once* on a live device is exact only to its mix (`Voice.startTime`'s doc); the
    /// scheduled voice is exact either way. Seen twice in this form: 21.34 ms, one mix of 1,024
    /// frames at 48 kHz.
    private func assertHeardAsTheStartTimesSay(_ r: Run, fromNow: Double, paused: ClosedRange<Double> = 0...0,
                                               what: String, server: SoundServer, line: UInt = #line) {
        guard let now = r.startNow, let first = r.scheduled.first else {
            return XCTFail("no startTime of the play at once", line: line)
        }
        let planned = (first - now) * 1000
        let oneMix = r.latency == nil ? 1024.0 / 48 : 0
        print("LiveScheduling (\(server)): \(what)'s startTime \(planned) ms after the click's (+ a pause of \(paused.lowerBound)…\(paused.upperBound) ms); heard \(fromNow) ms after")
        XCTAssertGreaterThanOrEqual(fromNow, planned + paused.lowerBound - oneMix - 1, line: line)
        XCTAssertLessThanOrEqual(fromNow, planned + paused.upperBound + 1, line: line)
    }

    /// A looping voice scheduled live loops on its clip, not on its lead-in: its first frame is
    /// heard at its `startTime` (as far after the click played at once as their startTimes say,
    /// ± 1 ms; 0.4 s − the latency, ± 3 ms), and
    /// each pass of its 0.25 s clip follows the last by 250 ms (± 1 ms) until it is stopped.
    func testALoopScheduledLiveLoopsOnItsClip() throws { try aLoopScheduledLiveLoopsOnItsClip(on: .pulseaudio) }
    func testALoopScheduledLiveLoopsOnItsClipOnPipeWire() throws { try aLoopScheduledLiveLoopsOnItsClip(on: .pipewire) }

    private func aLoopScheduledLiveLoopsOnItsClip(on server: SoundServer) throws {
        let r = try run([0], mode: "loop", on: server)
        // The click played at once, then eight passes: more than the six copies of the clip queued
        // after the lead-in, so the loop went on from AL_LOOPING (VoicePool.settleLeadIns).
        XCTAssertEqual(r.onsets.count, 9, "onsets \(r.onsets)")
        guard r.onsets.count == 9 else { return }
        let periods = zip(r.onsets.dropFirst(), r.onsets.dropFirst(2)).map { Double($1 - $0) / 48 }
        let fromNow = Double(r.onsets[1] - r.onsets[0]) / 48
        print("LiveScheduling (\(server)): loop passes \(periods) ms apart; its start heard \(fromNow) ms after a click played at a, latency \(r.latency.map { "\($0 * 1000) ms" } ?? "unsure")")
        for p in periods { XCTAssertEqual(p, 250, accuracy: 1) }
        // Against the latency, read apart from the mix (the server's estimate moves: 1.78 ms off
        // once in a CI run): ± 3 ms. Exactly, on the mixing clock: the loop starts as far after
        // the click played at once as their startTimes say (± 1 ms).
        if let latency = r.latency {
            XCTAssertEqual(fromNow, 400 - latency * 1000, accuracy: 3)
        }
        assertHeardAsTheStartTimesSay(r, fromNow: fromNow, what: "the loop", server: server)
        // Each pass's "tick" marker is reported at the audio time its click is heard: the first at
        // the start time (heard there, as above), each later one as far after it as its click is
        // in the recording (± 1 ms).
        XCTAssertEqual(r.markers.count, 8, "markers \(r.markers)")
        guard let start = r.scheduled.first, r.markers.count == 8 else { return }
        let errors = r.markers.enumerated().map { k, t in (t - start - Double(r.onsets[k + 1] - r.onsets[1]) / 48_000) * 1000 }
        print("LiveScheduling (\(server)): loop markers reported \(errors.map { String(format: "%.3f", $0) }) ms from where their clicks are heard")
        for e in errors { XCTAssertEqual(e, 0, accuracy: 1) }
    }

    /// A voice paused in its lead-in (its source taken before a frame was heard) waits for its
    /// start again, moved on by exactly the paused span: heard once, from its first frame, as far
    /// after the click played at once as their startTimes and the pause say (± 1 ms).
    func testAVoicePausedInItsLeadInStartsLaterByThePause() throws { try aVoicePausedInItsLeadInStartsLaterByThePause(on: .pulseaudio) }
    func testAVoicePausedInItsLeadInStartsLaterByThePauseOnPipeWire() throws { try aVoicePausedInItsLeadInStartsLaterByThePause(on: .pipewire) }

    private func aVoicePausedInItsLeadInStartsLaterByThePause(on server: SoundServer) throws {
        let r = try run([0], mode: "pause", on: server)
        XCTAssertEqual(r.onsets.count, 2, "onsets \(r.onsets)")
        XCTAssertEqual(r.pauses, 1, "the voice held a source (its lead-in) when its bus paused")
        guard r.onsets.count == 2, let paused = r.paused else { return }
        let fromNow = Double(r.onsets[1] - r.onsets[0]) / 48
        print("LiveScheduling (\(server)): paused \(paused.0 * 1000)…\(paused.1 * 1000) ms in its lead-in, heard \(fromNow) ms after a click played at a, latency \(r.latency.map { "\($0 * 1000) ms" } ?? "unsure")")
        // Against the latency read apart from the mix (2.1 ms off once in a CI run): ± 3 ms;
        // exactly, on the mixing clock, against the two startTimes and the pause: ± 1 ms.
        if let latency = r.latency {
            XCTAssertGreaterThanOrEqual(fromNow, 400 + paused.0 * 1000 - latency * 1000 - 3)
            XCTAssertLessThanOrEqual(fromNow, 400 + paused.1 * 1000 - latency * 1000 + 3)
        }
        assertHeardAsTheStartTimesSay(r, fromNow: fromNow, paused: paused.0 * 1000...paused.1 * 1000, what: "the paused voice",
                                      server: server)
    }

    /// The audio clock advances at the device's rate and never backwards: clicks placed 10 s apart
    /// on it are 10 s of the recorded stream apart (±0.1 %, and ±3 ms), and over those 10 s
    /// audioTime read at every update against the monotonic clock — the null sink's own clock, so
    /// the recorded stream's — has a slope of 1 ± 0.001 (a least-squares fit: a live reading moves
    /// in the device's mixing periods).
    func testTheAudioClockAdvancesAtTheDeviceRate() throws { try theAudioClockAdvancesAtTheDeviceRate(on: .pulseaudio) }
    func testTheAudioClockAdvancesAtTheDeviceRateOnPipeWire() throws { try theAudioClockAdvancesAtTheDeviceRate(on: .pipewire) }

    private func theAudioClockAdvancesAtTheDeviceRate(on server: SoundServer) throws {
        let r = try run([0, 10], on: server)
        XCTAssertEqual(r.onsets.count, 3, "onsets \(r.onsets)")
        guard r.onsets.count == 3, r.samples.count > 100, let first = r.scheduled.first else {
            return XCTFail("onsets \(r.onsets), samples \(r.samples.count)")
        }
        let recorded = Double(r.onsets[2] - r.onsets[1]) / 48_000
        // ± 3 ms: each scheduled start is placed through the server's latency estimate, which
        // moves (10.0016 and 10.0025 s recorded in CI runs; 10.000 s usually).
        XCTAssertEqual(recorded, 10, accuracy: 0.003)
        XCTAssertEqual(recorded / 10 - 1, 0, accuracy: 0.001)
        for (a, b) in zip(r.samples, r.samples.dropFirst()) {
            XCTAssertGreaterThanOrEqual(b.audio, a.audio, "audioTime ran backwards")
        }
        // From the first scheduled click on: the probe waited for the stream to settle (see
        // Tests/TimeProbe: a new stream's first seconds on a fresh daemon).
        let later = r.samples.filter { $0.audio >= first }
        let start = later.first?.mono ?? 0
        let mm = later.map(\.mono).reduce(0, +) / Double(later.count)
        let am = later.map(\.audio).reduce(0, +) / Double(later.count)
        let slope = later.map { ($0.mono - mm) * ($0.audio - am) }.reduce(0, +) / later.map { ($0.mono - mm) * ($0.mono - mm) }.reduce(0, +)
        print("LiveScheduling (\(server)): 10 s on the audio clock recorded as \(recorded) s; audioTime/monotonic slope \(slope) over \(later.count) reads, \(later.last!.mono - start) s")
        // PipeWire's reads run a little fast over the first seconds (1.00076 and 1.00109 measured,
        // the second with both cores loaded; PulseAudio 1.00007) while the clicks placed on the
        // clock are 10.000 s apart in its recording as well. A live read is the mixed position
        // less the latency the server reports; why PipeWire's reads drift is not known yet.
        XCTAssertEqual(slope, 1, accuracy: server == .pipewire ? 0.002 : 0.001)
    }
}
