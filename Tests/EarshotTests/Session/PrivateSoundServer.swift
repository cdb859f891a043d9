import Foundation
import XCTest

/// The desktop's sound servers the live tests run against: PulseAudio 16, and PipeWire 0.3 with
/// WirePlumber and `pipewire-pulse` (what most desktops run now). Both speak the PulseAudio
/// protocol, which is what OpenAL Soft's `pulse` backend and Earshot's session plumbing talk.
enum SoundServer: String, CaseIterable, CustomStringConvertible {
    case pulseaudio
    case pipewire

    var description: String { self == .pulseaudio ? "PulseAudio" : "PipeWire" }
}

/// A sound server of a test's own (`XDG_RUNTIME_DIR` in a scratch folder), the real server the
/// live tests play through: started, waited for, given null sinks, stopped by PID whatever
/// happens. A test that cannot start one is skipped, saying so.
///
/// For PipeWire it is the desktop's stack: `dbus-daemon --session`, `pipewire`, `wireplumber`,
/// `pipewire-pulse` (each with the folder's own state and config homes, so WirePlumber remembers
/// nothing across tests). The PulseAudio-protocol server's PID is in `runtime/pulse/pid` for
/// both; killing it is "the server went away", and `start` in the same folder brings it back
/// (for PipeWire: `pipewire-pulse` again, over the PipeWire that still runs).
///
/// ```swift
/// let server = try PrivateSoundServer.start(.pipewire, in: fixtures.directory, forOpenAL: true)
/// defer { server.stop() }
/// try server.nullSink("game", makeDefault: true)
/// ```
struct PrivateSoundServer {
    let kind: SoundServer
    /// The server's runtime folder.
    let runtime: URL
    /// The environment a client of this server runs with (OpenAL Soft forced onto it with `forOpenAL`).
    let environment: [String: String]
    /// Seconds from the first process started to `pactl info` answering.
    let startup: Double

    /// The PIDs of the processes the PipeWire stack runs as, besides `pipewire-pulse`.
    private static func stackFile(_ runtime: URL) -> URL { runtime.appendingPathComponent("earshot-stack.pids") }

