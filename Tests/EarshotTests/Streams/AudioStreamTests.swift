@testable import Earshot
import EarshotMeasure
import EarshotTestSupport
import Foundation
import XCTest

/// Plain streams (``AudioStream``) of 1…16 channels, rendered through the loopback device: each
/// channel of a file made by sox carries its own tone, and where that tone comes out says where
/// the channel was played.
final class AudioStreamTests: XCTestCase {
    /// Level (RMS of the tone's component, by correlation) of `frequency` in channel `channel` of
    /// interleaved `x`.
    private func level(_ x: [Float], channels: Int, channel: Int, frequency: Double) -> Double {
        var re = 0.0, im = 0.0
        let frames = x.count / channels
        for i in 0..<frames {
            let v = Double(x[i * channels + channel])
            let a = 2 * Double.pi * frequency * Double(i) / 48_000
            re += v * cos(a)
            im += v * sin(a)
        }
        return (re * re + im * im).squareRoot() / Double(max(frames, 1)) * 2.squareRoot()
    }

    /// A sox file of `frequencies.count` channels, channel k a sine of `frequencies[k]` at 0.25.
    private func toneFile(_ files: MusicFixtures, _ name: String, _ frequencies: [Int], seconds: Double = 1) throws -> String {
        let out = files.path(name)
        var args = ["-D", "-n", "-r", "48000", "-c", "\(frequencies.count)", "-b", "16", out, "synth", "\(seconds)"]
        for f in frequencies { args += ["sine", "\(f)"] }
        args += ["vol", "0.25"]
        try MusicFixtures.run("/usr/bin/sox", args)
        return out
    }

    /// Renders `seconds` after the first 0.25 s (the stream has started and settled).
    private func render(_ e: AudioEngine, seconds: Double) throws -> [Float] {
        try TestSignals.renderGameFrames(e, seconds: 0.25)
        return try TestSignals.renderGameFrames(e, seconds: seconds)
    }

