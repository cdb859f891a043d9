import Earshot
import Foundation
import XCTest

/// Issue 35 item 17: a streamed music file is opened close-on-exec (a child the game spawns while
/// music streams inherits no descriptor on it) and is closed by `shutdown()` even while the game
/// still holds the track or the set. Read from /proc, for WAV (libsndfile) and Ogg Vorbis
/// (libvorbisfile) alike.
final class MusicFileDescriptorTests: XCTestCase {
    private var fixtures: MusicFixtures!

    override func setUpWithError() throws { fixtures = try MusicFixtures() }
    override func tearDown() { fixtures = nil }

    /// The descriptors of this process open on `path` (its /proc/self/fd links).
    private func descriptors(on path: String) -> [Int] {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { fd -> Int? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { return nil }
            return target == real ? Int(fd) : nil
        }
    }

    /// Whether descriptor `fd` has FD_CLOEXEC (/proc/self/fdinfo's `flags`, octal, O_CLOEXEC 02000000).
    private func isCloseOnExec(_ fd: Int) throws -> Bool {
        let info = try String(contentsOfFile: "/proc/self/fdinfo/\(fd)", encoding: .utf8)
        guard let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
              let flags = Int(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8) else {
            XCTFail("no flags in fdinfo \(fd): \(info)")
            return false
        }
        return flags & 0o2000000 != 0
    }

    /// The descriptors a child spawned now holds open on `path` (its own /proc/self/fd, listed by
    /// `ls -l` in the child).
    private func childDescriptors(on path: String) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "ls -l /proc/$$/fd"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return text.split(separator: "\n").map(String.init).filter { $0.hasSuffix("-> \(real)") }
    }

    func testStreamedFilesAreCloseOnExecAndNotInheritedByAChild() throws {
        let wav = try fixtures.sineWAV("cloexec.wav", seconds: 2)
        let ogg = try fixtures.sineVorbis("cloexec.ogg", seconds: 2)
        let engine = try TestSignals.loopbackEngine()
        defer { engine.shutdown() }
        for path in [wav, ogg] {
            let track = try engine.loadMusic(path: path)
            track.numberOfLoops = -1
            try track.play()
            _ = try engine.render(frames: 4_800)
            let fds = descriptors(on: path)
            XCTAssertFalse(fds.isEmpty, "\(path) streams from an open descriptor")
            for fd in fds { XCTAssertTrue(try isCloseOnExec(fd), "descriptor \(fd) on \(path) is not close-on-exec") }
            XCTAssertEqual(try childDescriptors(on: path), [], "a child spawned while \(path) streams inherits it")
            track.stop()
        }
    }

    func testShutdownClosesTheFilesOfHeldTracksAndSets() throws {
        let wav = try fixtures.sineWAV("held.wav", seconds: 2)
        let ogg = try fixtures.sineVorbis("held.ogg", seconds: 2)
        let stem = try fixtures.sineVorbis("stem.ogg", frequency: 700, seconds: 2)
        let engine = try TestSignals.loopbackEngine()
        let track = try engine.loadMusic(path: wav)
        let idle = try engine.loadMusic(path: ogg)   // loaded, never played
        let set = try engine.makeMusicSet(MusicSetDefinition(name: "s", states: [.init(name: "a", content: .track(.init(path: stem)))]))
        try track.play()
        try set.play(state: "a")
        _ = try engine.render(frames: 9_600)
        for path in [wav, ogg, stem] { XCTAssertFalse(descriptors(on: path).isEmpty, "\(path) is open before shutdown") }
        engine.shutdown()
        for path in [wav, ogg, stem] { XCTAssertEqual(descriptors(on: path), [], "\(path) is still open after shutdown") }
        // The held objects stay safe to call: typed errors, no trap, no reopened file.
        XCTAssertThrowsError(try track.play()) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        XCTAssertThrowsError(try idle.play()) { XCTAssertEqual($0 as? EarshotError, .engineShutDown) }
        _ = try? set.setState("a")
        track.currentTime = 0.5
        XCTAssertEqual(descriptors(on: wav), [])
        withExtendedLifetime((track, idle, set)) {}
    }
}
