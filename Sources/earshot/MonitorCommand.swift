import ArgumentParser
import Earshot
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `earshot monitor`: list the running engines with their monitor on, watch one live, print or
/// record its raw stream, or replay a recording (see the MonitoringARunningGame article).
struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "See a running game's audio live: voices, buses, snapshots, music, zones, session and events.",
        discussion: """
            With no PID, lists this user's running engines whose monitor is on (pid, process name, \
            output). A game turns its monitor on with EARSHOT_MONITOR=1 in its environment or \
            Configuration.monitor; `EARSHOT_MONITOR=1 earshot play SCENE` can be watched the same way. \
            With a PID, shows a live view that redraws in place: the voices sorted by audibility, \
            bus meters, the event log and a sparkline of update's CPU time. Keys: p or space pause, \
            / filter by the sound's or clip's name (Enter applies, Esc cancels), b cycle the bus filter, s cycle the sort \
            (audibility, name, age, bus), c clear the filters, q quit. --json prints the protocol's \
            JSON lines instead; --record FILE saves them while watching (a new or a regular file: a \
            device, folder, pipe or symbolic link is refused, as render refuses them); --replay FILE plays a \
            recording back in the same view (or as JSON lines with --json). Exits 1 with \
            `earshot: reason` when the engine cannot be reached or a recording is not one.
            """)

    @Argument(help: "The process id of the game (see `earshot monitor` for the list).")
    var pid: Int32?

    @Flag(name: .long, help: "Print the raw JSON-lines stream instead of the view.")
    var json = false

    @Option(name: .long, help: "Save the stream (JSON lines) to FILE while watching.")
    var record: String?

    @Option(name: .long, help: "Play a recording back in the view (or as JSON lines with --json).")
    var replay: String?

    @Option(name: .long, help: "Connect to this socket instead of the PID's.")
    var socket: String?

    @Option(name: .long, help: "Stop after this many frames (1 … 1,000,000).")
    var frames: Int?

    @Option(name: .long, help: "Ask the engine for this many frames per second (1 … 60).")
    var rate: Double?

    func validate() throws {
        if replay != nil && (pid != nil || socket != nil || record != nil || rate != nil) {
            throw ValidationError("--replay plays a file: it takes no PID, --socket, --record or --rate")
        }
        if pid != nil && socket != nil { throw ValidationError("give a PID or --socket, not both") }
        if let pid, pid <= 0 { throw ValidationError("PID \(pid) is not a process id") }
        if let frames, !(1...1_000_000).contains(frames) {
            throw ValidationError("--frames \(frames) is outside 1 … 1,000,000")
        }
        if let rate, !(rate.isFinite && MonitorRequest.rates.contains(rate)) {
            throw ValidationError("--rate \(rate) is outside 1 … 60")
        }
        if replay == nil && pid == nil && socket == nil && (json || record != nil || frames != nil || rate != nil) {
            throw ValidationError(
                "--json, --record, --frames and --rate need a PID (run `earshot monitor` to list the engines)")
        }
    }

    func run() throws {
        if let replay {
            try runReplay(replay)
        } else if pid == nil && socket == nil {
            list()
        } else {
            try runLive()
        }
    }

    private func list() {
        // Another user's folder (made first, in /tmp) is not where this user's engines are.
        do { try MonitorSocketPath.checkDirectory() } catch { fail(error) }
        let engines = MonitorClient.runningEngines()
        guard !engines.isEmpty else {
            print(
                "no running engine has its monitor on (start the game with EARSHOT_MONITOR=1); sockets are in \(MonitorSocketPath.directory)"
            )
            return
        }
        print("PID      PROCESS           OUTPUT")
        for e in engines {
            print(
                MonitorView.pad(String(e.pid), 9) + MonitorView.pad(EarshotError.oneLine(e.process), 18)
                    + EarshotError.oneLine(e.output))
        }
    }

    // MARK: Live

    private func runLive() throws {
        // Before connecting: the recording can be written, as a file of its own.
        if let record { Recording.check(record) }
        let client: MonitorClient
        do {
            if let socket {
                client = try MonitorClient(path: socket)
            } else {
                client = try MonitorClient(pid: pid ?? 0)
            }
        } catch {
            fail(error)
        }
        defer { client.close() }
        if let rate { try? client.send(.rate(rate)) }
        let recorder = try record.map { try Recording(path: $0) }
        let title = socket ?? "pid \(pid ?? 0)"
        if json { return printLive(client, title: title, recorder: recorder) }
        let terminal = interactiveTerminal(view: "live", jsonPrints: "the stream")
        defer { terminal.restore() }
        var view = MonitorView(title: title)
        var count = 0
        var lastDraw = 0.0
        var open = true
        while true {
            var changed = false
            if open {
                do {
                    if let line = try client.nextLine(timeout: 0.05) {
                        let message = decodeOrFail(line, where: title, terminal: terminal)
                        recorder?.write(line)
                        view.take(message)
                        changed = true
                        if case .frame = message { count += 1 }
                        if case .bye = message { open = false }
                    }
                } catch {
                    view.ended = view.ended ?? "connection closed"
                    open = false
                    changed = true
                }
            } else {
                usleep(50_000)
            }
            let wasPaused = view.paused
            for key in terminal.keys() {
                guard view.press(key) else { return }
                changed = true
            }
            if view.paused != wasPaused, open { try? client.send(view.paused ? .pause : .resume) }
            let now = Clocks.monotonic()
            if changed || now - lastDraw > 0.5 {
                let size = terminal.size
                terminal.show(view.draw(rows: size.rows, columns: size.columns))
                lastDraw = now
            }
            if let frames, count >= frames { return }
        }
    }

    // MARK: Replay

    private func runReplay(_ path: String) throws {
        let lines = try ReplayReader(path: path)
        if json { return printReplay(lines, path: path) }
        let terminal = interactiveTerminal(view: "replay", jsonPrints: "the recording")
        defer { terminal.restore() }
        var view = MonitorView(title: "replay \(path)")
        var lastTime: Double?
        var count = 0
        var finished = false
        while true {
            if !finished && !view.paused {
                if let line = lines.next() {
                    let message = decodeOrFail(line, where: "\(path) line \(lines.lineNumber)", terminal: terminal)
                    if case .frame(let f) = message {
                        // Paced as recorded (gaps capped at 1 s).
                        if let last = lastTime { usleep(useconds_t(min(max(f.time - last, 0), 1) * 1e6)) }
                        lastTime = f.time
                        count += 1
                    }
                    view.take(message)
                } else {
                    finished = true
                    view.ended = view.ended ?? "end of the recording"
                }
            } else {
                usleep(50_000)
            }
            for key in terminal.keys() {
                guard view.press(key) else { return }
            }
            let size = terminal.size
            terminal.show(view.draw(rows: size.rows, columns: size.columns))
            if let frames, count >= frames { return }
        }
    }

    // MARK: JSON lines

    /// `--json` live: the stream's lines as they come, until its bye or `--frames` frames.
    private func printLive(_ client: MonitorClient, title: String, recorder: Recording?) {
        var count = 0
        while true {
            let line: [UInt8]?
            do { line = try client.nextLine(timeout: 3600) } catch { fail(error) }  // closed before its bye: refused or gone
            guard let line else { continue }
            let message = decodeOrFail(line, where: title)
            recorder?.write(line)
            printLine(line)
            if case .frame = message { count += 1 }
            if case .bye = message { return }
            if let frames, count >= frames { return }
        }
    }

    /// `--json --replay`: the recording's lines, each checked, up to `--frames` lines.
    private func printReplay(_ lines: ReplayReader, path: String) {
        var count = 0
        while let line = lines.next() {
            _ = decodeOrFail(line, where: "\(path) line \(lines.lineNumber)")
            printLine(line)
            count += 1
            if let frames, count >= frames { return }
        }
    }

    // MARK: Helpers

    /// The terminal a view draws in; without one, says what --json prints instead and exits 1.
    private func interactiveTerminal(view: String, jsonPrints what: String) -> MonitorTerminal {
        guard MonitorTerminal.isInteractive else {
            fail("the \(view) view needs a terminal: use --json to print \(what)")
        }
        return MonitorTerminal()
    }

    private func decodeOrFail(_ line: [UInt8], where place: String, terminal: MonitorTerminal? = nil) -> MonitorMessage
    {
        do {
            return try MonitorMessage.decode(line: line)
        } catch {
            terminal?.restore()
            fail("\(place): \(error)")
        }
    }

    private func printLine(_ line: [UInt8]) {
        FileHandle.standardOutput.write(Data(line + [0x0A]))
    }
}

