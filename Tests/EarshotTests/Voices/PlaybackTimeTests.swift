@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Delays and fades of voices run in playback time (frozen while the voice or its bus is
/// paused), and `pauseAll(except:)` / `resumeAll()`: measured on the loopback output.
final class PlaybackTimeTests: XCTestCase {
    private func channel(_ x: [Float], _ c: Int) -> [Float] { stride(from: c, to: x.count, by: 2).map { x[$0] } }
    private func peak(_ x: [Float]) -> Float { x.reduce(0) { max($0, abs($1)) } }

    /// Item 3: a voice delayed 0.5 s whose bus (or itself) is paused for 1 s, 0.2 s after the
    /// play call, starts 1 s later than its delay — from its first frame, not mid-clip.
    func testDelayIsPlaybackTime() throws {
        for pauseVoice in [false, true] {
            let e = try TestSignals.loopbackEngine()
            defer { e.shutdown() }
            let tone = try e.loadClip(TestSignals.sine(seconds: 2), name: "tone")
            let v = try e.play(tone, options: .init(delay: 0.5))
            var out = try TestSignals.renderGameFrames(e, seconds: 0.2)
            if pauseVoice { e.setPaused(true, of: v) } else { try e.setPaused(true, for: .sfx) }
            out += try TestSignals.renderGameFrames(e, seconds: 1.0)
            XCTAssertEqual(v.status, .pending, "still waiting for its delay (voice pause: \(pauseVoice))")
            if pauseVoice { e.setPaused(false, of: v) } else { try e.setPaused(false, for: .sfx) }
            out += try TestSignals.renderGameFrames(e, seconds: 0.6)
            let first = MusicRender.firstSound(channel(out, 0), threshold: 0.01)
            XCTAssertEqual(Double(first), 72_000, accuracy: 800, "started at frame \(first) (voice pause: \(pauseVoice))")
            // From its first frame: its attack at full level at once, no resume fade-in.
            let level = channel(out, 0)[(72_000 + 1_200)..<(72_000 + 2_400)]
            XCTAssertGreaterThan(Level.rms(Array(level), 0..<level.count), 0.2)
        }
        // Played while its bus is already paused: the delay counts from the resume.
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 2), name: "tone")
        _ = try TestSignals.renderGameFrames(e, seconds: 0.1)
        try e.setPaused(true, for: .sfx)
        _ = try TestSignals.renderGameFrames(e, seconds: 0.05)
        _ = try e.play(tone, options: .init(delay: 0.3))
        var out = try TestSignals.renderGameFrames(e, seconds: 1.0)
        XCTAssertLessThan(peak(out), 1e-4)
        try e.setPaused(false, for: .sfx)
        out = try TestSignals.renderGameFrames(e, seconds: 0.6)
        XCTAssertEqual(Double(MusicRender.firstSound(channel(out, 0), threshold: 0.01)), 14_400, accuracy: 800)
    }

    /// Item 2: a voice paused in the middle of its fade-in resumes at the level it had and
    /// finishes the fade over the time that was left.
    func testFadeInIsFrozenWhileBusIsPaused() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let v = try e.play(tone, options: .init(loop: true, fadeIn: 1.0))
        let before = channel(try TestSignals.renderGameFrames(e, seconds: 0.5), 0)
        try e.setPaused(true, for: .sfx)
        let during = channel(try TestSignals.renderGameFrames(e, seconds: 1.0), 0)
        XCTAssertLessThan(peak(Array(during[960...])), 1e-4, "silent while paused")
        try e.setPaused(false, for: .sfx)
        let after = channel(try TestSignals.renderGameFrames(e, seconds: 1.0), 0)
        let full = Level.rms(after, 38_400..<48_000)
        XCTAssertEqual(v.status, .real)
        XCTAssertEqual(Level.rms(before, 22_800..<24_000) / full, 0.49, accuracy: 0.04, "half-way into the fade at the pause")
        let resumed = Level.rms(after, 960..<1_920) / full        // 20–40 ms after the resume
        XCTAssertEqual(resumed, 0.53, accuracy: 0.05, "resumed at \(resumed) of full")
        XCTAssertEqual(Level.rms(after, 12_000..<12_960) / full, 0.76, accuracy: 0.05, "0.25 s later")
    }

    /// Item 2: a voice paused in the middle of `stop(fade:)` is silent and alive while paused,
    /// resumes at the level it had, and ends after the rest of its fade.
    func testStopFadeIsFrozenWhileBusIsPaused() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.5), name: "tone")
        let v = try e.play(tone, options: .init(loop: true))
        let full = Level.rms(channel(try TestSignals.renderGameFrames(e, seconds: 0.2), 0), 4_800..<9_600)
        v.stop(fade: 1.0)
        let before = channel(try TestSignals.renderGameFrames(e, seconds: 0.5), 0)
        XCTAssertEqual(Level.rms(before, 22_800..<24_000) / full, 0.51, accuracy: 0.04)
        try e.setPaused(true, for: .sfx)
        let during = channel(try TestSignals.renderGameFrames(e, seconds: 1.5), 0)
        XCTAssertLessThan(peak(Array(during[960...])), 1e-4, "a stopping voice is silent while its bus is paused")
        XCTAssertEqual(e.activeVoiceCount, 1, "its stop fade waits for the resume: the voice is still there")
        XCTAssertEqual(v.status, .stopped, "though stopped for the game since stop() returned (issue 23 item 7)")
        try e.setPaused(false, for: .sfx)
        let after = channel(try TestSignals.renderGameFrames(e, seconds: 1.0), 0)
        XCTAssertEqual(Level.rms(after, 960..<1_920) / full, 0.47, accuracy: 0.05)
        XCTAssertEqual(Level.rms(after, 12_000..<12_960) / full, 0.24, accuracy: 0.05)
        XCTAssertLessThan(peak(Array(after[26_400...])), 1e-4)
        XCTAssertEqual(v.status, .stopped)
    }

    /// Item 4: a pause menu in one call. Everything but the UI stops where it is (music
    /// included); resuming restarts nothing that ended before or during the pause, and a bus the
    /// game paused itself stays paused.
    func testPauseAllExceptUIAndResumeAll() throws {
        let files = try MusicFixtures()
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        // Quiet enough that the right channel's sum stays under full scale: the output limiter
        // (stereo-linked) would otherwise lower the UI on the left while the others play.
        let tone = try e.loadClip(TestSignals.sine(amplitude: 0.2, seconds: 0.5), name: "tone")
        let blip = try e.loadClip(TestSignals.sine(amplitude: 0.2, seconds: 0.05), name: "blip")
        // Left: the UI only. Right: effects, dialogue and music.
        let ui = try e.play(tone, options: .init(loop: true, pan: -1, bus: .ui))
        let sfx = try e.play(tone, options: .init(loop: true, pan: 1))
        let dialogue = try e.play(tone, options: .init(loop: true, pan: 1, bus: .voice))
        let oneShot = try e.play(blip, options: .init(pan: 1))
        let music = try e.loadMusic(path: try files.sineWAV("m.wav", frequency: 500, seconds: 2))
        music.pan = 1
        music.volume = 0.3
        try music.play()
        var out = try TestSignals.renderGameFrames(e, seconds: 0.2)
        let uiLevel = Level.rms(channel(out, 0), 4_800..<9_600)
        XCTAssertEqual(oneShot.status, .stopped, "the one-shot ended before the pause")
        try e.setPaused(true, for: .voice)                 // the game's own pause, before the menu

        try e.pauseAll(except: [.ui])
        XCTAssertTrue(e.isPausedAll)
        XCTAssertTrue(try e.isHeld(.music))
        XCTAssertFalse(try e.isHeld(.ui))
        XCTAssertFalse(music.isPlaying)
        out = try TestSignals.renderGameFrames(e, seconds: 0.5)
        XCTAssertLessThan(peak(Array(channel(out, 1)[960...])), 1e-4, "effects, dialogue and music are silent")
        XCTAssertEqual(Level.rms(channel(out, 0), 4_800..<9_600), uiLevel, accuracy: uiLevel * 0.02, "the UI plays on")
        let musicAt = music.currentTime
        // During the menu: a UI sound plays and ends; the game stops the effect loop.
        let click = try e.play(blip, options: .init(pan: -1, bus: .ui))
        sfx.stop()
        out = try TestSignals.renderGameFrames(e, seconds: 0.2)
        XCTAssertEqual(click.status, .stopped)

        e.resumeAll()
        XCTAssertFalse(e.isPausedAll)
        XCTAssertTrue(try e.isPaused(.voice), "the game's own pause outlives resumeAll")
        XCTAssertTrue(music.isPlaying)
        out = try TestSignals.renderGameFrames(e, seconds: 0.3)
        XCTAssertEqual(music.currentTime, musicAt + 0.3, accuracy: 0.002, "music went on from where it was")
        XCTAssertGreaterThan(Level.rms(channel(out, 1), 4_800..<9_600), 0.05, "music is back")
        XCTAssertEqual(sfx.status, .stopped)
        XCTAssertEqual(oneShot.status, .stopped)
        XCTAssertEqual(click.status, .stopped)
        XCTAssertEqual(dialogue.status, .virtual)
        // Without the music, nothing plays on the right: nothing that had ended came back.
        music.stop()
        out = try TestSignals.renderGameFrames(e, seconds: 0.2)
        XCTAssertLessThan(peak(channel(out, 1)), 1e-4)
        XCTAssertEqual(Level.rms(channel(out, 0), 0..<9_600), uiLevel, accuracy: uiLevel * 0.02)
        XCTAssertEqual(ui.status, .real)
    }
}
