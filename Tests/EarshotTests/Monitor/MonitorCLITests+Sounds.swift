import Earshot
import EarshotTestSupport
import Foundation
import XCTest

/// Sounds by name in the monitor (issue 35, item 5): MonitorProbe plays a bank's layered `car`
/// and its `step` (a sequence of three clips), and a sound named in code; `--json` shows each
/// voice under its sound's name with its layer or variation, the view's `/car` filter finds the
/// car's layers, and a save of the bank shows as an event.
extension MonitorCLITests {
    private func soundsProbe() throws -> (Probe, bank: String, folder: String) {
        let folder = NSTemporaryDirectory() + "earshot-monitor-sounds-\(getpid())"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let bank = folder + "/game.yaml"
        try Self.soundsBank(stepGain: "0").write(toFile: bank, atomically: true, encoding: .utf8)
        let probe = try Probe(arguments: ["sounds", "60", bank], until: "ready")
        return (probe, bank, folder)
    }

    static func soundsBank(stepGain: String) -> String {
        let sounds = CLIRunner.packageRoot.appendingPathComponent("Assets/Sounds").path
        return """
        clips:
          idle: \(sounds)/hum-loop.wav
          high: \(sounds)/coin.wav
          s1: \(sounds)/step.wav
          s2: \(sounds)/coin.wav
          s3: \(sounds)/beep.wav
        sounds:
          car:
            layers:
              - { clip: idle }
              - { clip: high, gain: -6 }
          step: { clips: [s1, s2, s3], select: sequence, loop: true, gain: \(stepGain) }
        """
    }

    func testJSONNamesSoundsWithTheirLayersAndVariations() throws {
        let (probe, _, folder) = try soundsProbe()
        defer { probe.stop(); try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertGreaterThan(probe.pid, 0, "the probe started")
        let run = try CLIRunner.run("earshot", ["monitor", String(probe.pid), "--json", "--frames", "3"], timeout: 60)
        XCTAssertEqual(run.status, 0, run.stderr)
        let last = try XCTUnwrap(try frames(run.stdout).frames.last)
        let car = last.voices.filter { $0.name == "car" }.sorted { ($0.layer ?? 0) < ($1.layer ?? 0) }
        XCTAssertEqual(car.map(\.layer), [1, 2], "\(last.voices)")
        XCTAssertEqual(car.map(\.layers), [2, 2])
        XCTAssertEqual(car.map(\.sound), ["car", "car"])
        XCTAssertEqual(car.map(\.clip), ["hum-loop.wav", "coin.wav"])
        XCTAssertNil(car.first?.leader, "the first layer is the voice the game holds")
        XCTAssertEqual(car.last?.leader, car.first?.id, "the second layer is under it")
        let steps = last.voices.filter { $0.name == "step" }.sorted { ($0.variation ?? 0) < ($1.variation ?? 0) }
        XCTAssertEqual(steps.map(\.variation), [1, 2], "the sequence's first two picks: \(last.voices)")
        XCTAssertEqual(steps.map(\.variations), [3, 3])
        XCTAssertEqual(steps.map(\.clip), ["step.wav", "coin.wav"])
        let horn = try XCTUnwrap(last.voices.first { $0.name == "horn" }, "a SoundDefinition.name: \(last.voices)")
        XCTAssertEqual(horn.clip, "beep.wav")
        XCTAssertEqual(horn.variation, 1)
        XCTAssertFalse(last.voices.contains { $0.name.contains(".wav") }, "no voice is named after a clip: \(last.voices.map(\.name))")
    }

    /// A save of the watched bank while a client watches: a `bank-reloaded` event with what changed.
    func testABankReloadIsAnEvent() throws {
        let (probe, bank, folder) = try soundsProbe()
        defer { probe.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let client = try MonitorClient(pid: probe.pid)
        var events: [MonitorFrame.EventRow] = []
        var saved = false
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !events.contains(where: { $0.kind == "bank-reloaded" }) {
            guard let line = try client.nextLine(timeout: 0.2) else { continue }
            if case .frame(let f) = try MonitorMessage.decode(line: line) {
                events += f.events
                if !saved {   // connected and framed: now the designer saves
                    try Self.soundsBank(stepGain: "-6").write(toFile: bank, atomically: true, encoding: .utf8)
                    saved = true
                }
            }
        }
        let reload = events.first { $0.kind == "bank-reloaded" }
        XCTAssertEqual(reload?.name, "game.yaml", "\(events)")
        XCTAssertEqual(reload?.detail, "changed sounds.step")
    }

    /// The view's `/car` filter keeps exactly the car's two layers (the filter used to find
    /// nothing: voices were named after their clips).
    func testTheViewsFilterFindsTheCar() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux") else {
            throw XCTSkip("tmux is not installed (make test installs it)")
        }
        let (probe, _, folder) = try soundsProbe()
        defer { probe.stop(); try? FileManager.default.removeItem(atPath: folder) }
        let earshot = CLIRunner.productsDirectory.appendingPathComponent("earshot").path
        _ = try tmux(["new-session", "-d", "-s", "view", "-x", "140", "-y", "40", "\(earshot) monitor \(probe.pid)"])
        defer { _ = try? tmux(["kill-server"]) }
        let all = try screen { $0.contains("VOICES (5 shown of 5)") }
        XCTAssertTrue(all.contains("VOICES (5 shown of 5)"), all)
        _ = try tmux(["send-keys", "-t", "view", "/", "c", "a", "r", "Enter"])
        let car = try screen { $0.contains("filter: car ") && $0.contains("VOICES (2 shown of 5)") }
        XCTAssertTrue(car.contains("VOICES (2 shown of 5)"), car)
        let rows = car.split(separator: "\n").filter { $0.hasPrefix("  car ") }
        XCTAssertEqual(rows.count, 2, car)
        XCTAssertTrue(rows.contains { $0.contains("layer 1/2 hum-loop.wav") } && rows.contains { $0.contains("layer 2/2 coin.wav of ") }, car)
        XCTAssertFalse(car.contains("  step "), car)
    }
}
