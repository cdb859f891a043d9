@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// Dialogue's other rules through the loopback device: the global limit of lines, stop and skip
/// with awaited outcomes, `system` over `story`, a line following its speaker's emitter, and the
/// calls that must fail typed (after shutdown, another engine's emitter, a stereo line on an
/// emitter, no table).
final class DialogueRulesTests: XCTestCase {
    private func engine() throws -> AudioEngine {
        var config = AudioEngine.Configuration(output: .loopback(sampleRate: 48_000))
        config.musicSources = 4
        return try AudioEngine(configuration: config)
    }

    private func level(_ x: [Float], channel: Int, hz: Double) -> Double {
        DialogueFixture.toneDB(x, channel: channel, hz: hz)
    }

    func testTheGlobalLimitHoldsASecondSpeakerUntilALineEnds() throws {
        let f = try DialogueFixture()
        try f.tone("a", frequency: 500, seconds: 0.4)
        try f.tone("b", frequency: 900, seconds: 0.2)
        let e = try engine()
        defer { e.shutdown() }
        try e.setDialogueTable(f.table([DialogueLine(key: "a", speaker: "guard"), DialogueLine(key: "b", speaker: "captain")]))
        try e.setMaxSimultaneousLines(1)
        XCTAssertThrowsError(try e.setMaxSimultaneousLines(0))
        try e.say("a")
        try e.say("b")
        let first = try TestSignals.renderGameFrames(e, seconds: 0.4)
        let then = try TestSignals.renderGameFrames(e, seconds: 0.2)
        print("limit: 900 Hz \(level(first, channel: 0, hz: 900)) dB while a plays, \(level(then, channel: 0, hz: 900)) dB after")
        XCTAssertLessThan(level(first, channel: 0, hz: 900), -80, "the captain waits while the guard's line plays")
        XCTAssertGreaterThan(level(then, channel: 0, hz: 900), -20, "and speaks when it ends")
    }

    func testStopAndSkipEndLinesWhoseOutcomesAreAwaitedAndSystemOutranksStory() async throws {
        let f = try DialogueFixture()
        try f.tone("story", frequency: 500, seconds: 1)
        try f.tone("next", frequency: 700, seconds: 0.3)
        try f.tone("hint", frequency: 900, seconds: 0.2)
        let e = try engine()
        try e.setDialogueTable(f.table([DialogueLine(key: "story", speaker: "guard"), DialogueLine(key: "next", speaker: "guard"),
                                        DialogueLine(key: "hint", speaker: "guard", priority: .system)]))
        let story = try e.say("story"), next = try e.say("next")
        _ = try TestSignals.renderGameFrames(e, seconds: 0.1)
        story.skip()
        let after = try TestSignals.renderGameFrames(e, seconds: 0.1)
        XCTAssertGreaterThan(level(after, channel: 0, hz: 700), -20, "the next line starts at once after a skip")
        let hint = try e.say("hint")
        _ = try TestSignals.renderGameFrames(e, seconds: 0.05)
        let queued = try e.say("next")
        queued.stop()
        _ = try TestSignals.renderGameFrames(e, seconds: 0.4)
        let outcomes = [await story.finished, await next.finished, await hint.finished, await queued.finished]
        XCTAssertEqual(outcomes, [.skipped, .cut, .finished, .stopped], "system cuts story; a queued line stopped never plays")
        e.shutdown()
    }

    func testAPositionedLineFollowsItsSpeakersEmitter() throws {
        let f = try DialogueFixture()
        try f.tone("line", frequency: 600, seconds: 0.6)
        let e = try engine()
        defer { e.shutdown() }
        try e.setDialogueTable(f.table([DialogueLine(key: "line", speaker: "guard")]))
        let guardEmitter = try e.makeEmitter(SpatialProperties(position: Vector3(3, 0, 0)))
        try e.say("line", by: guardEmitter)
        let right = try TestSignals.renderGameFrames(e, seconds: 0.25)
        guardEmitter.position = Vector3(-3, 0, 0)
        _ = try TestSignals.renderGameFrames(e, seconds: 0.05)
        let left = try TestSignals.renderGameFrames(e, seconds: 0.2)
        let r = level(right, channel: 1, hz: 600) - level(right, channel: 0, hz: 600)
        let l = level(left, channel: 0, hz: 600) - level(left, channel: 1, hz: 600)
        print("positioned line: right louder by \(r) dB, then left by \(l) dB")
        XCTAssertGreaterThan(r, 6, "on the right while the guard stands there")
        XCTAssertGreaterThan(l, 6, "and on the left once he moved")
    }

