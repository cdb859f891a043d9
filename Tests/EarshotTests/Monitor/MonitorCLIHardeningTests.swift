import Earshot
import EarshotLinux
import EarshotTestSupport
import Foundation
import XCTest

/// `earshot monitor` against an attacker's files (issue 35, item 16): `--record` refuses what
/// `render` refuses and never follows a symbolic link; a sockets folder another user made is not
/// trusted (listed or connected to).
final class MonitorCLIHardeningTests: XCTestCase {
    private func folder(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "earshot-\(name)-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A device node, a symbolic link to a file elsewhere, a folder and a pipe as `--record`
    /// targets: exit 1 with the reason before connecting, and each is left as it was.
    func testRecordRefusesWhatRenderRefuses() throws {
        let dir = try folder("record")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let device = dir + "/null"
        XCTAssertEqual(mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)), 0, "mknod (the tests run as root)")
        let elsewhere = dir + "/elsewhere.txt"
        try Data("keep me\n".utf8).write(to: URL(fileURLWithPath: elsewhere))
        let link = dir + "/link.jsonl"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
        let sub = dir + "/sub"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: false)
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for (target, words) in [(device, "not a regular file"), (link, "symbolic link"), (sub, "folder"), (fifo, "not a regular file"),
                                (dir + "/missing/x.jsonl", "does not exist")] {
            let r = try CLIRunner.run("earshot", ["monitor", "999999999", "--json", "--record", target])
            XCTAssertEqual(r.status, 1, "\(target): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(words), "\(target): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("no monitor for process"), "refused before connecting: \(r.stderr)")
        }
        var st = stat()
        XCTAssertEqual(lstat(device, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "the device node is still one")
        XCTAssertEqual(lstat(link, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK, "the link is still a link")
        XCTAssertEqual(try String(contentsOfFile: elsewhere, encoding: .utf8), "keep me\n", "what it leads to is untouched")
        XCTAssertEqual(lstat(fifo, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO)
    }

    /// `$XDG_RUNTIME_DIR/earshot` made by another user (uid 4242), holding a live fake engine's
    /// socket: `earshot monitor` refuses the folder — it neither lists the fake engine nor
    /// connects to it — exit 1 with the reason. The same folder owned by this user is listed (the
    /// fake engine is a real one to talk to).
    func testAnotherUsersSocketsFolderIsNotTrusted() throws {
        let runtime = try folder("runtime")
        defer { try? FileManager.default.removeItem(atPath: runtime) }
        let sockets = runtime + "/earshot"
        XCTAssertEqual(mkdir(sockets, 0o700), 0)
        let path = sockets + "/\(getpid()).sock"
        let hello = MonitorMessage.hello(MonitorHello(pid: Int(getpid()), process: "fake-engine", earshot: "0.0.0", output: "fake",
                                                      sampleRate: 48_000, loopback: true, rate: 10)).encoded() + [0x0A]
        let server = try LineServer(listener: UnixSocket.listen(path: path, mode: 0o600) { _ in true }, path: path,
                                    allowedUID: geteuid(), greeting: { hello }, answer: { _ in .none }, next: { nil })
        server.start(name: "test.fake")
        defer { server.stop() }
        let environment = ["XDG_RUNTIME_DIR": runtime]

        XCTAssertEqual(chown(sockets, 4242, 4242), 0)
        let list = try CLIRunner.run("earshot", ["monitor"], environment: environment)
        XCTAssertEqual(list.status, 1, list.stdout)
        XCTAssertTrue(list.stderr.contains("refusing \(sockets)") && list.stderr.contains("uid 4242"), list.stderr)
        XCTAssertFalse(list.stdout.contains("fake-engine"))
        let connect = try CLIRunner.run("earshot", ["monitor", String(getpid()), "--json", "--frames", "1"], environment: environment)
        XCTAssertEqual(connect.status, 1)
        XCTAssertTrue(connect.stderr.contains("refusing \(sockets)"), connect.stderr)
        XCTAssertTrue(connect.stdout.isEmpty, "not even the fake hello: \(connect.stdout)")
        XCTAssertEqual(MonitorClient.runningEngines().filter { $0.process == "fake-engine" }, [])

        // Open to others, even when owned by this user: refused too.
        XCTAssertEqual(chown(sockets, geteuid(), getegid()), 0)
        XCTAssertEqual(chmod(sockets, 0o777), 0)
        let open = try CLIRunner.run("earshot", ["monitor"], environment: environment)
        XCTAssertEqual(open.status, 1)
        XCTAssertTrue(open.stderr.contains("open to other users"), open.stderr)

        // This user's own private folder: the engine in it is listed.
        XCTAssertEqual(chmod(sockets, 0o700), 0)
        let own = try CLIRunner.run("earshot", ["monitor"], environment: environment)
        XCTAssertEqual(own.status, 0, own.stderr)
        XCTAssertTrue(own.stdout.contains("fake-engine"), own.stdout)
    }
}