/// `--record FILE`: the stream's lines as they came, one a line, written as they come (a
/// recording ended by Ctrl-C is kept). The target is checked as `render` checks its outputs
/// (``OutputGuard``): its folder writable, not a folder, device, socket or pipe; and not a
/// symbolic link, which is never followed (`O_NOFOLLOW`) — the file is opened in place, and what
/// was opened is checked again (`fstat`), so nothing swapped in meanwhile is written to.
private final class Recording {
    let handle: FileHandle
    let path: String

    /// Fails (exit 1) when `path` cannot be a recording.
    static func check(_ path: String) {
        OutputGuard.requireWritableFolder(path)
        if let problem = OutputGuard.notAFileProblem(path) { fail(problem) }
        var st = stat()
        if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK {
            fail("\(path): cannot write: it is a symbolic link (not followed: give the file's own path)")
        }
    }

    init(path: String) throws {
        Self.check(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0o600)
        guard fd >= 0 else { fail("\(path): cannot create the recording: \(String(cString: strerror(errno)))") }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, ftruncate(fd, 0) == 0 else {
            close(fd)
            fail("\(path): cannot write: it is not a regular file")
        }
        self.handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        self.path = path
    }

    func write(_ line: [UInt8]) {
        do {
            try handle.write(contentsOf: Data(line + [0x0A]))
        } catch {
            fail("\(path): cannot write the recording: \(error.localizedDescription)")
        }
    }
}

/// A recording read a line at a time (each at most ``MonitorProtocol/maxMessageBytes``).
private final class ReplayReader {
    private let file: UnsafeMutablePointer<FILE>
    private(set) var lineNumber = 0
    let path: String

    init(path: String) throws {
        guard let f = fopen(path, "rb") else {
            fail("\(path): cannot open the recording: \(String(cString: strerror(errno)))")
        }
        file = f
        self.path = path
    }

    deinit { fclose(file) }

    /// The next non-empty line, nil at the end.
    func next() -> [UInt8]? {
        var line: [UInt8] = []
        while true {
            let c = getc(file)
            if c == EOF {
                if ferror(file) != 0 { fail("\(path): cannot read the recording") }
                guard !line.isEmpty else { return nil }
                lineNumber += 1
                return line
            }
            if c == 0x0A {
                lineNumber += 1
                if line.isEmpty { continue }
                return line
            }
            guard line.count < MonitorProtocol.maxMessageBytes else {
                fail(
                    "\(path) line \(lineNumber + 1): longer than \(MonitorProtocol.maxMessageBytes) bytes: not a monitor recording"
                )
            }
            line.append(UInt8(c))
        }
    }
}
