@testable import Earshot
import EarshotTestSupport
import Foundation
import XCTest

extension MonitorCLITests {
    /// The view's rooms: a recording of RoomReverbMonitorTests' two rooms, played back in the
    /// view (tmux), shows each ringing room's reverb on the `rooms:` line — the listener's all
    /// around, the next room's from its door on the right — and the voice's way after its clip.
    func testTheViewShowsEachRoomsReverbAndEachVoicesWay() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            throw XCTSkip("tmux is not installed (make test installs it)")
        }
        var run = try RoomReverbMonitorTests.start(open: 1)
        let frame = try RoomReverbMonitorTests.frame(&run, after: 0.3)
        run.engine.shutdown()
        XCTAssertNotNil(frame?.roomReverbs)
        let file = NSTemporaryDirectory() + "earshot-rooms-\(getpid()).jsonl"
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data(run.lines.flatMap { $0 + [0x0A] }).write(to: URL(fileURLWithPath: file))

        let earshot = CLIRunner.productsDirectory.appendingPathComponent("earshot").path
        _ = try tmux(["new-session", "-d", "-s", "view", "-x", "160", "-y", "30", "\(earshot) monitor --replay \(file)"])
        defer { _ = try? tmux(["kill-server"]) }
        let text = try screen { $0.contains("end of the recording") }
        XCTAssertTrue(text.contains("rooms: west 0.0 dB around · east 0.0 dB from door (right 90°)"), text)
        XCTAssertTrue(text.contains("tone.wav") && text.contains("[east via door 6.0 m diff 0.0 open 0.0 walls -30.0]"), text)
    }
}
