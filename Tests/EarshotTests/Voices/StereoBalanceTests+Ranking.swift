@testable import Earshot
import EarshotMeasure
import Foundation
import XCTest

/// The ranking with channel pairs: a waiting pair that does not fit in the sources left is
/// passed over, and the voices ranked below it that fit keep (or get) theirs — no source idle,
/// no steal for a pair that cannot start anyway.
extension StereoBalanceTests {
    /// Three sources; mono voices A and B (priority 0) and D (priority 200) play; a looping 2D
    /// stereo voice P (priority 100) ranks between B and D but needs two sources where one is
    /// left: P waits, D keeps playing (its 3 kHz tone at its level to 0.5 dB, never stolen),
    /// every source in use. Once B stops, P takes B's source and D's: the rank says P.
    func testAPairThatDoesNotFitLeavesTheVoicesBelowItTheirSources() throws {
        let e = try TestSignals.loopbackEngine(realVoices: 3)
        defer { e.shutdown() }
        let a = try e.loadClip(TestSignals.sine(frequency: 300, amplitude: 0.1, seconds: 1), name: "a")
        let b = try e.loadClip(TestSignals.sine(frequency: 500, amplitude: 0.1, seconds: 1), name: "b")
        let d = try e.loadClip(TestSignals.sine(frequency: 3_000, amplitude: 0.1, seconds: 1), name: "d")
        let stereo = try e.loadClip(Self.tones(seconds: 1), name: "tones")
        _ = try e.play(a, options: PlayOptions(loop: true, priority: 0))
        let vb = try e.play(b, options: PlayOptions(loop: true, priority: 0))
        let vd = try e.play(d, options: PlayOptions(loop: true, priority: 200))
        let before = try TestSignals.renderFrames(e, seconds: 0.05)
        let dAlone = ToneMeasure.amplitude(Self.channel(Array(before[(before.count - 4_800)...]), 0)[...], 3_000)
        let p = try e.play(stereo, options: PlayOptions(loop: true, priority: 100, pan: 0.5))
        let out = try TestSignals.renderFrames(e, seconds: 0.2)
        let s = e.stats
        XCTAssertEqual(s.steals, 0, "no voice stolen for a pair that cannot start")
        XCTAssertEqual(e.status(of: vd), .real, "D keeps its source")
        XCTAssertEqual(e.status(of: p), .virtual, "P waits")
        XCTAssertEqual(s.realVoices + s.pairedVoices, 3, "no source idle: \(s.realVoices) real, \(s.pairedVoices) paired")
        let tail = Array(out[(out.count - 4_800)...])
        let dNow = ToneMeasure.amplitude(Self.channel(tail, 0)[...], 3_000)
        print("StereoBalanceTests: D's 3 kHz before P \(Level.dB(dAlone)) dB, after \(Level.dB(dNow)) dB")
        XCTAssertEqual(Level.dB(dNow), Level.dB(dAlone), accuracy: 0.5, "D heard as before")
        XCTAssertLessThan(Level.dB(Self.tonesIn(tail).right), -80, "P silent")   // 2,400 frames: whole cycles of every tone

        // B stops: P stands above D and the two sources left (B's and D's) are P's.
        e.stop(vb)
        let after = try TestSignals.renderFrames(e, seconds: 0.2)
        XCTAssertEqual(e.status(of: p), .real, "P plays")
        XCTAssertEqual(e.status(of: vd), .virtual, "D gives way to the higher-ranked pair")
        XCTAssertEqual(e.stats.pairedVoices, 1)
        XCTAssertEqual(e.stats.realVoices + e.stats.pairedVoices, 3)
        let r = Self.tonesIn(Array(after[(after.count - 9_600)...]))
        XCTAssertEqual(Level.dB(r.left) - Level.dB(r.right), Level.dB(0.5), accuracy: 0.2, "P at its balance: \(r)")
    }
}
