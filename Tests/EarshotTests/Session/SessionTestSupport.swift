@testable import Earshot
import EarshotMeasure
import Foundation
import Synchronization
import XCTest

/// Measuring and process helpers for the audio-session tests.
/// Skips the test (naming the first missing one) unless every executable in `tools` exists;
/// `make test` installs them all through `make deps`, so a skip here means a hand-run test.
func requireTools(_ tools: [String]) throws {
    for tool in tools where !FileManager.default.isExecutableFile(atPath: tool) {
        throw XCTSkip("\(tool) is missing: run `make deps`")
    }
}

enum SessionMeasure {
    /// The power of `frequency` in one channel of interleaved samples (Goertzel), normalised so
    /// that a sine of amplitude A with a whole number of cycles in the window reads A²/4.
    static func bandPower(_ samples: ArraySlice<Float>, channels: Int, channel: Int = 0, frequency: Double, sampleRate: Int) -> Double {
        let frames = samples.count / channels
        guard frames > 0 else { return 0 }
        let w = 2 * Double.pi * frequency / Double(sampleRate)
        let coeff = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        var i = samples.startIndex + channel
        for _ in 0..<frames {
            let s0 = Double(samples[i]) + coeff * s1 - s2
            s2 = s1
            s1 = s0
            i += channels
        }
        let power = s1 * s1 + s2 * s2 - coeff * s1 * s2
        return power / (Double(frames) * Double(frames))
    }

    /// The band level in dB of a window `[start, start + frames)` (frames counted per channel).
    static func level(_ samples: [Float], channels: Int = 2, start: Int, frames: Int, frequency: Double, sampleRate: Int = 48_000) -> Double {
        let lo = max(0, start) * channels
        let hi = min(samples.count, (start + frames) * channels)
        guard hi > lo else { return -300 }
        return Level.dB(power: bandPower(samples[lo..<hi], channels: channels, frequency: frequency, sampleRate: sampleRate))
    }
}

/// Renders a loopback engine the way a game does: `update` once per 60 Hz frame, then that
/// frame's samples; keeps everything rendered.
final class FrameRenderer {
    let engine: AudioEngine
    let frameSize: Int
    private(set) var output: [Float] = []

    init(_ engine: AudioEngine, frameSize: Int = 800) {
        self.engine = engine
        self.frameSize = frameSize
    }

    /// Frames rendered so far (per channel).
    var frames: Int { output.count / engine.outputChannels }

    func render(seconds: Double) throws {
        let target = frames + Int((seconds * Double(engine.sampleRate)).rounded())
        while frames < target {
            engine.update(deltaTime: 1.0 / 60)
            output += try engine.render(frames: min(frameSize, target - frames))
        }
    }

    func level(from start: Int, seconds: Double, frequency: Double) -> Double {
        SessionMeasure.level(output, channels: engine.outputChannels, start: start,
                             frames: Int(seconds * Double(engine.sampleRate)), frequency: frequency,
                             sampleRate: engine.sampleRate)
    }
}

/// Collects a session's events by consuming its stream in a task.
final class EventCollector: Sendable {
    private final class Box: Sendable { let seen = Locked<[AudioSession.Event]>([]) }
    private let box = Box()
    private let task: Task<Void, Never>

    init(_ session: AudioSession) {
        let stream = session.events
        task = Task.detached { [box] in
            for await e in stream { box.seen.withLock { $0.append(e) } }
        }
    }

    deinit { task.cancel() }

    var events: [AudioSession.Event] { box.seen.withLock { $0 } }

    /// Waits (at most `timeout` s) until `count` events have arrived; returns them.
    @discardableResult
    func wait(count: Int, timeout: Double = 1) -> [AudioSession.Event] {
        let deadline = Date().addingTimeInterval(timeout)
        while events.count < count, Date() < deadline { usleep(2_000) }
        return events
    }
}

/// A child process started by a test, stopped by PID (SIGTERM, then SIGKILL) however the test
/// ends.
final class ChildProcess {
    let process = Process()
    let name: String

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], output: URL? = nil,
         errorOutput: URL? = nil) throws {
        name = (executable as NSString).lastPathComponent
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let output {
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: output)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        if let errorOutput {
            _ = FileManager.default.createFile(atPath: errorOutput.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: errorOutput)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
    }

    var pid: pid_t { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Stops the process by its PID; waits at most 2 s, then kills it.
    func stop(signal: Int32 = SIGTERM) {
        guard process.isRunning else { return }
        kill(pid, signal)
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    /// Runs a tool to completion (at most `timeout` s); returns its status and stdout.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                    timeout: Double = 5) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning, Date() < deadline { usleep(5_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            return (-1, "")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A private session bus: `dbus-daemon --session --nofork` on a socket of its own, stopped by PID.
final class PrivateBus {
    let directory: URL
    let address: String
    private let daemon: ChildProcess

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        daemon = try ChildProcess("/usr/bin/dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=\(address)"])
        let deadline = Date().addingTimeInterval(3)
        while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(5_000) }
        guard FileManager.default.fileExists(atPath: socket) else {
            daemon.stop()
            throw XCTSkip("dbus-daemon did not start")
        }
    }

    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    func stop() { daemon.stop() }

    deinit {
        daemon.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Waits until `condition` holds or `timeout` seconds pass; returns the seconds it took, or nil.
func waitFor(_ timeout: Double, _ condition: () -> Bool) -> Double? {
    let start = Date()
    while true {
        if condition() { return Date().timeIntervalSince(start) }
        if Date().timeIntervalSince(start) > timeout { return nil }
        usleep(2_000)
    }
}

/// Waits until the file at `url` stops growing for `quiet` seconds (at most `timeout`): a
/// recorder (parec) on a loaded machine is behind the server, and stopping it at once loses the
/// recording's last seconds.
func waitForFileToSettle(_ url: URL, quiet: Double = 0.3, timeout: Double = 3) {
    func size() -> Int { ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0 }
    let start = Date()
    var last = size(), since = Date()
    while Date().timeIntervalSince(start) < timeout {
        usleep(50_000)
        let now = size()
        if now != last { last = now; since = Date() } else if Date().timeIntervalSince(since) >= quiet { return }
    }
}
