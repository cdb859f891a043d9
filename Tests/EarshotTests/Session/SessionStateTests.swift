@testable import Earshot
import XCTest

/// The session's pure parts: the hint state machine, the duck ramp, the category table and the
/// interruption policy table.
final class SessionStateTests: XCTestCase {
    func testHintEdgesOnlyWhileActiveAndStrictlyAlternating() {
        var h = HintStateMachine()
        XCTAssertNil(h.set("manual:game", true), "no edges before activation")
        XCTAssertTrue(h.value)
        XCTAssertEqual(h.activate(), .begin, "activating with the hint on reports begin")
        XCTAssertNil(h.activate(), "a second activation reports nothing")
        XCTAssertNil(h.set("manual:game", true), "the same value again reports nothing")
        XCTAssertNil(h.set("source:0", true), "a second input joining an on hint reports nothing")
        XCTAssertNil(h.set("manual:game", false), "one input still on: no end")
        XCTAssertTrue(h.value)
        XCTAssertEqual(h.set("source:0", false), .end)
        XCTAssertFalse(h.value)
        XCTAssertNil(h.set("source:0", false))
        XCTAssertEqual(h.set("source:0", true), .begin)
        XCTAssertEqual(h.remove("source:0"), .end, "a removed input that was on ends the hint")
        XCTAssertNil(h.remove("nothing"))
    }

    func testDeactivationForgetsTheLastEdge() {
        var h = HintStateMachine()
        XCTAssertNil(h.activate(), "activating with the hint off reports nothing")
        XCTAssertEqual(h.set("manual:x", true), .begin)
        h.deactivate()
        XCTAssertNil(h.set("manual:x", false), "nothing while inactive")
        XCTAssertNil(h.set("manual:x", true))
        XCTAssertEqual(h.activate(), .begin, "reactivation reports the hint that is on")
        h.deactivate()
        XCTAssertNil(h.set("manual:x", false))
        XCTAssertNil(h.activate(), "off at reactivation: nothing to report")
    }

    func testDuckRampIsLinearAndRetargetsFromWhereItIs() {
        var r = DuckRamp()
        XCTAssertEqual(r.value(at: 0), 1)
        r.retarget(0, duration: 0.1, now: 1.0)
        XCTAssertEqual(r.value(at: 1.0), 1)
        XCTAssertEqual(r.value(at: 1.05), 0.5, accuracy: 1e-6)
        XCTAssertEqual(r.value(at: 1.1), 0)
        XCTAssertFalse(r.isSettled(at: 1.09))
        XCTAssertTrue(r.isSettled(at: 1.1))
        // Ends half-way through the attack: comes back from 0.5 over the release, no jump.
        r.jump(to: 1)
        r.retarget(0, duration: 0.1, now: 2.0)
        r.retarget(1, duration: 0.5, now: 2.05)
        XCTAssertEqual(r.value(at: 2.05), 0.5, accuracy: 1e-6)
        XCTAssertEqual(r.value(at: 2.3), 0.75, accuracy: 1e-6)
        XCTAssertEqual(r.value(at: 2.55), 1)
        r.jump(to: 0.25)
        XCTAssertEqual(r.value(at: 0), 0.25)
        XCTAssertEqual(DuckRamp.gain(decibels: -.infinity), 0)
        XCTAssertEqual(DuckRamp.gain(decibels: 0), 1)
        XCTAssertEqual(Double(DuckRamp.gain(decibels: -20)), 0.1, accuracy: 1e-6)
    }

    func testCategoryTable() {
        let table: [(AudioSession.Category, music: Bool, records: Bool)] = [
            (.ambient, true, false), (.soloAmbient, true, false), (.playback, false, false), (.playAndRecord, true, true),
        ]
        XCTAssertEqual(AudioSession.Category.allCases.count, table.count, "every category is in the table")
        for (category, music, records) in table {
            XCTAssertEqual(category.musicYieldsToHint, music, "\(category)")
            XCTAssertEqual(category.allowsRecording, records, "\(category)")
            XCTAssertFalse(category.effectsYieldToHint, "\(category): effects never yield")
            XCTAssertTrue(category.honoursInterruptions, "\(category)")
        }
    }

