import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// End events: exactly one per play session, with the right reason, on the AsyncStream and the callback.
final class MusicEventTests: XCTestCase {
    private final class Box: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [MusicTrack.Event] = []
        func add(_ e: MusicTrack.Event) { lock.lock(); events.append(e); lock.unlock() }
        var all: [MusicTrack.Event] { lock.lock(); defer { lock.unlock() }; return events }
    }

    private func collect(_ track: MusicTrack) async -> [MusicTrack.Event] {
        var out: [MusicTrack.Event] = []
        for await e in track.events { out.append(e) }
        return out
    }

    func testFinishedAndStoppedFireOnce() async throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        let short = try engine.loadMusic(path: try files.sineWAV("short.wav", seconds: 0.2))
        let long = try engine.loadMusic(path: try files.sineWAV("long.wav", seconds: 2))
        let callbacks = Box()
        short.onEnd = { callbacks.add($0) }
        try short.play()
        try long.play()
        _ = try MusicRender.render(engine, seconds: 0.5)
        XCTAssertFalse(short.isPlaying)
        XCTAssertEqual(short.currentTime, 0, "a finished track rewinds")
        long.stop()
        long.stop()
        long.pause()
        _ = try MusicRender.render(engine, seconds: 0.1)
        engine.shutdown()   // finishes the event streams
        let shortEvents = await collect(short)
        let longEvents = await collect(long)
        XCTAssertEqual(shortEvents.map(\.reason), [.finished])
        XCTAssertEqual(longEvents.map(\.reason), [.stopped])
        XCTAssertNil(shortEvents.first?.error)
        for _ in 0..<100 where callbacks.all.isEmpty { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertEqual(callbacks.all.map(\.reason), [.finished])
    }

    func testShutdownStopsAPlayingTrackOnceAndPlayAgainStartsANewSession() async throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        let track = try engine.loadMusic(path: try files.sineWAV("s.wav", seconds: 0.1))
        try track.play()
        _ = try MusicRender.render(engine, seconds: 0.2)
        try track.play()      // a second session
        _ = try MusicRender.render(engine, seconds: 0.05)
        engine.shutdown()
        engine.shutdown()
        let events = await collect(track)
        XCTAssertEqual(events.map(\.reason), [.finished, .stopped])
        XCTAssertThrowsError(try track.play()) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
    }

    func testPlayAfterIsGapless() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        // Two halves of one 500 Hz sine (250 cycles each): played back to back they must join
        // without a step, and end after exactly 1.0 s.
        let first = try engine.loadMusic(path: try files.sineWAV("a.wav", seconds: 0.5))
        let second = try engine.loadMusic(path: try files.sineWAV("b.wav", seconds: 0.5))
        try first.play()
        try second.play(after: first)
        XCTAssertTrue(second.isWaitingToPlay)
        let out = MusicRender.left(try MusicRender.render(engine, seconds: 1.2, block: 1_000))
        XCTAssertEqual(MusicRender.lastSound(out), 48_000 - 1)
        let reference = MusicRender.maxStep(out, 5_000..<20_000)
        XCTAssertLessThanOrEqual(MusicRender.maxStep(out, 23_800..<24_200), 1.5 * reference)
        XCTAssertGreaterThan(Level.rms(out, 23_900..<24_380), 0.5 * Level.rms(out, 5_000..<5_480))
    }

    func testCrossfadeKeepsPowerAndStopsTheOldTrack() throws {
        let files = try MusicFixtures()
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let a = try engine.loadMusic(path: try files.sineWAV("a.wav", frequency: 500))
        let b = try engine.loadMusic(path: try files.sineWAV("b.wav", frequency: 750))
        a.numberOfLoops = -1
        b.numberOfLoops = -1
        try a.play()
        let before = MusicRender.left(try MusicRender.render(engine, seconds: 0.1))
        try a.crossfade(to: b, duration: 0.4)
        let during = MusicRender.left(try MusicRender.render(engine, seconds: 0.45))
        XCTAssertFalse(a.isPlaying)
        XCTAssertTrue(b.isPlaying)
        XCTAssertEqual(a.volume, 1, "the faded-out track gets its volume back for its next play")
        // Equal power: half-way, two uncorrelated sines at √½ each keep the level.
        let mid = Level.rms(during, 8_640..<10_560)
        XCTAssertEqual(Level.dB(mid), Level.dB(Level.rms(before, 2_400..<4_320)), accuracy: 0.5)
    }
}
