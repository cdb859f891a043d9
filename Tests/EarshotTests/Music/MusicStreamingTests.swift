@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Starvation, underruns, several tracks at once, bad files.
final class MusicStreamingTests: XCTestCase {
    func testRenderLoopStallingDoesNotUnderrun() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let track = try engine.loadMusic(path: try files.sineVorbis("sine.ogg"))
        track.numberOfLoops = -1
        try track.play()
        var levels: [Double] = []
        for _ in 0..<5 {
            let block = MusicRender.left(try engine.render(frames: 480))
            levels.append(Level.rms(block, 0..<480))
            usleep(100_000)   // the game loop stalls 100 ms between frames
        }
        // One render far longer than the queued ring: the render path tops up first.
        let long = MusicRender.left(try engine.render(frames: 96_000))
        for start in stride(from: 0, to: 96_000 - 480, by: 480) { levels.append(Level.rms(long, start..<(start + 480))) }
        XCTAssertEqual(engine.musicStats.underruns, 0)
        XCTAssertEqual(track.underrunCount, 0)
        let lo = levels.dropFirst().min() ?? 0, hi = levels.dropFirst().max() ?? 0
        XCTAssertGreaterThan(lo, 0.1)
        XCTAssertEqual(Level.dB(lo), Level.dB(hi), accuracy: 0.5)
        XCTAssertTrue(track.isPlaying)
    }

    func testStarvedSourceIsCountedAndRestarted() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        engine.musicSystem.renderLookahead = false   // only the 0.5 s ring is queued
        let track = try engine.loadMusic(path: try files.sineWAV("sine.wav", seconds: 2))
        try track.play()
        let starved = MusicRender.left(try engine.render(frames: 48_000))
        XCTAssertEqual(Level.rms(starved, 30_000..<48_000), 0, "the queue ran dry mid-render")
        let after = MusicRender.left(try engine.render(frames: 4_800))
        XCTAssertEqual(track.underrunCount, 1)
        XCTAssertEqual(engine.musicStats.underruns, 1)
        XCTAssertGreaterThan(Level.rms(after, 0..<4_800), 0.1, "restarted")
        // No frame was lost: the position continues from where the queue ran dry.
        XCTAssertEqual(track.currentTime, 0.6, accuracy: 0.001)
    }

    func testCorruptDataMidStreamFailsThatTrackOnly() throws {
        let files = try MusicFixtures()
        let noise = files.path("noise.wav")
        try MusicFixtures.run("/usr/bin/sox", ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", noise, "synth", "3", "pinknoise", "vol", "0.3"])
        let ogg = files.path("noise.ogg")
        try MusicFixtures.run("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y", "-i", noise, "-c:a", "libvorbis", "-q:a", "5", ogg])
        var data = try Data(contentsOf: URL(fileURLWithPath: ogg))
        let middle = data.count / 2
        for i in 0..<4_000 { data[middle + i] = UInt8(truncatingIfNeeded: i * 37 + 11) }
        try data.write(to: URL(fileURLWithPath: ogg))

        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let bed = try engine.loadMusic(path: try files.sineWAV("bed.wav"))
        bed.numberOfLoops = -1
        try bed.play()
        let alone = Level.rms(MusicRender.left(try MusicRender.render(engine, seconds: 0.1)), 0..<4_800)
        let broken = try engine.loadMusic(path: ogg)
        let ends = Ends()
        broken.onEnd = { ends.add($0) }
        try broken.play()
        var rendered = 0.0
        while broken.isPlaying, rendered < 4 {
            _ = try MusicRender.render(engine, seconds: 0.1)
            rendered += 0.1
        }
        XCTAssertFalse(broken.isPlaying)
        XCTAssertLessThan(rendered, 2.5, "the track must end at the damage, not play through it")
        XCTAssertTrue(bed.isPlaying)
        let later = Level.rms(MusicRender.left(try MusicRender.render(engine, seconds: 0.1)), 0..<4_800)
        XCTAssertEqual(Level.dB(later), Level.dB(alone), accuracy: 0.5, "the other track plays on")
        for _ in 0..<100 where ends.all.isEmpty { usleep(10_000) }
        XCTAssertEqual(ends.all.map(\.reason), [.failed])
        if case .decodeFailed(let path, _)? = ends.all.first?.error {
            XCTAssertEqual(path, ogg)
        } else {
            XCTFail("expected decodeFailed, got \(String(describing: ends.all.first?.error))")
        }
    }

    func testBadFilesFailAtOpenWithTypedErrors() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let text = files.path("notes.txt")
        try "not audio at all".write(toFile: text, atomically: true, encoding: .utf8)
        let fakeOgg = files.path("fake.ogg")
        try Data("OggS and then nothing sensible".utf8).write(to: URL(fileURLWithPath: fakeOgg))
        let surround = files.path("six.wav")
        try MusicFixtures.run("/usr/bin/sox", ["-D", "-n", "-r", "48000", "-c", "6", "-b", "16", surround, "synth", "0.1", "sine", "440"])

        XCTAssertThrowsError(try engine.loadMusic(path: files.path("missing.ogg"))) {
            XCTAssertEqual($0 as? EarshotError, .fileNotFound(path: files.path("missing.ogg")))
        }
        for bad in [text, fakeOgg, files.directory.path] {
            XCTAssertThrowsError(try engine.loadMusic(path: bad)) { error in
                guard case .unreadableFile(let path, _)? = error as? EarshotError else { return XCTFail("\(bad): \(error)") }
                XCTAssertEqual(path, bad)
            }
        }
        XCTAssertThrowsError(try engine.loadMusic(path: surround)) { error in
            guard case .unsupportedEncoding? = error as? EarshotError else { return XCTFail("\(error)") }
        }
    }

    func testSeveralTracksPlayAtOnceUntilTheMusicSourcesRunOut() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine { $0.musicSources = 2 }
        defer { engine.shutdown() }
        let a = try engine.loadMusic(path: try files.sineWAV("a.wav", frequency: 500))
        let b = try engine.loadMusic(path: try files.sineWAV("b.wav", frequency: 1_000))
        let c = try engine.loadMusic(path: try files.sineWAV("c.wav", frequency: 1_500))
        try a.play()
        try b.play()
        XCTAssertThrowsError(try c.play()) { XCTAssertEqual($0 as? EarshotError, .musicSourcesBusy(2)) }
        XCTAssertEqual(engine.musicStats.playingTracks, 2)
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 0.1))
        // Both sines at equal level: the sum's RMS is √2 × one's.
        let one = 0.5 * 0.5957 / 2.0.squareRoot()
        XCTAssertEqual(Level.dB(Level.rms(out, 2_400..<4_800)), Level.dB(one * 2.0.squareRoot()), accuracy: 0.5)
        a.stop()
        try c.play()
        XCTAssertTrue(c.isPlaying)
    }
}

private final class Ends: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [MusicTrack.Event] = []
    func add(_ e: MusicTrack.Event) { lock.lock(); events.append(e); lock.unlock() }
    var all: [MusicTrack.Event] { lock.lock(); defer { lock.unlock() }; return events }
}