    func testInterruptionPolicyTable() {
        let table: [(AudioSession.InterruptionPolicy, whenAllowed: Bool, whenNot: Bool)] = [
            (.resumeIfAllowed, true, false), (.alwaysResume, true, true), (.manual, false, false),
        ]
        for (policy, allowed, notAllowed) in table {
            XCTAssertEqual(policy.resumes(shouldResume: true), allowed, "\(policy)")
            XCTAssertEqual(policy.resumes(shouldResume: false), notAllowed, "\(policy)")
        }
    }

    func testSessionDefaultsAndInvalidSettings() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let s = engine.session
        XCTAssertTrue(s === engine.session, "one session per engine")
        XCTAssertEqual(s.category, .soloAmbient)
        XCTAssertEqual(s.duckLevel, -.infinity)
        XCTAssertEqual(s.attack, 0.1)
        XCTAssertEqual(s.release, 0.5)
        XCTAssertEqual(s.interruptionPolicy, .resumeIfAllowed)
        XCTAssertFalse(s.isActive)
        s.duckLevel = 6; s.duckLevel = .nan
        s.attack = -1; s.attack = .infinity
        s.release = .nan; s.release = 11
        XCTAssertEqual(s.duckLevel, -.infinity, "positive or NaN levels are ignored")
        XCTAssertEqual(s.attack, 0.1)
        XCTAssertEqual(s.release, 0.5)
        s.duckLevel = -12
        XCTAssertEqual(s.duckLevel, -12)
    }

    func testManualHintEventsOnTheStream() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let s = engine.session
        let events = EventCollector(s)
        s.setSecondaryAudioHint(true, source: "menu")
        XCTAssertTrue(s.secondaryAudioShouldBeSilencedHint)
        s.activate()
        s.setSecondaryAudioHint(true, source: "scene")
        s.setSecondaryAudioHint(false, source: "menu")
        s.setSecondaryAudioHint(false, source: "scene")
        XCTAssertEqual(events.wait(count: 2), [.secondaryAudioHint(.begin), .secondaryAudioHint(.end)])
    }
    /// A hint source the game removes stops, and its input leaves the hint, which ends.
    func testRemovingAHintSourceStopsItAndEndsItsHint() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let s = engine.session
        let source = ScriptedHintSource(playing: true)
        s.category = .ambient   // mixes with others: activation asks no one to stop
        s.addHintSource(source)
        let events = EventCollector(s)
        s.activate()
        XCTAssertTrue(s.secondaryAudioShouldBeSilencedHint, "the source reported a player on its start")
        XCTAssertEqual(s.hintSources.map(\.name), ["scripted"])
        s.removeHintSource(source)
        XCTAssertFalse(s.secondaryAudioShouldBeSilencedHint)
        XCTAssertEqual(s.hintSources.count, 0)
        XCTAssertEqual(source.stops, 1, "removed: stopped once")
        XCTAssertEqual(events.wait(count: 2), [.secondaryAudioHint(.begin), .secondaryAudioHint(.end)])
        s.removeHintSource(source)   // a second removal does nothing
        XCTAssertEqual(source.stops, 1)
    }
}

/// A hint source that reports one fixed answer when started and counts its stops.
private final class ScriptedHintSource: SecondaryAudioHintSource {
    let name = "scripted"
    private let playing: Bool
    private let stopCount = Locked(0)
    init(playing: Bool) { self.playing = playing }
    var stops: Int { stopCount.withLock { $0 } }
    func start(reportingTo sink: HintSink) { sink.report(otherAudioPlaying: playing) }
    func stop() { stopCount.withLock { $0 += 1 } }
}
