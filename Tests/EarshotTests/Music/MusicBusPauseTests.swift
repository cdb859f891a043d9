@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The music bus's pause, stop and mute reach every track; fades run in playback time; every
/// track call is safe while the device is lost. Measured on the loopback output.
final class MusicBusPauseTests: XCTestCase {
    /// Renders in 480-frame blocks with an `update()` before each, as a game does.
    private func play(_ e: AudioEngine, seconds: Double) throws -> [Float] {
        var out: [Float] = []
        var left = Int((seconds * 48_000).rounded())
        while left > 0 {
            e.update()
            let n = min(480, left)
            out += try e.render(frames: n)
            left -= n
        }
        return MusicRender.left(out)
    }

    private func peak(_ x: [Float]) -> Float { x.reduce(0) { max($0, abs($1)) } }

    /// Item 1: `setPaused(true, for: .music)` silences every track; resumed, each goes on from
    /// where it was (the click lands exactly as late as the pause lasted).
    func testMusicBusPauseHoldsTracksAndResumesInPlace() throws {
        let files = try MusicFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let track = try e.loadMusic(path: try files.clickWAV("click.wav", clickFrame: 24_000))   // click at 0.5 s
        try track.play()
        _ = try play(e, seconds: 0.2)
        try e.setPaused(true, for: .music)
        XCTAssertFalse(track.isPlaying)
        let during = try play(e, seconds: 1.0)
        XCTAssertLessThan(peak(during), 1e-4, "music played while its bus was paused")
        XCTAssertEqual(track.currentTime, 0.2, accuracy: 0.002)
        // A track played while the bus is paused waits for the bus.
        let other = try e.loadMusic(path: try files.sineWAV("sine.wav"))
        try other.play()
        XCTAssertFalse(other.isPlaying)
        XCTAssertLessThan(peak(try play(e, seconds: 0.1)), 1e-4)
        other.stop()
        try e.setPaused(false, for: .music)
        XCTAssertTrue(track.isPlaying)
        let after = try play(e, seconds: 0.5)
        XCTAssertEqual(Double(MusicRender.firstSound(after, threshold: 0.05)), 14_400, accuracy: 48,
                       "0.3 s of file remained before the click")
    }

    /// Item 1: `stopAll(on: .music)` stops every track with `.stopped`; muting the music bus
    /// silences tracks at once.
    func testStopAllAndMuteReachMusic() throws {
        let files = try MusicFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try e.loadMusic(path: try files.sineWAV("a.wav"))
        let b = try e.loadMusic(path: try files.sineWAV("b.wav", frequency: 700))
        a.numberOfLoops = -1
        b.numberOfLoops = -1
        try a.play()
        try b.play()
        let loud = try play(e, seconds: 0.2)
        XCTAssertGreaterThan(Level.rms(loud, 4_800..<9_600), 0.1)
        try e.setMuted(true, for: .music)
        let muted = try play(e, seconds: 0.1)
        XCTAssertLessThan(peak(Array(muted[480...])), 1e-4, "a muted music bus is silent")
        XCTAssertTrue(a.isPlaying)
        try e.setMuted(false, for: .music)
        _ = try play(e, seconds: 0.1)
        try e.stopAll(on: .music)
        XCTAssertFalse(a.isPlaying)
        XCTAssertFalse(b.isPlaying)
        XCTAssertLessThan(peak(Array(try play(e, seconds: 0.2))), 1e-4, "stopAll(on: .music) left music playing")
        let ends = Locked<[MusicTrack.Event.Reason]>([])
        let done = expectation(description: "events")
        Task {
            for await ev in a.events { ends.withLock { $0.append(ev.reason) }; break }
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(ends.withLock { $0 }, [.stopped])
    }

    /// Item 2: a track paused in the middle of a fade-out (by its own pause or its bus's) resumes
    /// at the level it had when paused and finishes the fade over the time that was left.
    func testFadeIsFrozenWhileTrackOrBusIsPaused() throws {
        let files = try MusicFixtures()
        for byBus in [false, true] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let track = try e.loadMusic(path: try files.sineWAV("sine\(byBus).wav"))
            track.numberOfLoops = -1
            try track.play()
            let full = Level.rms(try play(e, seconds: 0.1), 2_400..<4_800)
            track.fade(to: 0, duration: 1.0)
            let before = try play(e, seconds: 0.5)
            let atPause = Level.rms(before, before.count - 960..<before.count) / full
            XCTAssertEqual(atPause, 0.5, accuracy: 0.05)
            if byBus { try e.setPaused(true, for: .music) } else { track.pause() }
            XCTAssertLessThan(peak(try play(e, seconds: 1.5)), 1e-4)
            if byBus { try e.setPaused(false, for: .music) } else { try track.play() }
            let resumed = try play(e, seconds: 0.6)
            let atResume = Level.rms(resumed, 0..<960) / full
            XCTAssertEqual(atResume, 0.5, accuracy: 0.05, "resumed at \(atResume) of full (bus: \(byBus))")
            let quarter = Level.rms(resumed, 11_520..<12_480) / full     // 0.25 s later: 0.25 left
            XCTAssertEqual(quarter, 0.25, accuracy: 0.05, "bus: \(byBus)")
            XCTAssertLessThan(Level.rms(resumed, 26_400..<28_800) / full, 0.01, "the fade ended on time")
        }
    }

