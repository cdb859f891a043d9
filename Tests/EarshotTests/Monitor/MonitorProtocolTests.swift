@testable import Earshot
import XCTest

/// The monitor protocol's two parsers (requests, client to server; messages, server to client)
/// and the socket names (issue 30).
final class MonitorProtocolTests: XCTestCase {
    private func parse(_ text: String) throws(EarshotError) -> MonitorRequest {
        try MonitorRequest.parse(line: Array(text.utf8))
    }

    func testRequests() throws {
        XCTAssertEqual(try parse(#"{"request":"ping"}"#), .ping)
        XCTAssertEqual(try parse(#"{"request":"pause"}"#), .pause)
        XCTAssertEqual(try parse(#"{"request":"resume"}"#), .resume)
        XCTAssertEqual(try parse(#"{"request":"rate","hz":7.5}"#), .rate(7.5))
        XCTAssertEqual(try parse("{\"request\":\"ping\"}\r"), .ping, "a CRLF line is accepted")
        for request in [MonitorRequest.ping, .pause, .resume, .rate(1), .rate(60)] {
            XCTAssertEqual(request.line.last, 0x0A)
            XCTAssertEqual(try MonitorRequest.parse(line: request.line.dropLast()), request, "round trip")
        }
    }

    func testBadRequestsAreTypedErrors() {
        let bad = ["", "ping", "{}", #"{"request":"reboot"}"#, #"{"request":"rate"}"#, #"{"request":"rate","hz":0}"#,
                   #"{"request":"rate","hz":61}"#, #"{"request":"rate","hz":1e400}"#, #"{"request":7}"#, "[1,2]",
                   String(repeating: "x", count: MonitorProtocol.maxRequestBytes)]
        for text in bad {
            XCTAssertThrowsError(try parse(text), text) { error in
                guard case .monitor? = error as? EarshotError else { return XCTFail("\(error)") }
            }
        }
    }

    func testMessagesRoundTrip() throws {
        let hello = MonitorHello(pid: 42, process: "game", earshot: EarshotVersion.string, output: "Loopback",
                                 sampleRate: 48_000, loopback: true, rate: 20)
        let frame = MonitorFrame(
            seq: 3, time: 1.5,
            engine: .init(output: "Loopback", sampleRate: 48_000, audioTime: 2, updateMs: 0.1, renderMs: nil, updates: 3, monitorMs: 0.02,
                          realVoices: 1, virtualVoices: 0, freeSources: 254, voiceSources: 255, steals: 0, refusals: 1,
                          limiter: .init(limitedFrames: 0, deepestDB: 0, active: false), deviceLost: false),
            voices: [.init(id: "0.1", name: "step", clip: "step.wav", sound: "step", bus: "sfx", state: "real", gainDB: -6,
                           audibilityDB: -12, distance: 2, position: [2, 0, 0], age: 0.5)],
            voicesOmitted: 0,
            buses: [.init(name: "sfx", gainDB: 0, effectiveDB: 0, paused: false, muted: false, held: false, levelDBFS: -20,
                          duckDB: 0, snapshotDB: 0)],
            snapshots: [.init(name: "underwater", intensity: 0.5, ending: false)],
            parameters: [.init(name: "speed", value: 3)],
            music: .init(tracks: [.init(name: "theme.ogg", bus: "music", state: "playing", position: 1, duration: 60, volume: 1,
                                        bpm: 120, bar: 1, beat: 3)], sets: [.init(name: "level1", state: "explore", next: "combat", nextAt: 12.5)]),
            zones: [.init(name: "cave", gain: 0.7)],
            session: .init(category: "ambient", active: true, otherAudio: false, interrupted: false, duckDB: 0),
            events: [.init(time: 1, kind: "cooldown", name: "step", voice: nil, detail: nil)], eventsDropped: 0)
        for message in [MonitorMessage.hello(hello), .frame(frame), .pong, .bye, .error("no")] {
            let line = message.encoded()
            XCTAssertFalse(line.contains(0x0A), "one line")
            XCTAssertEqual(try MonitorMessage.decode(line: line), message)
        }
        // A frame without the optional sections (an engine without banks or adaptive music).
        var plain = frame
        plain.parameters = nil
        plain.music.sets = nil
        let text = String(decoding: MonitorMessage.frame(plain).encoded(), as: UTF8.self)
        XCTAssertFalse(text.contains("parameters"))
        XCTAssertEqual(try MonitorMessage.decode(line: Array(text.utf8)), .frame(plain))
    }

    func testBadMessagesAreTypedErrors() {
        let bad = ["", "{", #"{"type":"frame"}"#, #"{"type":"nope"}"#, #"{"type":"hello","pid":"x"}"#, "null", "\u{1B}[2J"]
        for text in bad {
            XCTAssertThrowsError(try MonitorMessage.decode(line: Array(text.utf8)), text) { error in
                guard case .monitor? = error as? EarshotError else { return XCTFail("\(error)") }
            }
        }
    }

    func testSocketNames() {
        XCTAssertEqual(MonitorSocketPath.pid(fromFileName: "1234.sock"), 1234)
        XCTAssertEqual(MonitorSocketPath.pid(fromFileName: "1234-2.sock"), 1234)
        for name in ["x.sock", "1234", "-1.sock", "0.sock", "1234-.sock", "12a.sock", "99999999999.sock", "1-2-3.sock"] {
            XCTAssertNil(MonitorSocketPath.pid(fromFileName: name), name)
        }
        XCTAssertTrue(MonitorSocketPath.directory.hasPrefix("/"))
        XCTAssertTrue(MonitorSocketPath.path(pid: 7).hasSuffix("/7.sock"))
    }
}