    func testASixChannelFilePlaysOnOneSourceAtItsLoudspeakers() throws {
        let files = try MusicFixtures()
        // 5.1 in WAVE order: front left, front right, centre, LFE, side left, side right.
        let freqs = [300, 500, 700, 900, 1_100, 1_300]
        let path = try toneFile(files, "six.wav", freqs)
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000, channels: .quad))
        config.musicSources = 2
        let e = try AudioEngine(configuration: config)
        defer { e.shutdown() }
        let stream = try e.openStream(path: path)
        XCTAssertEqual(stream.file.channels, 6)
        XCTAssertEqual(stream.parts.count, 1, "5.1 has an OpenAL format (AL_EXT_MCFORMATS): one source")
        try stream.play()
        let out = try render(e, seconds: 0.5)
        // Output quad: front left, front right, back left, back right.
        let db = freqs.map { f in (0..<4).map { Level.dB(level(out, channels: 4, channel: $0, frequency: Double(f))) } }
        for (i, row) in db.enumerated() { print("6ch tone \(freqs[i]) Hz per output channel (dB):", row.map { String(format: "%.1f", $0) }) }
        // OpenAL pans each channel from its loudspeaker (±30°, 0°, ±110°) over the quad's four:
        // the nearest output loudest, the far side tens of dB down (measured 4.8 dB front
        // left over front right, 11 dB over back left, >100 dB over back right).
        XCTAssertGreaterThan(db[0][0], db[0][1] + 3, "front left comes out front left")
        XCTAssertGreaterThan(db[0][0], db[0][3] + 40, "and not back right")
        XCTAssertGreaterThan(db[1][1], db[1][0] + 3, "front right comes out front right")
        XCTAssertGreaterThan(db[1][1], db[1][2] + 40, "and not back left")
        XCTAssertEqual(db[2][0], db[2][1], accuracy: 0.5, "centre: front left and right alike")
        XCTAssertGreaterThan(db[2][0], max(db[2][2], db[2][3]) + 40, "centre is ahead")
        XCTAssertLessThan(db[3].max() ?? 0, -80, "LFE: the quad output has no LFE channel")
        XCTAssertGreaterThan(db[4][2], db[4][0] + 2, "side left comes out back left")
        XCTAssertGreaterThan(db[4][2], db[4][1] + 40, "and not front right")
        XCTAssertGreaterThan(db[5][3], db[5][1] + 2, "side right comes out back right")
        XCTAssertGreaterThan(db[5][3], db[5][0] + 40, "and not front left")
        for i in [0, 1, 2, 4, 5] { XCTAssertGreaterThan(db[i].max() ?? -200, -30, "\(freqs[i]) Hz is heard") }
    }

    func testAThreeChannelFilePlaysAsAnAlignedGroupOfMonoSources() throws {
        let files = try MusicFixtures()
        let freqs = [400, 800, 1_200]   // left, right, centre
        let path = try toneFile(files, "three.wav", freqs)
        let e = try TestSignals.loopbackEngine { $0.musicSources = 4 }
        defer { e.shutdown() }
        let stream = try e.openStream(path: path)
        XCTAssertEqual(stream.file.channels, 3)
        XCTAssertEqual(stream.parts.count, 3, "3 channels have no OpenAL format: one mono source each")
        try stream.play()
        XCTAssertTrue(stream.isPlaying)
        let out = try render(e, seconds: 0.5)
        let db = freqs.map { f in (0..<2).map { Level.dB(level(out, channels: 2, channel: $0, frequency: Double(f))) } }
        for (i, row) in db.enumerated() { print("3ch tone \(freqs[i]) Hz L/R (dB):", row.map { String(format: "%.1f", $0) }) }
        XCTAssertGreaterThan(db[0][0], db[0][1] + 6, "channel 0 is left")
        XCTAssertGreaterThan(db[1][1], db[1][0] + 6, "channel 1 is right")
        XCTAssertEqual(db[2][0], db[2][1], accuracy: 0.5, "channel 2 is the centre")
        for row in db { XCTAssertGreaterThan(row.max() ?? -200, -30, "every channel is heard") }
        // Seeks, pauses and stops move the whole group.
        stream.seek(to: 0.5)
        XCTAssertEqual(stream.currentTime, 0.5, accuracy: 0.001)
        stream.stop()
        XCTAssertFalse(stream.isPlaying)
        let after = try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertLessThan(Level.rms(after, 0..<after.count), 1e-4, "every channel stopped")
    }

    func testStreamsStartedTogetherStartOnTheSameFrame() throws {
        let files = try MusicFixtures()
        // A: a mono click (heard in both outputs); B: a stereo file whose click is in the right
        // channel only. Started together, the right output's click is A's and B's on one frame.
        let a = try files.clickWAV("a.wav", seconds: 1, clickFrame: 2_400)
        var samples = [Float](repeating: 0, count: 48_000 * 2)
        samples[2_400 * 2 + 1] = 0.9
        let bPath = files.path("b.wav")
        let writer = try AudioFileWriter(path: bPath, sampleRate: 48_000, channels: 2, format: .f32)
        try writer.write(samples)
        try writer.close()
        let e = try TestSignals.loopbackEngine { $0.musicSources = 4 }
        defer { e.shutdown() }
        let sa = try e.openStream(path: a), sb = try e.openStream(path: bPath)
        try TestSignals.renderGameFrames(e, seconds: 0.01)   // start mid-render-stream, not at frame 0
        try AudioStream.play([sa, sb])
        let out = try TestSignals.renderGameFrames(e, seconds: 0.3)
        func peaks(_ channel: Int) -> [Int] {
            (0..<(out.count / 2)).filter { abs(out[$0 * 2 + channel]) > 0.2 }
        }
        let left = peaks(0), right = peaks(1)
        XCTAssertEqual(left.count, 1, "A's click once in the left output: \(left)")
        XCTAssertEqual(right, left, "B's click lands on A's frame in the right output")
        XCTAssertEqual(left.first, 2_400, "both start on the first frame mixed after the call")

        // And the same pair given one audio time on the clock.
        sa.stop(); sb.stop()
        sa.seek(to: 0); sb.seek(to: 0)
        let at = e.audioTime + 0.1
        try AudioStream.play([sa, sb], at: at)
        let out2 = try TestSignals.renderGameFrames(e, seconds: 0.3)
        let l2 = (0..<(out2.count / 2)).filter { abs(out2[$0 * 2]) > 0.2 }
        let r2 = (0..<(out2.count / 2)).filter { abs(out2[$0 * 2 + 1]) > 0.2 }
        XCTAssertEqual(l2.count, 1)
        XCTAssertEqual(r2, l2, "scheduled together: one frame")
    }

    func testChannelCountsAreCheckedAtOpen() throws {
        let files = try MusicFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let seventeen = try toneFile(files, "seventeen.wav", Array(repeating: 440, count: 17), seconds: 0.05)
        XCTAssertThrowsError(try e.openStream(path: seventeen)) { error in
            guard case .unsupportedEncoding(let what)? = error as? EarshotError else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains("17 channels"), what)
        }
        let sixteen = try toneFile(files, "sixteen.wav", Array(repeating: 440, count: 16), seconds: 0.05)
        let s = try e.openStream(path: sixteen)
        XCTAssertEqual(s.file.channels, 16)
        XCTAssertEqual(s.parts.count, 16)
        // Music keeps its own policy: mono or stereo.
        XCTAssertThrowsError(try e.loadMusic(path: sixteen)) { error in
            guard case .unsupportedEncoding? = error as? EarshotError else { return XCTFail("\(error)") }
        }
        // A positional stream is mono.
        let emitter = try e.makeEmitter(SpatialProperties())
        XCTAssertThrowsError(try e.openStream(path: sixteen, options: .init(emitter: emitter))) { error in
            guard case .invalidArgument? = error as? EarshotError else { return XCTFail("\(error)") }
        }
    }

    func testAMonoStreamOnAnEmitterLoopsItsPassesAndAFadeStopsAnother() async throws {
        let files = try MusicFixtures()
        let tone = try files.sineWAV("tone.wav", frequency: 500, amplitude: 0.5, seconds: 0.25)
        let e = try TestSignals.loopbackEngine()
        let emitter = try e.makeEmitter(SpatialProperties(position: Vector3(2, 0, 0)))   // to the right
        let looped = try e.openStream(path: tone, options: .init(bus: .voice, emitter: emitter, numberOfLoops: 1))
        let loopedEnds = looped.events   // a stream sees the ends from when it is read
        try looped.play()
        let out = try TestSignals.renderGameFrames(e, seconds: 0.7)
        let frames = out.count / 2
        let lastHeard = try XCTUnwrap((0..<frames).last { abs(out[$0 * 2]) + abs(out[$0 * 2 + 1]) > 0.01 })
        print("looped stream: last heard at \(Double(lastHeard) / 48_000) s")
        XCTAssertEqual(Double(lastHeard) / 48_000, 0.5, accuracy: 0.002, "two passes of 0.25 s, then silence")
        let rms = Level.rms(Array(out[0..<(48_000 * 2 * 4 / 10)]), channels: 2)
        XCTAssertGreaterThan(rms[1], rms[0] * 2, "the emitter is to the right: \(rms)")
        XCTAssertFalse(looped.isPlaying)

        let faded = try e.openStream(path: tone, options: .init(numberOfLoops: -1))
        let fadedEnds = faded.events
        try faded.play()
        faded.fade(to: 0, duration: 0.1, stopsAtEnd: true)
        let fadeOut = try TestSignals.renderGameFrames(e, seconds: 0.3)
        XCTAssertLessThan(Level.rms(fadeOut, (48_000 * 2 * 2 / 10)..<fadeOut.count), 1e-5, "silent after the fade")
        XCTAssertFalse(faded.isPlaying)
        e.shutdown()   // finishes the event streams
        var ends: [AudioStream.Event.Reason] = []
        for await end in loopedEnds { ends.append(end.reason) }
        for await end in fadedEnds { ends.append(end.reason) }
        XCTAssertEqual(ends, [.finished, .stopped])
    }

    /// `events` is a broadcast: two consumers each see every end of a stream played three
    /// times, both loops end at shutdown, and a stream read after shutdown is finished at once.
    func testEveryConsumerSeesEveryEndAndShutdownFinishesThem() async throws {
        let files = try MusicFixtures()
        let tone = try files.sineWAV("short.wav", frequency: 500, amplitude: 0.5, seconds: 0.1)
        let e = try TestSignals.loopbackEngine()
        let stream = try e.openStream(path: tone)
        try await assertEveryConsumerSeesEveryEnd(engine: e, events: { stream.events }, play: { try stream.play() })
    }

    func testANineChannelFileIsARingAndTooFewSourcesIsATypedError() throws {
        let files = try MusicFixtures()
        let freqs = [300, 420, 540, 660, 780, 900, 1_020, 1_140, 1_260]
        let path = try toneFile(files, "nine.wav", freqs)
        let e = try TestSignals.loopbackEngine { $0.musicSources = 9 }
        defer { e.shutdown() }
        let nine = try e.openStream(path: path)
        XCTAssertEqual(nine.parts.count, 9)
        let other = try e.openStream(path: try files.sineWAV("mono.wav", seconds: 0.5))
        try other.play()   // one source taken: the nine channels cannot all start
        XCTAssertThrowsError(try nine.play()) { XCTAssertEqual($0 as? EarshotError, .musicSourcesBusy(9)) }
        XCTAssertFalse(nine.isPlaying)
        other.stop()
        try nine.play()   // every source the failed start took was given back
        let out = try render(e, seconds: 0.5)
        let db = freqs.map { f in (0..<2).map { Level.dB(level(out, channels: 2, channel: $0, frequency: Double(f))) } }
        for (i, row) in db.enumerated() { print("9ch channel \(i) (\(40 * i)°) L/R (dB):", row.map { String(format: "%.1f", $0) }) }
        // An even ring from straight ahead, clockwise: 0° centred, 80° right, 280° left.
        XCTAssertEqual(db[0][0], db[0][1], accuracy: 0.5)
        XCTAssertGreaterThan(db[2][1], db[2][0] + 6)
        XCTAssertGreaterThan(db[7][0], db[7][1] + 6)
        for (i, row) in db.enumerated() { XCTAssertGreaterThan(row.max() ?? -200, -30, "channel \(i) is heard") }
    }
}
