@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Lines said through the loopback device (espeak-ng speaking English and French; sox tones where
/// a line must be told apart by frequency): subtitles on the audio clock, speakers' queues,
/// priorities, expiry, locales and the ducking under speech, measured in what comes out.
final class DialogueSpeakerTests: XCTestCase {
    /// One game frame at 48 kHz, 60 frames a second.
    let gameFrame = 800

    private func engine() throws -> AudioEngine {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        config.musicSources = 4
        return try AudioEngine(configuration: config)
    }

    private func render(_ e: AudioEngine, seconds: Double) throws -> [Float] {
        try TestSignals.renderGameFrames(e, seconds: seconds)
    }

    /// Every event of a subtitles stream, once the engine is shut down (which finishes it).
    private func collect(_ stream: AsyncStream<SubtitleEvent>) async -> [SubtitleEvent] {
        var out: [SubtitleEvent] = []
        for await e in stream { out.append(e) }
        return out
    }

    func testShowAndHideFallOnTheLinesFirstAndLastAudibleFramesAndEveryConsumerSeesThem() async throws {
        let f = try DialogueFixture()
        try f.speak("intro.guard.01", "en", "Halt! Who goes there?")
        // A cue from an .srt beside the file.
        try "1\n00:00:00,500 --> 00:00:01,000\nWho goes there?\n".write(
            toFile: f.path("en", "intro.guard.01").replacingOccurrences(of: ".wav", with: ".srt"), atomically: true, encoding: .utf8)
        let e = try engine()
        try e.setDialogueTable(f.table([DialogueLine(key: "intro.guard.01", speaker: "guard", text: ["en": "Halt! Who goes there?"])]))
        let a = e.subtitles, b = e.subtitles
        _ = try render(e, seconds: 0.1)
        let said = e.audioFrame
        let line = try e.say("intro.guard.01")
        let out = try render(e, seconds: 2)
        XCTAssertEqual(line.outcome, .finished)
        e.shutdown()
        let (ea, eb) = (await collect(a), await collect(b))
        XCTAssertEqual(ea, eb, "every consumer sees every event")
        let late = await collect(e.subtitles)
        XCTAssertEqual(late, [], "a stream read after shutdown is finished at once")
        guard case .show(let show)? = ea.first, case .hide(let hide)? = ea.last, ea.count == 3, case .cue(let cue) = ea[1] else {
            return XCTFail("show, cue, hide expected: \(ea)")
        }
        XCTAssertEqual(show.text, "Halt! Who goes there?")
        XCTAssertEqual(show.speaker, "guard")
        XCTAssertEqual(show.key, "intro.guard.01")
        XCTAssertEqual(hide.reason, .finished)
        let heard = try XCTUnwrap(DialogueFixture.audible(out))
        let showFrame = Int((show.time * 48_000).rounded()) - said, hideFrame = Int((hide.time * 48_000).rounded()) - said
        print("dialogue show at frame \(showFrame), first audible \(heard.first); hide at \(hideFrame), last audible \(heard.last)")
        XCTAssertLessThanOrEqual(abs(showFrame - heard.first), gameFrame, "show within one game frame of the first audible frame")
        XCTAssertLessThanOrEqual(abs(hideFrame - heard.last), gameFrame, "hide within one game frame of the last audible frame")
        XCTAssertEqual(cue.time - Double(said) / 48_000, 0.5, accuracy: 1e-6, "the .srt cue at 0.5 s of the line")
        XCTAssertEqual(cue.text, "Who goes there?")
    }

    func testASecondLineOfTheSpeakerStartsOnTheFrameTheFirstEnds() throws {
        let f = try DialogueFixture()
        try f.speak("a", "en", "Halt!")
        try f.speak("b", "en", "Who goes there?")
        let e = try engine()
        defer { e.shutdown() }
        try e.setDialogueTable(f.table([DialogueLine(key: "a", speaker: "guard"), DialogueLine(key: "b", speaker: "guard")]))
        let first = try e.say("a"), second = try e.say("b")
        let out = try render(e, seconds: 2.5)
        XCTAssertEqual(first.outcome, .finished)
        XCTAssertEqual(second.outcome, .finished)
        // What the files say, read here independently: a's length and b's lead-in, at 48 kHz.
        let spanA = try LineSpan.scan(path: f.path("en", "a")), spanB = try LineSpan.scan(path: f.path("en", "b"))
        let lastA = try XCTUnwrap(DialogueFixture.audible(out, to: Int(spanA.duration * 48_000) - 10)).last
        let startB = try XCTUnwrap(DialogueFixture.audible(out, from: lastA + 1)).first
        let expected = Int(spanA.duration * 48_000 + Double(spanB.firstAudible) / Double(spanB.sampleRate) * 48_000)
        print("queued line: first audible frame \(startB), expected \(expected) (a ends at \(Int(spanA.duration * 48_000)))")
        XCTAssertLessThanOrEqual(abs(startB - expected), gameFrame, "b starts within one game frame of a's end")
    }

    func testAStoryLineCutsABarkWithinAFrameWithAShortFadeAndNoClick() throws {
        let f = try DialogueFixture()
        try f.tone("bark", frequency: 300, seconds: 2)
        try f.tone("story", frequency: 1_000, seconds: 0.5)
        let e = try engine()
        defer { e.shutdown() }
        try e.setDialogueTable(f.table([DialogueLine(key: "bark", speaker: "guard", priority: .bark),
                                        DialogueLine(key: "story", speaker: "guard", priority: .story)]))
        let bark = try e.say("bark")
        let before = try render(e, seconds: 0.5)
        let story = try e.say("story")
        let after = try render(e, seconds: 0.3)
        XCTAssertEqual(bark.outcome, .cut)
        XCTAssertEqual(story.outcome, nil, "the story line plays")
        // The bark's 300 Hz over 10 ms windows after the cut: gone within 50 ms.
        func tone(_ x: [Float], _ frames: Range<Int>, _ hz: Double) -> Double {
            pow(10, DialogueFixture.toneDB(x, hz: hz, frames: frames) / 20)
        }
        let full = tone(before.suffix(9_600).map { $0 }, 0..<4_800, 300)
        let at50 = tone(after, 2_400..<2_880, 300)
        print("cut: bark 300 Hz \(Level.dB(full)) dB before, \(Level.dB(at50)) dB 50 ms after the cut")
        XCTAssertLessThan(Level.dB(at50), Level.dB(full) - 40, "the bark is gone 50 ms after the cut")
        // The story's 1 kHz is there within one game frame.
        XCTAssertGreaterThan(Level.dB(tone(after, gameFrame..<2 * gameFrame, 1_000)), Level.dB(full) - 6, "the story line within a frame")
        // No click: no sample step larger than the two tones' own steepest.
        var step: Float = 0
        for i in 1..<min(after.count / 2, 4_800) { step = max(step, abs(after[2 * i] - after[2 * i - 2])) }
        let toneSteps = Float(2 * Double.pi * 1_000 / 48_000 * 0.3 + 2 * Double.pi * 300 / 48_000 * 0.3) * 0.75
        print("cut: largest sample step \(step), tones' own \(toneSteps)")
        XCTAssertLessThanOrEqual(step, toneSteps * 1.05, "no click at the cut")
    }

    func testABarkNeverCutsAStoryLineAndOnePastItsExpireNeverPlays() throws {
        let f = try DialogueFixture()
        try f.tone("story", frequency: 1_000, seconds: 0.8)
        try f.tone("grenade", frequency: 300, seconds: 0.3)
        let e = try engine()
        defer { e.shutdown() }
        try e.setDialogueTable(f.table([DialogueLine(key: "story", speaker: "guard", priority: .story),
                                        DialogueLine(key: "grenade", speaker: "guard", priority: .bark, expire: 0.5)]))
        let story = try e.say("story")
        _ = try render(e, seconds: 0.1)
        let bark = try e.say("grenade")
        let out = try render(e, seconds: 1.5)
        XCTAssertEqual(story.outcome, .finished, "a bark never cuts a story line")
        XCTAssertEqual(bark.outcome, .expired, "it would have waited 0.7 s, past its 0.5 s")
        let level = DialogueFixture.toneDB(out, hz: 300)
        print("expired bark: 300 Hz at \(level) dB")
        XCTAssertLessThan(level, -80, "the expired bark is never heard")
    }

    func testSetLocaleSwitchesTheFileHeardAndAFallbackPlaysEnglishWithAWarning() throws {
        let f = try DialogueFixture()
        try f.speak("intro", "en", "Halt!")
        try f.speak("intro", "fr", "Halte ! Qui va là ? Montrez vos papiers.")
        try f.speak("only", "en", "Grenade!")
        let e = try engine()
        defer { e.shutdown() }
        try e.setDialogueTable(f.table([DialogueLine(key: "intro", speaker: "guard", text: ["en": "Halt!", "fr": "Halte !"]),
                                        DialogueLine(key: "only", speaker: "guard", text: ["en": "Grenade!"]),
                                        DialogueLine(key: "none", speaker: "guard")]))
        func heardFrames(_ key: String) throws -> (LineHandle, Int) {
            let line = try e.say(key)
            let out = try render(e, seconds: 3)
            let span = try XCTUnwrap(DialogueFixture.audible(out))
            return (line, span.last - span.first)
        }
        let (en, enFrames) = try heardFrames("intro")
        try e.setLocale("fr-CA")
        let (fr, frFrames) = try heardFrames("intro")
        let fileFr = try LineSpan.scan(path: f.path("fr", "intro"))
        let frExpected = Int(Double(fileFr.lastAudible - fileFr.firstAudible) / Double(fileFr.sampleRate) * 48_000)
        print("locale: en heard \(enFrames) frames, fr \(frFrames) (fr file \(frExpected))")
        XCTAssertEqual([en.locale, fr.locale], ["en", "fr"])
        XCTAssertEqual(fr.text, "Halte !")
        XCTAssertNil(fr.warning, "fr-CA → fr is the same language")
        XCTAssertLessThan(abs(frFrames - frExpected), gameFrame, "the French file is heard")
        XCTAssertGreaterThan(frFrames, enFrames + 24_000, "and not the English one")
        let (only, _) = try heardFrames("only")
        XCTAssertEqual(only.locale, "en")
        XCTAssertEqual(only.warning, "only: no fr-CA or fr file, playing en")
        XCTAssertEqual(only.text, "Grenade!")
        XCTAssertThrowsError(try e.say("none")) {
            XCTAssertEqual($0 as? EarshotError, .lineMissing(key: "none", localesTried: ["fr-CA", "fr", "en"]))
        }
        XCTAssertThrowsError(try e.say("nope")) { XCTAssertEqual($0 as? EarshotError, .lineMissing(key: "nope", localesTried: [])) }
    }

    func testMusicAndAmbienceDuckUnderSpeechByTheTablesDepth() throws {
        let f = try DialogueFixture()
        try f.tone("line", frequency: 300, seconds: 1.2, volume: 0.5)
        try f.tone("music", frequency: 2_000, seconds: 3, volume: 0.2)
        let e = try engine()
        defer { e.shutdown() }
        var table = f.table([DialogueLine(key: "line", speaker: "narrator")])
        table.ducking = Ducking(level: -9, attack: 0.05, release: 0.3, threshold: -40, hold: 0.05)
        try e.setDialogueTable(table)
        XCTAssertEqual(try e.ducking(of: .ambience, by: .voice)?.level, -9, "ambience ducks too")
        let music = try e.openStream(path: f.path("en", "music"), options: .init(bus: .music))
        try music.play()
        let before = try render(e, seconds: 0.5)
        try e.say("line")
        _ = try render(e, seconds: 0.3)
        let during = try render(e, seconds: 0.5)
        func level(_ x: [Float]) -> Double { DialogueFixture.toneDB(x, hz: 2_000) }
        let depth = level(during) - level(before.suffix(24_000).map { $0 })
        print("music under speech: \(depth) dB")
        XCTAssertEqual(depth, -9, accuracy: 1, "ducked by the set depth")
    }
}

extension DialogueSpeakerTests {
    func testPausingTheVoiceBusHoldsTheLineItsQueueAndItsSubtitle() async throws {
        let f = try DialogueFixture()
        try f.tone("a", frequency: 500, seconds: 0.5)
        try f.tone("b", frequency: 700, seconds: 0.3)
        let e = try engine()
        try e.setDialogueTable(f.table([DialogueLine(key: "a", speaker: "guard"), DialogueLine(key: "b", speaker: "guard")]))
        let events = e.subtitles
        let a = try e.say("a"), b = try e.say("b")
        _ = try render(e, seconds: 0.2)
        try e.setPaused(true, for: .voice)
        let paused = try render(e, seconds: 0.5)
        try e.setPaused(false, for: .voice)
        let rest = try render(e, seconds: 1)
        XCTAssertEqual(a.outcome, .finished)
        XCTAssertEqual(b.outcome, .finished)
        XCTAssertNil(DialogueFixture.audible(paused, from: 1_600), "nothing is heard while paused")
        // a: 0.3 s left after the pause, then b.
        let heard = try XCTUnwrap(DialogueFixture.audible(rest))
        print("paused line: after the pause heard frames \(heard.first)…\(heard.last) (0.6 s = 28800 expected)")
        XCTAssertLessThanOrEqual(abs(heard.last - 28_800), 2 * gameFrame, "a's rest and b are heard after the pause")
        e.shutdown()
        let all = await collect(events)
        guard case .hide(let hideA)? = all.first(where: { if case .hide = $0 { true } else { false } }) else { return XCTFail("\(all)") }
        XCTAssertEqual(hideA.time, 1.0, accuracy: 2 * Double(gameFrame) / 48_000, "a (0.5 s, paused 0.5 s after 0.2 s) hides at 1.0 s, not 0.5 s")
    }
}
