@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// One play path (issue 26, item 2): a clip's play, a sound's play and the engine-free rule
/// (`PlayResolver`, which scenes and `validate` call) refuse the same request with the same
/// error, and a refused play takes nothing — no voice, no refusal counted, no cooldown started,
/// no selection moved on. The sound is heard on the loopback output to tell which clip played.
final class PlayResolverTests: XCTestCase {
    /// The error `body` throws (nil when it does not throw).
    private func error(_ body: () throws -> Void) -> EarshotError? {
        do { try body() } catch { return error as? EarshotError }
        return nil
    }

    private func options(_ change: (inout PlayOptions) -> Void) -> PlayOptions {
        var o = PlayOptions()
        change(&o)
        return o
    }

    private func soundOptions(_ change: (inout SoundPlayOptions) -> Void) -> SoundPlayOptions {
        var o = SoundPlayOptions()
        change(&o)
        return o
    }

    /// The frequency heard in the first 20 ms after a play.
    private func heard(_ e: AudioEngine) throws -> Double {
        let out = MusicRender.left(try TestSignals.renderGameFrames(e, seconds: 0.02))
        return ToneMeasure.frequency(Array(out[48..<960]), sampleRate: 48_000)
    }

    /// An offset at the clip's end and passes past 2³¹ frames: `play(clip)`, `play(sound)` of a
    /// sound with that clip and the engine-free rule give the same error, word for word.
    func testABadOffsetOrLoopCountIsRefusedAlikeByEveryPath() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.25), name: "tone")   // 12,000 frames
        let sound = try e.makeSound(SoundDefinition(clips: [tone]))

        let rule = error { _ = try PlayResolver.startFrame(offset: 0.25, clipFrames: 12_000, sampleRate: 48_000, clipName: "tone") }
        XCTAssertEqual(rule, .invalidArgument("offset 0.25 s is not inside tone (0.25 s)"))
        XCTAssertEqual(error { try e.play(tone, options: self.options { $0.offset = 0.25 }) }, rule)
        XCTAssertEqual(error { try e.play(sound, options: self.soundOptions { $0.offset = 0.25 }) }, rule)
        // Just inside: every path plays it.
        XCTAssertNoThrow(try e.play(tone, options: options { $0.offset = 0.2499 }))
        XCTAssertNoThrow(try e.play(sound, options: soundOptions { $0.offset = 0.2499 }))
        e.stopAllVoices()

        // 2,200,000 frames × 1001 passes: past OpenAL's 2³¹ frames.
        let long = try e.loadClip(PCMAudio(sampleRate: 48_000, channels: 1, samples: .int16([Int16](repeating: 0, count: 2_200_000))), name: "long")
        let longSound = try e.makeSound(SoundDefinition(clips: [long]))
        let passes = error { try PlayResolver.checkPasses(loopCount: 1000, clipFrames: 2_200_000, clipName: "long") }
        XCTAssertEqual(passes, .invalidArgument("loopCount 1000 of long: 1001 passes exceed OpenAL's 2³¹ frames (loop it and stop it instead)"))
        XCTAssertEqual(error { try e.play(long, options: self.options { $0.loopCount = 1000 }) }, passes)
        XCTAssertEqual(error { try e.play(longSound, options: self.soundOptions { $0.loopCount = 1000 }) }, passes)
        XCTAssertNoThrow(try e.play(long, options: options { $0.loopCount = 975 }), "975 passes fit")

        e.update()
        XCTAssertEqual(e.stats.refusals, 0, "an invalid play is an error, not a refusal")
    }

    /// Options out of range: `PlayResolver.check`, `play(clip)` and `play(sound)` (with the
    /// sound's gain and pitch at 1) refuse each with the same message; a sound refuses it even
    /// while cooling down (it used to pass as a cooldown refusal).
    func testOptionsOutOfRangeAreRefusedAlikeByEveryPath() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.25), name: "tone")
        let sound = try e.makeSound(SoundDefinition(clips: [tone], cooldown: 10))
        XCTAssertNotEqual(try e.play(sound).status, .refused)   // its cooldown runs from here on
        let cases: [(String, (inout PlayOptions) -> Void, (inout SoundPlayOptions) -> Void)] = [
            ("gain -1.0", { $0.gain = -1 }, { $0.gain = -1 }),
            ("pitch nan", { $0.pitch = .nan }, { $0.pitch = .nan }),
            ("delay inf", { $0.delay = .infinity }, { $0.delay = .infinity }),
            ("fadeIn -0.5", { $0.fadeIn = -0.5 }, { $0.fadeIn = -0.5 }),
            ("offset -1.0", { $0.offset = -1 }, { $0.offset = -1 }),
            ("loopCount 1001", { $0.loopCount = 1001 }, { $0.loopCount = 1001 }),
            ("loop and loopCount 2", { $0.loop = true; $0.loopCount = 2 }, { $0.loop = true; $0.loopCount = 2 }),
            ("pan 2.0", { $0.placement = .pan(2) }, { $0.placement = .pan(2) }),
        ]
        for (words, clipChange, soundChange) in cases {
            let rule = error { try PlayResolver.check(self.options(clipChange)) }
            guard case .invalidArgument(let what)? = rule else { XCTFail("\(words): \(String(describing: rule))"); continue }
            XCTAssertTrue(what.hasPrefix(words), "\(words): \(what)")
            XCTAssertEqual(error { try e.play(tone, options: self.options(clipChange)) }, rule, words)
            XCTAssertEqual(error { try e.play(sound, options: self.soundOptions(soundChange)) }, rule, words)
        }
        e.update()
        XCTAssertEqual(e.stats.cooldownRefusals, 0, "no invalid play was taken for a cooldown refusal")
    }

    /// A removed emitter (its slot since reused by a new one) and an unloaded clip are refused by
    /// every path with the same error; the sound's failed plays start no cooldown and move its
    /// sequence nowhere: the next play is heard, and it is the sequence's first clip.
    func testARemovedEmitterOrUnloadedClipIsRefusedAlikeAndTakesNothing() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let low = try e.loadClip(TestSignals.sine(frequency: 400, amplitude: 0.2, seconds: 0.05), name: "low")
        let high = try e.loadClip(TestSignals.sine(frequency: 1_200, amplitude: 0.2, seconds: 0.05), name: "high")
        let s = try e.makeSound(SoundDefinition(clips: [low, high], selection: .sequence, cooldown: 0.03))

        let gone = try e.makeEmitter()
        e.removeEmitter(gone)
        let reused = try e.makeEmitter()   // takes the removed emitter's slot
        let removed = EarshotError.invalidArgument("the emitter was removed")
        XCTAssertEqual(error { try e.play(low, options: .init(emitter: gone)) }, removed)
        XCTAssertEqual(error { try e.play(s, options: SoundPlayOptions(emitter: gone)) }, removed)
        XCTAssertEqual(e.activeVoiceCount, 0)
        XCTAssertNotEqual(try e.play(s).status, .refused, "the failed play started no cooldown")
        XCTAssertEqual(try heard(e), 400, accuracy: 8, "the sequence did not move on: its first clip")
        try TestSignals.renderGameFrames(e, seconds: 0.04)
        XCTAssertEqual(try e.play(s, options: SoundPlayOptions(emitter: reused)).status, .real, "the live emitter plays")
        XCTAssertEqual(try heard(e), 1_200, accuracy: 24, "then its second")
        try TestSignals.renderGameFrames(e, seconds: 0.04)

        // An unloaded clip: the clip's play and the sound's play that picks it.
        e.unload(high)
        XCTAssertEqual(error { try e.play(high) }, .clipUnloaded)
        XCTAssertNotEqual(try e.play(s).status, .refused)                  // low
        try TestSignals.renderGameFrames(e, seconds: 0.04)
        XCTAssertEqual(error { try e.play(s) }, .clipUnloaded)            // picks high
        XCTAssertNotEqual(try e.play(s).status, .refused, "the failed play started no cooldown")
        XCTAssertEqual(try heard(e), 400, accuracy: 8)
        e.update()
        XCTAssertEqual(e.stats.refusals + e.stats.cooldownRefusals, 0)
    }

    /// A sound's random variation never makes a valid play fail: a gain near Float's largest
    /// value varied up by 48 dB, a pitch near its smallest varied down two octaves, each played
    /// many times, start a voice every time.
    func testVariationNeverMakesAValidPlayFail() throws {
        let e = try TestSignals.loopbackEngine()
        defer { e.shutdown() }
        let tone = try e.loadClip(TestSignals.sine(seconds: 0.1), name: "tone")
        let s = try e.makeSound(SoundDefinition(clips: [tone], pitchVariation: 2400, gainVariation: 48))
        for _ in 0..<40 {
            XCTAssertNotEqual(try e.play(s, options: soundOptions { $0.gain = 3e38 }).status, .refused)
            XCTAssertNotEqual(try e.play(s, options: soundOptions { $0.pitch = .leastNonzeroMagnitude }).status, .refused)
        }
        XCTAssertEqual(EngineCore.varied(3e38, by: 251), .greatestFiniteMagnitude)
        XCTAssertEqual(EngineCore.varied(.leastNonzeroMagnitude, by: 0.25), .leastNonzeroMagnitude)
        XCTAssertEqual(EngineCore.varied(0, by: 0.25), 0, "a silent play stays silent")
        XCTAssertEqual(EngineCore.varied(0.5, by: 2), 1)
    }
}
