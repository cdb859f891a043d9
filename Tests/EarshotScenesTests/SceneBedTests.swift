import Earshot
@testable import EarshotContent
@testable import EarshotScenes
import EarshotMeasure
import Foundation
import XCTest

/// `beds:` and the bed events: a first-order AmbiX plane wave from the left (written by
/// libsndfile) in rendered scenes, and the keys' problems.
final class SceneBedTests: XCTestCase {
    private var tmp: URL!

    override func setUpWithError() throws { tmp = try SceneFixtures.temporaryFolder() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: tmp) }

    /// A 1 s first-order AmbiX file of noise from the left (90°), or of `channels` channels.
    private func bedFile(channels: Int = 4) throws -> String {
        let path = tmp.appendingPathComponent("bed\(channels).wav").path
        var state: UInt64 = 1
        let n = 48_000
        var out = [Float](repeating: 0, count: n * channels)
        for f in 0..<n {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let s = (Float(state >> 40) / Float(1 << 24) * 2 - 1) * 0.25
            out[f * channels] = s
            if channels == 4 { out[f * 4 + 1] = s }   // Y = sin 90° · s: from the left
        }
        let w = try AudioFileWriter(path: path, sampleRate: 48_000, channels: channels, format: .f32)
        try w.write(out)
        try w.close()
        return path
    }

    private func balance(_ a: RenderedAudio, _ from: Double, _ to: Double) -> Double {
        Level.dB(a.rms(0, from, to) / max(a.rms(1, from, to), 1e-12))
    }

    func testAWorldLockedBedTurnsAgainstTheListenerAndEventsTurnAndStopIt() throws {
        let file = try bedFile()
        // The listener turns 90° to the left between 1 and 2 s: the world's left is then ahead.
        let turn = "listener: { at: { waypoints: [[0, 0, 0, -1], [1, 0, 0, -1], [2, -1, 0, 0], [3.5, -1, 0, 0]] } }\n"
        let world = try SceneFixtures.render(yaml: "duration: 3.5\n\(turn)beds:\n  b: { file: \(file) }\n", in: tmp)
        let head = try SceneFixtures.render(yaml: "duration: 3.5\n\(turn)beds:\n  b: { file: \(file), lock: head, gain: -6 dB }\n"
            + "events:\n  - { at: 2.5, bed: b, yaw: -90, ramp: 0 }\n  - { at: 3, bed: b, action: stop, fade: 0.1 }\n", in: tmp)
        print("scene bed: world-locked before/after the turn \(balance(world, 0.2, 0.9)) / \(balance(world, 2.2, 2.9)) dB; head-locked \(balance(head, 2.2, 2.4)), after yaw −90 \(balance(head, 2.6, 2.9)) dB")
        XCTAssertGreaterThan(balance(world, 0.2, 0.9), 6, "from the left before the turn")
        XCTAssertEqual(balance(world, 2.2, 2.9), 0, accuracy: 1, "ahead after the listener turned left")
        XCTAssertGreaterThan(balance(head, 2.2, 2.4), 6, "head-locked: still on the left")
        XCTAssertEqual(balance(head, 2.6, 2.9), 0, accuracy: 1, "yaw −90°: the recording's left turned ahead")
        XCTAssertEqual(Level.dB(head.rms(0, 0.2, 0.9) / world.rms(0, 0.2, 0.9)), -6, accuracy: 0.3, "gain: -6 dB")
        XCTAssertLessThan(head.rms(0, 3.2, 3.5), 1e-4, "stopped")
    }

    func testProblemsNameTheKey() throws {
        let file = try bedFile()
        let five = try bedFile(channels: 5)
        func problems(_ yaml: String) throws -> String {
            let path = try SceneFixtures.write("duration: 2\n" + yaml, in: tmp)
            guard case .failure(let p) = Scene.check(path: path) else { XCTFail("accepted: \(yaml)"); return "" }
            return p.description
        }
        XCTAssertTrue(try problems("beds:\n  b: { file: \(five) }\n").contains("beds.b.file"))
        XCTAssertTrue(try problems("beds:\n  b: { file: nowhere.wav }\n").contains("no such file"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file), format: ambisonic }\n").contains("beds.b.format"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file), lock: torso }\n").contains("beds.b.lock"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file), bus: nowhere }\n").contains("beds.b.bus"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file), yaw: 9000 }\n").contains("beds.b.yaw"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file) }\nevents:\n  - { at: 1, bed: c, action: play }\n").contains("events[0].bed"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file) }\nevents:\n  - { at: 1, bed: b, action: play, yaw: 3 }\n").contains("events[0].action"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file) }\nevents:\n  - { at: 1, bed: b, ramp: 3 }\n").contains("events[0].ramp"))
        XCTAssertTrue(try problems("beds:\n  b: { file: \(file) }\nevents:\n  - { at: 1, bed: b, action: pause }\n").contains("events[0].action"))
        // Accepted: a bed that waits for its play event, a FuMa bed.
        let ok = try SceneFixtures.write("duration: 2\nbeds:\n  b: { file: \(file), format: fuma, yaw: 30 }\nevents:\n  - { at: 1, bed: b, action: play, fade: 0.5 }\n", in: tmp)
        let scene = try Scene.load(path: ok)
        XCTAssertEqual(scene.beds.first?.format, .fuma)
        XCTAssertEqual(scene.beds.first?.yaw, 30)
        XCTAssertEqual(scene.events.filter { if case .bed = $0.action { true } else { false } }.count, 1, "no start at 0: its play event starts it")
    }
}