    /// Item 2: a crossfade paused by the music bus keeps both levels where they were.
    func testCrossfadeIsFrozenWhileMusicBusIsPaused() throws {
        let files = try MusicFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try e.loadMusic(path: try files.sineWAV("a.wav", frequency: 500))
        let b = try e.loadMusic(path: try files.sineWAV("b.wav", frequency: 500))
        a.numberOfLoops = -1
        b.numberOfLoops = -1
        try a.play()
        let full = Level.rms(try play(e, seconds: 0.1), 2_400..<4_800)
        try a.crossfade(to: b, duration: 1.0, curve: .linear)
        _ = try play(e, seconds: 0.25)
        try e.setPaused(true, for: .music)
        _ = try play(e, seconds: 2.0)
        XCTAssertFalse(b.isPlaying)
        try e.setPaused(false, for: .music)
        XCTAssertTrue(a.isPlaying, "the crossfade did not run on while paused")
        XCTAssertEqual(a.volume, 0.75, accuracy: 0.02)
        XCTAssertEqual(b.volume, 0.25, accuracy: 0.02)
        let out = try play(e, seconds: 1.0)
        // Same phase, same frequency: the sum is a.volume + b.volume = 1 throughout a linear crossfade.
        XCTAssertEqual(Level.rms(out, 0..<960) / full, 1, accuracy: 0.05)
        XCTAssertFalse(a.isPlaying)
        XCTAssertTrue(b.isPlaying)
    }

    /// Item 10: every track call is safe while the device is lost, and what was asked is applied
    /// on the new device: a stop holds, a play (even of a track that never played) starts there.
    func testEveryTrackCallIsSafeDuringDeviceRecovery() throws {
        let files = try MusicFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try e.loadMusic(path: try files.clickWAV("click.wav", clickFrame: 48_000))   // click at 1 s
        let b = try e.loadMusic(path: try files.sineWAV("b.wav", frequency: 700))
        let c = try e.loadMusic(path: try files.sineWAV("c.wav", frequency: 900))
        let d = try e.loadMusic(path: try files.sineWAV("d.wav", frequency: 300))
        b.numberOfLoops = -1
        try a.play()
        try d.play()
        _ = try play(e, seconds: 0.3)
        e.simulateDeviceLoss()
        _ = try play(e, seconds: 0.01)
        XCTAssertTrue(e.isDeviceLost)
        // The calls a game makes, while lost.
        a.stop()
        XCTAssertFalse(a.isPlaying)
        XCTAssertEqual(a.currentTime, 0.3, accuracy: 0.05)
        a.currentTime = 0.5
        XCTAssertEqual(a.currentTime, 0.5, accuracy: 1e-3)
        a.volume = 0.9
        a.pan = 0.1
        a.rate = 1
        a.numberOfLoops = 0
        a.fade(to: 1, duration: 0.01)
        a.updateMeters()
        try b.prepareToPlay()
        try b.play()
        XCTAssertTrue(b.isPlaying)
        b.pause()
        try b.play()
        b.currentTime = 0.1
        try c.play(after: b)
        c.stop()
        try d.crossfade(to: c, duration: 0.2)
        try e.setPaused(true, for: .music)
        try e.setPaused(false, for: .music)
        try a.play()
        // Back on a device.
        var deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline { usleep(2_000); _ = try play(e, seconds: 0.01) }
        XCTAssertFalse(e.isDeviceLost)
        _ = try play(e, seconds: 0.4)
        XCTAssertTrue(a.isPlaying)
        XCTAssertTrue(b.isPlaying)
        XCTAssertTrue(c.isPlaying, "the crossfade's target started on the new device")
        XCTAssertFalse(d.isPlaying, "the crossfade stopped its source track")
        b.stop()
        c.stop()
        // `a` restarted where the game put it during the loss (0.5 s): the click is 0.5 s in.
        a.stop()
        a.currentTime = 0.5
        try a.play()
        let out = try play(e, seconds: 0.7)
        XCTAssertEqual(Double(MusicRender.firstSound(out, threshold: 0.05)), 24_000, accuracy: 96)
        // And a stop during a second loss holds after it.
        e.simulateDeviceLoss()
        _ = try play(e, seconds: 0.01)
        try e.stopAll(on: .music)
        deadline = Date().addingTimeInterval(5)
        while e.isDeviceLost, Date() < deadline { usleep(2_000); _ = try play(e, seconds: 0.01) }
        XCTAssertFalse(a.isPlaying)
        XCTAssertLessThan(peak(try play(e, seconds: 0.2)), 1e-4)
    }
}

extension MusicBusPauseTests {
    /// Item 10: a track stopped by another thread while the engine is rebuilt on a new device
    /// (the core has new music sources, the music is not yet reattached) used to trap in
    /// `releaseMusicSource`; now the stop holds and the track stays stopped on the new device.
    func testStopWhileTheDeviceIsBeingRebuilt() throws {
        let files = try MusicFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let a = try e.loadMusic(path: try files.sineWAV("a.wav", seconds: 3))
        try a.play()
        _ = try play(e, seconds: 0.3)
        let stopped = Locked(false)
        e.recovery.beforeMusicReattach.withLock { $0 = { a.stop(); stopped.withLock { $0 = true } } }
        e.simulateDeviceLoss()
        let deadline = Date().addingTimeInterval(5)
        _ = try play(e, seconds: 0.01)
        while e.isDeviceLost, Date() < deadline { usleep(2_000); _ = try play(e, seconds: 0.01) }
        XCTAssertTrue(stopped.withLock { $0 })
        XCTAssertFalse(a.isPlaying)
        XCTAssertLessThan(peak(try play(e, seconds: 0.2)), 1e-4)
        XCTAssertEqual(a.currentTime, 0.3, accuracy: 0.05, "it keeps the position it had")
        try a.play()
        XCTAssertGreaterThan(Level.rms(try play(e, seconds: 0.2), 2_400..<4_800), 0.1)
    }
}
