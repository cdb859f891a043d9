@testable import Earshot
import EarshotMeasure
import XCTest

/// Sidechain ducking measured on a loopback render: dialogue bursts (1 kHz) on the `voice` bus
/// duck the `music` bus — a music track (500 Hz) and a looping voice on the bus (750 Hz) — while
/// an effect on `sfx` (2 kHz) plays on untouched. Levels are band energies (Goertzel) in
/// windows holding whole cycles of every tone.
final class SidechainRenderTests: XCTestCase {
    static let trackHz = 500.0
    static let musicVoiceHz = 750.0
    static let dialogueHz = 1_000.0
    static let sfxHz = 2_000.0
    static let window = 0.1
    static let frame = 1.0 / 60
    static let rate = 48_000

    private var fixtures: MusicFixtures!
    private var engine: AudioEngine!
    private var track: MusicTrack!
    private var renderer: FrameRenderer!
    private var loud: Clip!
    private var quiet: Clip!
    let dialogue = Ducking(level: -12, attack: 0.1, release: 0.4, threshold: -30)

    /// 1 s of a 1 kHz tone at `amplitude`, then 1 s of silence, in one clip.
    private func burst(amplitude: Double, name: String) throws -> Clip {
        let tone = TestSignals.sine(frequency: Self.dialogueHz, amplitude: amplitude, seconds: 1)
        guard case .int16(let s) = tone.samples else { throw XCTSkip("unexpected sample format") }
        let pcm = PCMAudio(sampleRate: Self.rate, channels: 1, samples: .int16(s + [Int16](repeating: 0, count: Self.rate)))
        return try engine.loadClip(pcm, name: name)
    }

    override func setUpWithError() throws {
        fixtures = try MusicFixtures()
        engine = try TestSignals.loopbackEngine()
        renderer = FrameRenderer(engine)
        track = try engine.loadMusic(path: try fixtures.sineWAV("music.wav", frequency: Int(Self.trackHz), amplitude: 0.3, seconds: 2))
        track.numberOfLoops = -1
        let bed = try engine.loadClip(TestSignals.sine(frequency: Self.musicVoiceHz, amplitude: 0.3, seconds: 1), name: "bed")
        let sfx = try engine.loadClip(TestSignals.sine(frequency: Self.sfxHz, amplitude: 0.3, seconds: 1), name: "sfx")
        _ = try engine.play(bed, options: .init(loop: true, bus: .music))
        _ = try engine.play(sfx, options: .init(loop: true))
        loud = try burst(amplitude: 0.3, name: "line")
        quiet = try burst(amplitude: 0.01, name: "whisper")
        try track.play()
    }

    override func tearDown() {
        engine?.shutdown()
        engine = nil
        track = nil
        renderer = nil
        fixtures = nil
    }

    private func level(_ hz: Double, from start: Int, seconds: Double = window) -> Double {
        renderer.level(from: start, seconds: seconds, frequency: hz)
    }

    private struct Levels { var track: Double; var bed: Double; var sfx: Double }

    private func levels(from start: Int) -> Levels {
        Levels(track: level(Self.trackHz, from: start), bed: level(Self.musicVoiceHz, from: start), sfx: level(Self.sfxHz, from: start))
    }

    private func frames(_ seconds: Double) -> Int { Int((seconds * Double(Self.rate)).rounded()) }

    /// Renders 0.4 s and returns the levels of its last window.
    private func baseline() throws -> Levels {
        try renderer.render(seconds: 0.4)
        return levels(from: renderer.frames - frames(Self.window))
    }

