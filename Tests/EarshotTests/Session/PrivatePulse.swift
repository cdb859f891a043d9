import Foundation
import XCTest

/// A PulseAudio daemon of a test's own (`XDG_RUNTIME_DIR` in a scratch folder), the real sound
/// server the live tests play through: started, waited for, given null sinks, stopped by the PID
/// in its pid file whatever happens. A test that cannot start one is skipped, saying so.
///
/// ```swift
/// let pulse = try PrivatePulse.start(in: fixtures.directory, forOpenAL: true)
/// defer { pulse.stop() }
/// try pulse.nullSink("game", makeDefault: true)
/// ```
struct PrivatePulse {
    /// The daemon's runtime folder.
    let runtime: URL
    /// The environment a client of this daemon runs with (OpenAL Soft forced onto it with `forOpenAL`).
    let environment: [String: String]

    /// Starts a daemon under `folder`/runtime and waits (5 s at most) until `pactl info` answers.
    static func start(in folder: URL, forOpenAL: Bool = false) throws -> PrivatePulse {
        try requireTools(["/usr/bin/pulseaudio", "/usr/bin/pactl"])
        let runtime = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        var env = ["XDG_RUNTIME_DIR": runtime.path]
        if forOpenAL { env["ALSOFT_DRIVERS"] = "pulse" }
        try ChildProcess.run("/usr/bin/pulseaudio", ["-D", "--system=false", "--exit-idle-time=-1", "--disallow-exit"],
                             environment: env, timeout: 10)
        let pulse = PrivatePulse(runtime: runtime, environment: env)
        guard waitFor(5, { (try? ChildProcess.run("/usr/bin/pactl", ["info"], environment: env).status) == 0 }) != nil else {
            pulse.stop()
            throw XCTSkip("pulseaudio did not start")
        }
        return pulse
    }

    /// Loads a `module-null-sink` named `name` (and makes it the default sink); returns the
    /// module's index, for `pactl unload-module`.
    @discardableResult
    func nullSink(_ name: String, makeDefault: Bool = false) throws -> String {
        let module = try ChildProcess.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=\(name)"], environment: environment)
        XCTAssertEqual(module.status, 0)
        if makeDefault {
            XCTAssertEqual(try ChildProcess.run("/usr/bin/pactl", ["set-default-sink", name], environment: environment).status, 0)
        }
        return module.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the daemon (SIGTERM, then SIGKILL after 2 s).
    func stop() { Self.stop(runtime: runtime) }

    /// Stops the daemon of `runtime` by the PID in its pid file (it refuses `pactl exit` with
    /// --disallow-exit): SIGTERM, then SIGKILL after 2 s.
    static func stop(runtime: URL) {
        let pidFile = runtime.appendingPathComponent("pulse/pid").path
        guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
              let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(2)
        while kill(pid, 0) == 0, Date() < deadline { usleep(10_000) }
        if kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }
}
