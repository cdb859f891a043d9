import Earshot
import EarshotScenes
import EarshotTestSupport
import XCTest
import EarshotMeasure

/// Every scene of Demos/Scenes rendered through loopback, and what it should sound like measured.
final class SceneRenderTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// Left minus right, in dB, over a window.
    private func balance(_ a: RenderedAudio, _ from: Double, _ to: Double) -> Double {
        Level.dB(a.rms(0, from, to) / max(a.rms(1, from, to), 1e-12))
    }

    func testOrbitChannelEnergyAlternatesWithItsPeriod() throws {
        let (result, audio) = try SceneFixtures.render("orbit.yaml", into: tmp)
        XCTAssertEqual(result.frames, 8 * 48_000)
        XCTAssertEqual(audio.channels, 2)
        // Period 4 s: right at 0, 4; left at 2, 6; in front at 1, 5 (both ears alike).
        for t in [0.0, 4.0] { XCTAssertLessThan(balance(audio, max(0, t - 0.1), t + 0.1), -12, "right at \(t) s") }
        for t in [2.0, 6.0] { XCTAssertGreaterThan(balance(audio, t - 0.1, t + 0.1), 12, "left at \(t) s") }
        for t in [1.0, 5.0] { XCTAssertEqual(balance(audio, t - 0.05, t + 0.05), 0, accuracy: 3, "in front at \(t) s") }
        XCTAssertGreaterThan(audio.rms(0, 8), 0.01)
    }

    func testDuckingDropsTheMusicBandWhileTheEffectBandStays() throws {
        let (result, audio) = try SceneFixtures.render("ducking.yaml", into: tmp)
        XCTAssertEqual(result.events.map(\.label), ["music theme play", "hint begin", "hint end"])
        // The theme's chord partials (Assets/make-assets.sh) and the 1 kHz beep of the effect.
        let music = [220, 277, 330, 110, 196, 247, 294, 98, 175, 262, 87.5, 165, 208, 82.5]
        let effect = [1000.0]
        let musicBefore = audio.power(at: music, 0.5, 1.5), musicDucked = audio.power(at: music, 3, 4.5)
        let musicAfter = audio.power(at: music, 6, 7)
        let effectBefore = audio.power(at: effect, 0.5, 1.5), effectDucked = audio.power(at: effect, 3, 4.5)
        XCTAssertLessThan(Level.dB(power: musicDucked / musicBefore), -30, "music silenced while the hint is raised")
        XCTAssertEqual(Level.dB(power: effectDucked / effectBefore), 0, accuracy: 1, "the effect is not ducked")
        XCTAssertGreaterThan(Level.dB(power: musicAfter / musicBefore), -6, "music back after the release")
        // The 0.1 s attack is a ramp, not a cut: 20–60 ms after the hint the music is still
        // audible, 150 ms after it is gone.
        let before = audio.power(at: music, 1.5, 1.95)
        XCTAssertGreaterThan(Level.dB(power: audio.power(at: music, 2.02, 2.06) / before), -15)
        XCTAssertLessThan(Level.dB(power: audio.power(at: music, 2.15, 2.35) / before), -20)
    }

    func testInterruptionPausesEverythingAndResumesOnlyWhenAsked() throws {
        let (_, audio) = try SceneFixtures.render("interruption.yaml", into: tmp)
        XCTAssertGreaterThan(audio.rms(0.5, 1.9), 0.01, "hum and ambience before")
        XCTAssertLessThan(audio.rms(2.1, 3.9), 1e-4, "silent during the interruption")
        XCTAssertGreaterThan(audio.rms(4.3, 5.4), 0.01, "resumed (shouldResume: true)")
        XCTAssertLessThan(audio.rms(5.6, 6.45), 1e-4, "silent during the second interruption")
        XCTAssertLessThan(audio.rms(6.6, 6.99), 1e-4, "not resumed (shouldResume: false)")
        XCTAssertGreaterThan(audio.rms(7.02, 7.2), 0.01, "new sounds play after it ended")
        // The one-shot starts on its sample (7 s × 48 kHz; the clip's first sample is 0 and the
        // resampler's history delays the first non-zero output by a sample or two).
        let onset = try XCTUnwrap(audio.onset(after: 6.9, threshold: 1e-7))
        XCTAssertEqual(onset, 336_001, accuracy: 2)
    }

    func testWaypointsCarryTheEmitterFromLeftToRight() throws {
        let (_, audio) = try SceneFixtures.render("waypoints.yaml", into: tmp)
        XCTAssertGreaterThan(balance(audio, 0.1, 0.9), 6, "waiting on the left")
        XCTAssertEqual(balance(audio, 2.95, 3.05), 0, accuracy: 3, "in front half-way")
        XCTAssertLessThan(balance(audio, 5.1, 5.9), -6, "arrived on the right")
    }

    func testListenerPathMovesTheEars() throws {
        let (_, audio) = try SceneFixtures.render("listener.yaml", into: tmp)
        XCTAssertLessThan(balance(audio, 0.1, 0.9), -6, "the fixed hum is on the right of a listener at x = -6")
        XCTAssertEqual(balance(audio, 2.95, 3.05), 0, accuracy: 3)
        XCTAssertGreaterThan(balance(audio, 5.1, 5.9), 6, "and on its left at x = +6")
    }

    func testHRTFLetsTheFarEarHearTheOrbit() throws {
        let (result, audio) = try SceneFixtures.render("hrtf.yaml", into: tmp)
        try XCTSkipUnless(result.hrtfEnabled, "OpenAL Soft found no HRTF data set on this machine")
        // At 0 s the bee is on the right: the right ear leads, but unlike plain panning the left
        // ear still hears it through the head.
        let left = audio.rms(0, 0, 0.05), right = audio.rms(1, 0, 0.05)
        XCTAssertGreaterThan(right, left * 1.4)
        XCTAssertGreaterThan(left, right * 0.05)
        XCTAssertGreaterThan(balance(audio, 1.95, 2.05), 3, "left at 2 s")
    }

    func testFootstepsAppearAtTheirTimesAndWalkLeftToRight() throws {
        let (result, audio) = try SceneFixtures.render("footsteps.yaml", into: tmp)
        XCTAssertEqual(result.events.count, 10)
        for t in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 4.5] {
            let onset = try XCTUnwrap(audio.onset(after: t - 0.3, threshold: 1e-3), "step at \(t) s")
            XCTAssertEqual(Double(onset) / 48_000, t, accuracy: 0.003, "step at \(t) s")
            XCTAssertGreaterThan(Level.dB(audio.rms(t + 0.005, t + 0.1) / max(audio.rms(t - 0.3, t - 0.02), 1e-9)), 30)
        }
        XCTAssertGreaterThan(balance(audio, 0.5, 0.64), 6, "first step on the left")
        XCTAssertLessThan(balance(audio, 4.5, 4.64), -6, "last step on the right")
        XCTAssertGreaterThan(audio.power(at: [1319], 3.35, 3.45), audio.power(at: [1319], 2.6, 2.7) * 100, "the coin at 3.25 s")
    }

    func testCrowdRunsVirtualVoicesAndStealsForImportantOneShots() throws {
        let (result, audio) = try SceneFixtures.render("crowd.yaml", into: tmp)
        XCTAssertEqual(result.peakRealVoices, 8, "voices: { real: 8 }")
        XCTAssertGreaterThanOrEqual(result.peakVirtualVoices, 15, "24 hums on 8 sources")
        XCTAssertGreaterThan(result.steals, 0, "priority-0 beeps steal")
        for t in [1.0, 2.0] {
            XCTAssertGreaterThan(Level.dB(power: audio.power(at: [1000], t + 0.02, t + 0.22) / audio.power(at: [1000], t - 0.4, t - 0.2)), 10,
                                 "beep at \(t) s heard over the crowd")
        }
        XCTAssertGreaterThan(balance(audio, 1.02, 1.22), 6, "pan -1 beep")
        XCTAssertLessThan(balance(audio, 2.02, 2.22), -6, "pan +1 beep")
    }

    func testShowcaseRunsEveryEventAndItsInterruptionIsSilent() throws {
        let (result, audio) = try SceneFixtures.render("showcase.yaml", into: tmp)
        let scene = try Scene.load(path: SceneFixtures.path("showcase.yaml"))
        XCTAssertEqual(result.events, scene.events)
        XCTAssertEqual(result.frames, 8 * 48_000)
        XCTAssertGreaterThan(audio.rms(0.5, 1.5), 0.01)
        XCTAssertLessThan(audio.rms(5.05, 5.55), 1e-4, "interrupted 5 … 5.6 s")
        XCTAssertGreaterThan(audio.rms(5.8, 6.2), 0.01, "resumed")
        XCTAssertLessThan(Level.dB(audio.rms(7.8, 8) / audio.rms(5.8, 6.2)), -10, "faded out at the end")
        // The level trace covers the render in 20 ms windows.
        XCTAssertEqual(result.levels.rms.count, 2)
        XCTAssertEqual(result.levels.rms[0].count, 400)
    }

    func testEventsBetweenGameFramesStartOnTheirSample() throws {
        // 60 Hz frames are 800 samples; these times fall inside frames.
        let beep = SceneFixtures.beep
        let path = tmp.appendingPathComponent("t.yaml").path
        try """
            duration: 1.6
            clips: { b: \(beep) }
            emitters: { late: { clip: b, start: 0.71337, position: [0, 0, -1] } }
            events:
              - { at: 0.2037, play: b }
              - { at: 1.3071, play: b, pan: 1 }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let out = tmp.appendingPathComponent("t.wav").path
        try SceneRenderer(scene: Scene.load(path: path)).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        for t in [0.2037, 0.71337, 1.3071] {
            let expected = Int((t * 48_000).rounded())
            XCTAssertNotEqual(expected % 800, 0, "not on a frame boundary")
            let onset = try XCTUnwrap(audio.onset(after: t - 0.1, threshold: 1e-7))
            XCTAssertEqual(onset, expected + 1, accuracy: 2, "event at \(t) s")
        }
    }

    func testDurationOverrideRendersAPrefix() throws {
        let (result, audio) = try SceneFixtures.render("showcase.yaml", duration: 0.5, into: tmp)
        XCTAssertEqual(result.frames, 24_000)
        XCTAssertEqual(audio.frameCount, 24_000)
        XCTAssertEqual(result.events.map(\.time), [0, 0.2])
    }

    func testCustomSessionReceivesTheSessionEvents() throws {
        final class Recorder: SceneSessionControl {
            var calls: [String] = []
            var isInterrupted = false
            func secondaryAudioHint(begins: Bool, at time: Double) { calls.append("hint \(begins) \(time)") }
            func interruption(began: Bool, shouldResume: Bool, at time: Double) throws(EarshotError) {
                isInterrupted = began
                calls.append("interruption \(began) \(shouldResume) \(time)")
            }
            func resumeLater(_ track: MusicTrack) {}
            func advance(to time: Double) {}
        }
        let recorder = Recorder()
        let scene = try Scene.load(path: SceneFixtures.path("showcase.yaml"))
        try SceneRenderer(scene: scene).render(to: tmp.appendingPathComponent("s.wav").path, duration: 6, session: { _, _, _ in recorder })
        XCTAssertEqual(recorder.calls, ["hint true 2.0", "hint false 4.0", "interruption true false 5.0", "interruption false true 5.6"])
    }
}

/// `rate:` and `tape:` on music tracks and on `music … play` events, rendered and measured.
final class SceneMusicRateTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// A 1 s 440 Hz tone written by sox.
    private func tone() throws -> String {
        let path = tmp.appendingPathComponent("a440.wav").path
        try SoxTone.write(to: path, frequency: 440)
        return path
    }

    func testTrackRateStretchesAndTapeAndEventRateChangeIt() throws {
        let a440 = try tone()
        let yaml = """
        duration: 6
        music:
          slow: { file: \(a440), rate: 0.5 }
          tape: { file: \(a440), rate: 0.5, tape: true }
        events:
          - { at: 0, music: slow, action: play }
          - { at: 3, music: tape, action: play }
          - { at: 5, music: slow, action: play, rate: 2, tape: false }
        """
        let scene = try Scene.load(path: try SceneFixtures.write(yaml, in: tmp))
        XCTAssertEqual(scene.music.map(\.rate), [0.5, 0.5])
        XCTAssertEqual(scene.music.map(\.tape), [false, true])
        XCTAssertEqual(scene.events.last?.action, .music(id: "slow", .play(volume: nil, rate: 2, tape: false)))
        let out = tmp.appendingPathComponent("rate.wav").path
        _ = try SceneRenderer(scene: scene).render(to: out, format: .f32)
        let audio = try RenderedAudio(path: out)
        // slow: 1 s of file at half speed lasts 2 s and stays at 440 Hz.
        XCTAssertGreaterThan(Level.dB(power: audio.power(at: [440], 0.2, 1.8) / audio.power(at: [220], 0.2, 1.8)), 30)
        XCTAssertGreaterThan(audio.rms(1.9, 1.95), 0.05, "still playing just before 2 s")
        XCTAssertLessThan(audio.rms(2.1, 2.9), 1e-4, "ended at 2 s")
        // tape: the same file at half speed an octave down.
        XCTAssertGreaterThan(Level.dB(power: audio.power(at: [220], 3.2, 4.8) / audio.power(at: [440], 3.2, 4.8)), 30)
        XCTAssertLessThan(Level.dB(power: audio.power(at: [220], 5.1, 5.4) / audio.power(at: [220], 4.5, 4.9)), -30, "tape ended at 5 s")
        // The event replays the finished slow track at rate 2: 0.5 s of 440 Hz.
        XCTAssertGreaterThan(audio.rms(5.1, 5.4), 0.05)
        XCTAssertLessThan(audio.rms(5.6, 6), 1e-4)
    }

    func testRateOutsideItsRangeIsRefusedWithItsPlace() throws {
        let a440 = try tone()
        for (yaml, key) in [
            ("duration: 1\nmusic:\n  m: { file: \(a440), rate: 3 }\n", "music.m.rate"),
            ("duration: 1\nmusic:\n  m: { file: \(a440), tape: maybe }\n", "music.m.tape"),
            ("duration: 1\nmusic:\n  m: { file: \(a440) }\nevents:\n  - { at: 0, music: m, action: pause, rate: 1 }\n", "events[0].rate"),
        ] {
            let path = try SceneFixtures.write(yaml, in: tmp)
            XCTAssertThrowsError(try Scene.load(path: path), key) { error in
                XCTAssertTrue("\(error)".contains(key), "\(error)")
            }
        }
    }
}

/// The pass-by and corridor demo scenes, measured.
final class SceneDemoScenesTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    func testPassByIsHeardHigherComingThanGoing() throws {
        let (result, audio) = try SceneFixtures.render("passby.yaml", into: tmp)
        XCTAssertEqual(result.frames, 8 * 48_000)
        // The engine's 110 Hz fundamental at 30 m/s: about 120.4 Hz coming (1.5–2.3 s, nearly
        // head-on) and 101.3 Hz going (6.0–6.8 s).
        let coming = audio.power(at: [120.4], 1.5, 2.3), comingRest = audio.power(at: [110], 1.5, 2.3)
        let going = audio.power(at: [101.3], 6.0, 6.8), goingRest = audio.power(at: [110], 6.0, 6.8)
        XCTAssertGreaterThan(Level.dB(power: coming / comingRest), 10, "shifted up approaching")
        XCTAssertGreaterThan(Level.dB(power: going / goingRest), 10, "shifted down receding")
        // Beyond 120 m the linear model silences it: at the very end it is far quieter than passing.
        XCTAssertLessThan(Level.dB(audio.rms(7.9, 8) / audio.rms(3.8, 4.2)), -30)
    }

    func testCorridorAutomationShowsInTheTimeline() throws {
        let (result, _) = try SceneFixtures.render("corridor.yaml", into: tmp)
        XCTAssertEqual(result.frames, 8 * 48_000)
        let t = result.timeline
        let sfx = SceneTimeline.builtInBuses.firstIndex(of: "sfx") ?? 0
        XCTAssertEqual(Double(t.busMaxDB[sfx][t.column(6.5)...t.column(6.6)].max() ?? 9), Level.dB(0.5), accuracy: 0.1, "the sfx dip during the alarm")
        XCTAssertEqual(Double(t.busMaxDB[sfx][t.column(7.8)...t.column(7.9)].max() ?? 9), 0, accuracy: 0.1, "and back")
        // (At 60 frames a second some of the 940 columns of an 8 s render hold no frame.)
        XCTAssertGreaterThanOrEqual(t.maxReal[t.column(3)...t.column(3.2)].max() ?? -1, 2, "the door starts at 3 s beside the machine")
        XCTAssertEqual(try Scene.load(path: SceneFixtures.path("corridor.yaml")).warnings(), [])
    }
}