    func testDialogueDucksMusicWithinAttackAndReleasesAfterHoldAndRelease() throws {
        try engine.setDucking(dialogue, of: .music, by: .voice)
        XCTAssertEqual(try engine.ducking(of: .music, by: .voice), dialogue)
        let base = try baseline()
        XCTAssertGreaterThan(base.track, -40, "the track is heard")
        XCTAssertEqual(try engine.sidechainGain(for: .music), 1, "nothing on the voice bus: no duck")

        _ = try engine.play(loud, options: .init(pan: 0, bus: .voice))
        let start = renderer.frames
        try renderer.render(seconds: 0.5)
        let detected = try engine.level(of: .voice)
        // Within attack + 50 ms of the burst's start the music is 12 dB down.
        let early = levels(from: start + frames(dialogue.attack + 0.05))
        try renderer.render(seconds: 0.5)
        let late = levels(from: start + frames(0.8))
        let burstEnd = start + Self.rate
        // Back within hold + release + 50 ms of its end.
        let backAt = burstEnd + frames(dialogue.hold + dialogue.release + 0.05)
        try renderer.render(seconds: Double(backAt - renderer.frames) / Double(Self.rate) + Self.window + 0.2)
        let back = levels(from: backAt)
        let sfxAll = level(Self.sfxHz, from: start, seconds: 2)
        print("SidechainRenderTests: voice bus reads \(detected) dBFS; at attack + 50 ms track \(early.track - base.track) dB, music voice \(early.bed - base.bed) dB; late in the burst \(late.track - base.track) / \(late.bed - base.bed) dB; after hold + release + 50 ms \(back.track - base.track) / \(back.bed - base.bed) dB; sfx \(early.sfx - base.sfx), \(back.sfx - base.sfx), over 2 s \(sfxAll - base.sfx) dB")
        XCTAssertEqual(detected, Level.dB(0.3 / 2.0.squareRoot()), accuracy: 0.2, "the detector reads the burst's RMS")
        XCTAssertEqual(early.track - base.track, -12, accuracy: 1, "the track is ducked within attack + 50 ms")
        XCTAssertEqual(early.bed - base.bed, -12, accuracy: 1, "so is the voice on the music bus")
        XCTAssertEqual(late.track - base.track, -12, accuracy: 0.5)
        XCTAssertEqual(late.bed - base.bed, -12, accuracy: 0.5)
        XCTAssertEqual(back.track - base.track, 0, accuracy: 1, "the track is back after hold + release + 50 ms")
        XCTAssertEqual(back.bed - base.bed, 0, accuracy: 1)
        XCTAssertEqual(early.sfx - base.sfx, 0, accuracy: 0.5, "effects on sfx are untouched")
        XCTAssertEqual(back.sfx - base.sfx, 0, accuracy: 0.5)
        XCTAssertEqual(sfxAll - base.sfx, 0, accuracy: 0.5)
        XCTAssertEqual(try engine.sidechainGain(for: .music), 1)
        XCTAssertEqual(try engine.level(of: .voice), -.infinity, "the clip's silent second")
    }

    func testQuietDialogueBelowTheThresholdDoesNotDuck() throws {
        try engine.setDucking(dialogue, of: .music, by: .voice)
        let base = try baseline()
        _ = try engine.play(quiet, options: .init(pan: 0, bus: .voice))
        let start = renderer.frames
        try renderer.render(seconds: 0.5)
        let detected = try engine.level(of: .voice)
        try renderer.render(seconds: 0.5)
        let during = level(Self.trackHz, from: start, seconds: 1) - base.track
        let bed = level(Self.musicVoiceHz, from: start, seconds: 1) - base.bed
        print("SidechainRenderTests: a quiet voice reads \(detected) dBFS (threshold −30): track \(during) dB, music voice \(bed) dB")
        XCTAssertEqual(detected, Level.dB(0.01 / 2.0.squareRoot()), accuracy: 0.3)
        XCTAssertEqual(during, 0, accuracy: 0.5)
        XCTAssertEqual(bed, 0, accuracy: 0.5)
        XCTAssertEqual(try engine.sidechainGain(for: .music), 1)
    }

