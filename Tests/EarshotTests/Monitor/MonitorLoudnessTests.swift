@testable import Earshot
import XCTest

/// Issue 40: the monitor's bus rows carry each bus's estimated momentary and short-term loudness,
/// a group its subtree's, the engine row the master's; frames from engines before it decode.
final class MonitorLoudnessTests: XCTestCase {
    func testBusRowsCarryLoudnessAndOldFramesDecode() throws {
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        let group = Bus("gameplay")
        try engine.addBus(group)
        try engine.setParent(group, of: .sfx)
        let clip = try engine.loadClip(BusLoudnessTests.tone(decibels: -23, seconds: 0.5), name: "tone")
        _ = try engine.play(clip, options: PlayOptions(loop: true, bus: .sfx))
        _ = try TestSignals.renderGameFrames(engine, seconds: 0.5)
        var capture = MonitorCapture()
        engine.withAL { capture.fill(from: engine.core) }
        let rows = Dictionary(uniqueKeysWithValues: capture.buses.map { ($0.name, $0) })
        XCTAssertEqual(rows["sfx"]?.momentaryLUFS ?? 0, -23, accuracy: 0.5)
        XCTAssertEqual(rows["gameplay"]?.momentaryLUFS ?? 0, -23, accuracy: 0.5, "a group reads its subtree")
        XCTAssertEqual(rows["sfx"]?.shortTermLUFS ?? 0, -23 + 10 * log10(0.5 / 3), accuracy: 0.5)
        XCTAssertEqual(rows["music"]?.momentaryLUFS, MonitorProtocol.silenceDecibels, "silence is the floor, not −∞")
        XCTAssertEqual(capture.masterLoudness.momentary, -23, accuracy: 0.5)

        // Through the wire: the frame's JSON has the fields; one without them decodes to nil.
        let json = try JSONEncoder().encode(try XCTUnwrap(rows["sfx"]))
        var old = try XCTUnwrap(JSONSerialization.jsonObject(with: json) as? [String: Any])
        XCTAssertNotNil(old["momentaryLUFS"])
        old["momentaryLUFS"] = nil
        old["shortTermLUFS"] = nil
        let row = try JSONDecoder().decode(MonitorFrame.BusRow.self, from: JSONSerialization.data(withJSONObject: old))
        XCTAssertNil(row.momentaryLUFS)
        XCTAssertNil(row.shortTermLUFS)
        let engineRow = MonitorFrame.Engine(
            output: "Loopback", sampleRate: 48_000, audioTime: 0, updateMs: 0, renderMs: nil, updates: 1, monitorMs: 0,
            realVoices: 0, virtualVoices: 0, freeSources: 0, voiceSources: 0, steals: 0, refusals: 0,
            limiter: .init(limitedFrames: 0, deepestDB: 0, active: false), deviceLost: false)
        let engineJSON = String(decoding: try JSONEncoder().encode(engineRow), as: UTF8.self)
        XCTAssertFalse(engineJSON.contains("master"), "nil fields are left out")
        XCTAssertNil(try JSONDecoder().decode(MonitorFrame.Engine.self, from: Data(engineJSON.utf8)).masterMomentaryLUFS)
    }
}