    /// Starts a server under `folder`/runtime and waits (5 s at most) until `pactl info` answers;
    /// once more if it does not (a PipeWire stack failed to answer once in a quiet CI run).
    static func start(_ kind: SoundServer = .pulseaudio, in folder: URL, forOpenAL: Bool = false,
                      attempt: Int = 1) throws -> PrivateSoundServer {
        let runtime = folder.appendingPathComponent("runtime")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        var env = ["XDG_RUNTIME_DIR": runtime.path]
        if forOpenAL { env["ALSOFT_DRIVERS"] = "pulse" }
        let began = Date()
        switch kind {
        case .pulseaudio:
            try requireTools(["/usr/bin/pulseaudio", "/usr/bin/pactl"])
            try ChildProcess.run("/usr/bin/pulseaudio", ["-D", "--system=false", "--exit-idle-time=-1", "--disallow-exit"],
                                 environment: env, timeout: 10)
        case .pipewire:
            try requireTools(["/usr/bin/pipewire", "/usr/bin/wireplumber", "/usr/bin/pipewire-pulse", "/usr/bin/dbus-daemon",
                              "/usr/bin/pactl"])
            env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + runtime.appendingPathComponent("bus").path
            env["XDG_STATE_HOME"] = folder.appendingPathComponent("state").path
            env["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
            env["PIPEWIRE_RUNTIME_DIR"] = runtime.path
            try startPipeWire(runtime: runtime, environment: env)
        }
        let server = PrivateSoundServer(kind: kind, runtime: runtime, environment: env, startup: 0)
        guard waitFor(5, { (try? ChildProcess.run("/usr/bin/pactl", ["info"], environment: env).status) == 0 }) != nil else {
            server.stop()
            guard attempt < 2 else { throw XCTSkip("\(kind) did not start (twice)") }
            return try start(kind, in: folder, forOpenAL: forOpenAL, attempt: attempt + 1)
        }
        return PrivateSoundServer(kind: kind, runtime: runtime, environment: env, startup: Date().timeIntervalSince(began))
    }

    /// Starts whatever of the PipeWire stack is not running in `runtime`: the bus, PipeWire and
    /// WirePlumber once, `pipewire-pulse` each time (it is what a test kills).
    private static func startPipeWire(runtime: URL, environment env: [String: String]) throws {
        let running = (try? String(contentsOf: stackFile(runtime), encoding: .utf8))?
            .split(separator: "\n").compactMap { pid_t($0) }.filter(isAlive) ?? []
        if running.count < 3 {
            for pid in running { kill(pid, SIGKILL) }
            let bus = runtime.appendingPathComponent("bus").path
            try? FileManager.default.removeItem(atPath: bus)
            var pids: [pid_t] = []
            pids.append(try spawn("/usr/bin/dbus-daemon", ["--session", "--nofork", "--nopidfile", "--address=unix:path=\(bus)"],
                                  environment: env))
            guard waitFor(3, { FileManager.default.fileExists(atPath: bus) }) != nil else {
                throw skip(pids, "dbus-daemon did not start")
            }
            pids.append(try spawn("/usr/bin/pipewire", [], environment: env))
            guard waitFor(3, { FileManager.default.fileExists(atPath: runtime.appendingPathComponent("pipewire-0").path) }) != nil else {
                throw skip(pids, "pipewire did not start")
            }
            pids.append(try spawn("/usr/bin/wireplumber", [], environment: env))
            try pids.map(String.init).joined(separator: "\n").write(to: stackFile(runtime), atomically: true, encoding: .utf8)
        }
        _ = try spawn("/usr/bin/pipewire-pulse", [], environment: env)   // writes runtime/pulse/pid
    }

    private static func skip(_ pids: [pid_t], _ why: String) -> XCTSkip {
        for pid in pids { kill(pid, SIGKILL) }
        return XCTSkip(why)
    }

    /// Starts a server process that outlives the `Process` object (it is stopped by PID, like the
    /// daemonized PulseAudio) and dies with the test process if that is killed (`setpriv
    /// --pdeathsig`, util-linux).
    private static func spawn(_ executable: String, _ arguments: [String], environment: [String: String]) throws -> pid_t {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        p.arguments = ["--pdeathsig", "KILL", "--", executable] + arguments
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p.processIdentifier
    }

    /// Loads a `module-null-sink` named `name` (and makes it the default sink); returns the
    /// module's index, for `pactl unload-module`.
    @discardableResult
    func nullSink(_ name: String, makeDefault: Bool = false) throws -> String {
        let module = try ChildProcess.run("/usr/bin/pactl", ["load-module", "module-null-sink", "sink_name=\(name)"], environment: environment)
        XCTAssertEqual(module.status, 0)
        if makeDefault {
            // pipewire-pulse answers `load-module` before the sink's node is registered: a
            // `set-default-sink` at once fails now and then (exit 1) — asked again until it holds.
            var status: Int32 = -1
            _ = waitFor(3) {
                status = (try? ChildProcess.run("/usr/bin/pactl", ["set-default-sink", name], environment: environment).status) ?? -1
                if status != 0 { usleep(50_000) }
                return status == 0
            }
            XCTAssertEqual(status, 0, "\(kind): pactl set-default-sink \(name)")
            // PipeWire applies a default through WirePlumber's metadata, a moment later.
            XCTAssertNotNil(waitFor(3) { defaultSink == name }, "\(kind): \(name) did not become the default sink")
        }
        return module.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The server's default sink, as `pactl get-default-sink` says.
    var defaultSink: String? {
        guard let r = try? ChildProcess.run("/usr/bin/pactl", ["get-default-sink"], environment: environment), r.status == 0 else { return nil }
        return r.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The PID of the PulseAudio-protocol server (`pulseaudio`, or `pipewire-pulse`).
    var pulsePID: pid_t? { Self.pulsePID(runtime) }

    static func pulsePID(_ runtime: URL) -> pid_t? {
        (try? String(contentsOfFile: runtime.appendingPathComponent("pulse/pid").path, encoding: .utf8))
            .flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Every process of the server (for PipeWire the whole stack).
    var serverPIDs: Set<pid_t> { Self.serverPIDs(runtime) }

    static func serverPIDs(_ runtime: URL) -> Set<pid_t> {
        var pids = Set((try? String(contentsOf: stackFile(runtime), encoding: .utf8))?.split(separator: "\n").compactMap { pid_t($0) } ?? [])
        if let pulse = pulsePID(runtime) { pids.insert(pulse) }
        return pids
    }

    /// Whether `pid` runs (a zombie not yet reaped by Foundation's `Process` does not).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].dropFirst().first != "Z"
    }

    /// Stops the server.
    func stop() { Self.stop(runtime: runtime) }

    /// Stops the server of `runtime` by the PIDs it left there (PulseAudio refuses `pactl exit`
    /// with --disallow-exit): SIGTERM, then SIGKILL after 2 s.
    static func stop(runtime: URL) {
        let pids = serverPIDs(runtime)
        for pid in pids { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(2)
        while pids.contains(where: isAlive), Date() < deadline { usleep(10_000) }
        for pid in pids where isAlive(pid) { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: stackFile(runtime))
    }
}