    /// The session's duck (−6 dB) and the sidechain (−12 dB) do not stack: the lower wins.
    func testTheLowerOfTheSessionDuckAndTheSidechainWins() throws {
        try engine.setDucking(dialogue, of: .music, by: .voice)
        let base = try baseline()
        let session = engine.session
        session.duckLevel = -6
        session.activate()
        session.setSecondaryAudioHint(true)
        try renderer.render(seconds: session.attack + Self.frame + Self.window)
        let sessionOnly = level(Self.trackHz, from: renderer.frames - frames(Self.window)) - base.track
        XCTAssertEqual(sessionOnly, -6, accuracy: 0.5)

        _ = try engine.play(loud, options: .init(pan: 0, bus: .voice))
        let start = renderer.frames
        try renderer.render(seconds: 1)
        let both = levels(from: start + frames(0.5))
        try renderer.render(seconds: 1)
        let after = levels(from: renderer.frames - frames(Self.window))
        print("SidechainRenderTests: session −6 dB alone \(sessionOnly) dB; with the sidechain −12 dB: track \(both.track - base.track) dB, music voice \(both.bed - base.bed) dB; after \(after.track - base.track) dB")
        XCTAssertEqual(both.track - base.track, -12, accuracy: 0.5, "min(−6, −12), not −18")
        XCTAssertEqual(both.bed - base.bed, -12, accuracy: 0.5)
        XCTAssertEqual(after.track - base.track, -6, accuracy: 0.5, "the session's duck again")
        XCTAssertEqual(after.bed - base.bed, -6, accuracy: 0.5)

        // The other way round, set through the core: a deeper session duck wins over the sidechain.
        engine.withAL { engine.core.setBusDuck(pow(10, -20.0 / 20), on: .music) }
        _ = try engine.play(loud, options: .init(pan: 0, bus: .voice))
        let again = renderer.frames
        try renderer.render(seconds: 1)
        let deeper = level(Self.musicVoiceHz, from: again + frames(0.5)) - base.bed
        XCTAssertEqual(deeper, -20, accuracy: 0.5, "min(−20, −12)")
        session.deactivate()
    }

    /// A snapshot on the music bus takes the track and the bus's voices down with it, at once.
    func testSnapshotOnMusicLowersTheTrack() throws {
        let base = try baseline()
        try engine.begin(Snapshot("cutscene", busGains: [.music: -9]))
        try renderer.render(seconds: 0.05 + Self.window)
        let now = levels(from: renderer.frames - frames(Self.window))
        print("SidechainRenderTests: −9 dB snapshot on music: track \(now.track - base.track) dB, music voice \(now.bed - base.bed) dB, sfx \(now.sfx - base.sfx) dB")
        XCTAssertEqual(now.track - base.track, -9, accuracy: 0.5)
        XCTAssertEqual(now.bed - base.bed, -9, accuracy: 0.5)
        XCTAssertEqual(now.sfx - base.sfx, 0, accuracy: 0.5)
    }

    /// Two sources duck one target: the lowest factor wins; removing a ducking releases it.
    func testSeveralSourcesTheLowestWinsAndRemovalReleases() throws {
        try engine.setDucking(dialogue, of: .music, by: .voice)
        try engine.setDucking(Ducking(level: -20, attack: 0, release: 0.2, threshold: -30), of: .music, by: .ui)
        let base = try baseline()
        _ = try engine.play(loud, options: .init(pan: 0, bus: .voice))
        _ = try engine.play(loud, options: .init(pan: 0, bus: .ui))
        XCTAssertEqual(engine.withAL { engine.core.mixer.syncs }, 0, "nothing on the sources yet: no voice marked")
        let start = renderer.frames
        try renderer.render(seconds: 0.3)
        let syncs = engine.withAL { engine.core.mixer.syncs }
        try renderer.render(seconds: 0.2)
        XCTAssertEqual(engine.withAL { engine.core.mixer.syncs }, syncs, "a steady duck marks no voice")
        let both = level(Self.musicVoiceHz, from: start + frames(0.3)) - base.bed
        XCTAssertEqual(both, -20, accuracy: 0.5, "the deeper ducking wins")
        try engine.setDucking(nil, of: .music, by: .ui)
        XCTAssertNil(try engine.ducking(of: .music, by: .ui))
        try renderer.render(seconds: 0.4)
        let voiceOnly = level(Self.musicVoiceHz, from: renderer.frames - frames(Self.window)) - base.bed
        XCTAssertEqual(voiceOnly, -12, accuracy: 0.5, "the ui ducking released; the voice one remains")
        print("SidechainRenderTests: −12 by voice and −20 by ui: \(both) dB; ui removed: \(voiceOnly) dB")
    }
}