    func testCallsThatMustFailAreTyped() throws {
        let f = try DialogueFixture()
        try f.tone("line", frequency: 600, seconds: 0.2)
        try DialogueFixture.run("/usr/bin/sox", ["-D", "-n", "-r", "48000", "-c", "2", "-b", "16", f.path("en", "stereo"), "synth", "0.2", "sine", "300"])
        let e = try engine(), other = try engine()
        defer { other.shutdown() }
        XCTAssertThrowsError(try e.say("line")) { guard case .invalidArgument? = $0 as? EarshotError else { return XCTFail("\($0)") } }
        try e.setDialogueTable(f.table([DialogueLine(key: "line", speaker: "guard"), DialogueLine(key: "stereo", speaker: "guard")]))
        let foreign = try other.makeEmitter(SpatialProperties(position: Vector3(1, 0, 0)))
        XCTAssertThrowsError(try e.say("line", by: foreign)) { XCTAssertEqual($0 as? EarshotError, .wrongEngine) }
        let mine = try e.makeEmitter(SpatialProperties(position: Vector3(1, 0, 0)))
        XCTAssertThrowsError(try e.say("stereo", by: mine)) { guard case .invalidArgument? = $0 as? EarshotError else { return XCTFail("\($0)") } }
        XCTAssertThrowsError(try e.setLocale("fr CA"))
        let playing = try e.say("line")
        e.shutdown()
        XCTAssertEqual(playing.outcome, .dropped, "a line playing at shutdown ends")
        XCTAssertThrowsError(try e.say("line")) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try e.setDialogueTable(DialogueTable())) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        playing.stop()   // nothing, no trap
    }

    private func assertTimes(_ a: [Double], _ b: [Double], line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, "\(a) against \(b)", line: line)
        for (x, y) in zip(a, b) { XCTAssertEqual(x, y, accuracy: 1e-9, line: line) }
    }

    func testCuesComeFromTheTableElseFromTheFilesMarkers() async throws {
        let f = try DialogueFixture()
        let marked = f.path("en", "marked")
        try FileManager.default.createDirectory(atPath: (marked as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try MarkerFiles.write(.init(rate: 48_000, frames: 24_000, cues: [.init(id: 1, frame: 6_000, name: "Who"),
                                                                          .init(id: 2, frame: 18_000, name: "goes there?")]), to: marked)
        try f.tone("tabled", frequency: 500, seconds: 0.5)
        let e = try engine()
        try e.setDialogueTable(f.table([
            DialogueLine(key: "marked", speaker: "guard"),
            DialogueLine(key: "tabled", speaker: "captain", cues: ["en": [SubtitleCue(time: 0.1, text: "One"), SubtitleCue(time: 0.3, text: "Two")]]),
        ]))
        let events = e.subtitles
        try e.say("marked")
        try e.say("tabled")
        _ = try TestSignals.renderGameFrames(e, seconds: 0.6)
        e.shutdown()
        var cues: [String: [(Double, String)]] = [:]
        for await event in events { if case .cue(let c) = event { cues[c.key, default: []].append((c.time, c.text)) } }
        XCTAssertEqual(cues["marked"]?.map(\.1), ["Who", "goes there?"], "the file's cue points, by their labels")
        assertTimes(cues["marked"]?.map(\.0) ?? [], [0.125, 0.375])
        XCTAssertEqual(cues["tabled"]?.map(\.1), ["One", "Two"], "the table's cues")
        assertTimes(cues["tabled"]?.map(\.0) ?? [], [0.1, 0.3])
    }
}

